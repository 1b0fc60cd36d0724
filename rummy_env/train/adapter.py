"""What the one trainer (``rummy_env.train.ppo``) needs of a game, reached through the game registry.

Why: ``rummy train --game NAME`` is the same trainer for every game; what differs per game
is the policy network (its input and output sizes, its policy file), the network's input
for a decision, the batch rollout source and the warm start's data. A ``TrainingAdapter``
gives those. A game names its own adapter in ``Game.training_module`` (a module holding
``ADAPTER``, a subclass made with the game, e.g. Gin Rummy's vector engine in
``rummy_env.train.games.gin``); a game without one gets this generic adapter: an MLP over
the game's ``flat`` encoding to its ``num_actions`` (``rummy_env.agents.mlp_network``) and
the hands of an update played on the game's vector engine (``rummy_env.train.engine_rollouts``)
where that can be (``engine_rollouts`` says why not), else in-process
(``rummy_env.train.hands``: many hands played together over the ``GameState`` protocol).
So a game added later trains with no line of training code.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from pathlib import Path
from typing import Any, Callable, NoReturn, Optional, Union

import numpy as np

from rummy_env.core.game import Game, get_game

CHECKPOINT_FORMAT = "rummy-env-ppo-checkpoint-v2"


class TrainingAdapter:
    """The generic adapter (module docstring); games override what is theirs."""

    outcomes: Optional[tuple[str, ...]] = None  # the names of a batch's outcome counts (None: ``Game.outcomes``)
    pool_stand_in = "self"  # who plays a ``pool`` hand while the pool is empty
    takes_advice = False  # whether its network can read advice (``advice: true``)
    scores_choices = False  # whether its network can score only some moves or all (``scored_moves``)
    advised_move = False  # whether the advice is the heuristic's move (``imitation_discards: advice``)
    # the encoding of the mover's information set that the network's input starts with
    # (``inputs``), which a vector engine writes for many hands at once (``engine_inputs``
    # adds the rest, if any); None: the engine cannot give the input, so the hands are
    # played in-process (``engine_rollouts``)
    engine_encoding: Optional[str] = "flat"
    # whether that encoding is the whole of the input, so that decisions exported in it
    # (``rummy export --view flat``) can warm-start the network (``imitation_file``)
    observation_input = True

    def __init__(self, game: Game) -> None:
        self.game = game

    # ------------------------------------------------------------------ the network

    def make_net(self, config: Any) -> Any:
        """A fresh policy network for ``config`` (weights from torch's global generator)."""
        from rummy_env.agents.mlp_network import for_game

        return for_game(self.game, config.hidden, config.rules)

    def make_critic(self, config: Any, net: Any) -> Optional[Any]:
        """The separate value network of ``critic: oracle`` (None: the policy's value head)."""
        return None

    def net_shape(self, net: Any) -> dict[str, Any]:
        """What a network's shape is, to compare with ``wanted_shape`` (``init_policy``)."""
        return {"hidden": list(net.hidden)}

    def wanted_shape(self, config: Any) -> dict[str, Any]:
        return {"hidden": list(config.hidden)}

    def load_policy(self, path: Union[str, Path]) -> tuple[Any, dict[str, Any]]:
        from rummy_env.agents.mlp_network import load_policy

        return load_policy(path, self.game.name)

    def policy_payload(self, net: Any, rules: Optional[str], extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        from rummy_env.agents.mlp_network import policy_payload

        return policy_payload(net, self.game.name, rules, extra)

    def save_policy(self, net: Any, path: Union[str, Path], rules: Optional[str],
                    extra: Optional[dict[str, Any]] = None) -> None:
        from rummy_env.agents import torch_files

        torch_files.save(self.policy_payload(net, rules, extra), path)

    def inputs(self, net: Any, info: Any, rules: Any, legal: list[int]) -> np.ndarray:
        """The network's input for one decision: the ``flat`` encoding of the mover's information set."""
        return self.game.encoding("flat").encode(info, rules)

    def engine_inputs(self, engine: Any, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """The network's inputs in games ``rows`` of a vector engine (``engine_rollouts``) for
        their players to move, given their ``engine_encoding`` observations ``obs``: what
        ``inputs`` gives for the same decisions (by default the observations themselves)."""
        return obs

    # ------------------------------------------------------------------ rollouts

    def work(self, config: Any) -> int:
        """What an update's rollout workers split among them: hands (``hands_per_update``)."""
        return config.hands_per_update

    def make_worker(self, config: Any, index: int, share: int, net: Any, critic: Optional[Any],
                    generator: Optional[Any]) -> Any:
        """Rollout worker ``index`` playing ``share`` of ``work(config)`` (``rummy_env.train.workers``):
        on the game's vector engine unless ``rollouts`` says ``hands`` or ``engine_rollouts``
        finds something missing, else in-process."""
        if config.rollouts != "hands" and not self.engine_rollouts(config):
            from rummy_env.train.engine_rollouts import EngineWorker

            return EngineWorker(config, index, share, net, self)
        from rummy_env.train.hands import HandsWorker

        return HandsWorker(config, index, share, net, self)

    def engine_rollouts(self, config: Any) -> str:
        """'' when ``config``'s hands can be played on the game's vector engine
        (``rummy_env.train.engine_rollouts``), else why not, in words: the network reads
        more than the engine writes (``engine_encoding``), the game has no compiled engine
        in use here (the pure hands in a loop would be slower than in-process), or a
        scripted opponent of ``opponents`` (or the pool's stand-in) has no array version
        (``Agent.batch_policy``)."""
        from rummy_env import agents
        from rummy_env.core.vector import batch_encoding
        from rummy_env.core.vector_states import StatesEngine

        game = self.game
        if self.engine_encoding is None:
            return f"{game.title}'s network reads more than an observation its vector engine writes"
        if game.vector_module is None:
            return f"{game.title} has no vector engine of its own"
        try:
            batch_encoding(game, self.engine_encoding)
        except ValueError as exc:
            return str(exc)
        engine = game.vector(1, min(config.table_sizes), rules=config.rules, encoding=None, seed=0)
        if isinstance(engine, StatesEngine) or "active" not in inspect.signature(engine.step).parameters:
            return (f"{game.title}'s compiled vector engine is not in use here (numba missing, RUMMY_ENV_NO_NUMBA "
                    "set, or its self-check failed: a warning said why)")
        kinds = [k for k in config.opponents if k not in ("self", "pool")]
        if "pool" in config.opponents and self.pool_stand_in not in ("self", *kinds):
            kinds.append(self.pool_stand_in)
        slow = [k for k in sorted(kinds) if agents.make(k, game=game.name).batch_policy() is None]
        if slow:
            return f"opponent(s) {', '.join(slow)} of {game.title} have no array version (Agent.batch_policy)"
        return ""

    def imitation_targets(self, config: Any, data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The warm start's moves as the network is fitted to them (``imitation_discards``);
        here the teacher's own."""
        return data

    def imitation_data(self, config: Any, progress: Optional[Callable[[int], None]] = None,
                       folder: Optional[Path] = None) -> dict[str, np.ndarray]:
        """The warm start's moves of ``imitation_teacher`` with their legal masks and results,
        played in-process and kept in ``folder`` as they end (``train.teacher_moves``)."""
        from rummy_env.train.teacher_moves import teacher_moves

        return teacher_moves(config, self, progress, folder)

    def scripted_kinds(self, config: Any) -> tuple[str, ...]:
        """The agents the in-process source makes afresh each update (a seed drawn for each, in this order)."""
        return tuple(k for k in sorted(config.opponents) if k not in ("self", "pool"))

    def opponent_kinds(self, config: Any) -> tuple[str, ...]:
        """What ``opponents`` may name: the learner, the pool, or any agent of the game."""
        from rummy_env import agents

        return ("self", "pool", *agents.available(self.game.name, levels=False, required=False))

    def check_spec(self, spec: str) -> None:
        """Refuse (a ValueError) an agent spec of this game that does not resolve, or that
        leaves out an option its agent cannot be made without (``Agent.required_options``,
        a policy file): found here, before a run folder or any hand, not at the first update."""
        from rummy_env import agents

        resolved = agents.resolve(spec, game=self.game.name)
        missing = [o for o in getattr(resolved.factory, "required_options", ()) if o not in resolved.options]
        if missing:
            raise ValueError(f"agent {spec!r} needs {', '.join(f'{o}=...' for o in missing)}")

    def check_targets(self, config: Any, fail: Callable[[str, Any, str], NoReturn]) -> None:
        """Refuse ``scored_moves`` and ``imitation_discards`` where the network has no such choice."""
        if config.scored_moves != "choices" and not self.scores_choices:
            fail("scored_moves", config.scored_moves, f"{self.game.title}'s network scores every move: choose choices")
        if config.imitation_discards != "teacher" and not self.advised_move:
            fail("imitation_discards", config.imitation_discards,
                 f"{self.game.title}'s network is told no move to fall back on: choose teacher")

    def check(self, config: Any, fail: Callable[[str, Any, str], NoReturn]) -> None:
        """Refuse settings this game cannot train with (``fail(field, value, allowed)``)."""
        if config.critic != "shared":
            fail("critic", config.critic, f"{self.game.title} has no oracle critic: choose shared")
        if config.advice and not self.takes_advice:
            fail("advice", config.advice, f"{self.game.title}'s network has no advice features: set false")
        self.check_targets(config, fail)
        kinds = f"kinds: self, pool or an agent of {self.game.title} ({', '.join(self.opponent_kinds(config)[2:])})"
        for name, specs in (("opponents", [k for k in config.opponents if k not in ("self", "pool")]),
                            ("eval_opponents", list(config.eval_opponents)),
                            ("imitation_teacher", [config.imitation_teacher] if config.imitation_teacher else [])):
            for spec in specs:
                try:
                    self.check_spec(spec)
                except (ValueError, TypeError) as exc:
                    fail(name, spec, f"unknown kind ({exc}); {kinds}" if name == "opponents" else str(exc))
        if config.imitation_file is not None and not self.observation_input:
            fail("imitation_file", config.imitation_file, f"{self.game.title}'s network reads more than an observation "
                 "(an exported file holds only the observation): warm start with imitation_teacher instead")
        if config.rollouts == "engine":
            why = self.engine_rollouts(config)
            if why:
                fail("rollouts", config.rollouts, f"{why}: choose auto or hands (in-process)")
        if config.rollout_workers > self.work(config):
            fail("rollout_workers", config.rollout_workers, f"must be at most hands_per_update ({self.work(config)}): "
                 "each worker plays its share of the hands")


@functools.lru_cache(maxsize=None)
def _adapter(name: str) -> TrainingAdapter:
    game = get_game(name)
    module = getattr(game, "training_module", None)
    if module is None:
        return TrainingAdapter(game)
    return importlib.import_module(module).ADAPTER(game)


def adapter_for(game: Union[str, Game]) -> TrainingAdapter:
    """The training adapter of ``game`` (one per game and process)."""
    return _adapter(get_game(game).name)
