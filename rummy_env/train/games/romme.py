"""Rommé's training adapter: its own network (``rummy_env.agents.romme.network``), the one
Rommé's ``ppo`` agent plays, whose input carries the heuristic's move as advice. On the
vector engine (``rummy_env.train.engine_rollouts``) the advice comes from the heuristic's
array version (``RommeHeuristicAgent.batch_policy``), asked as the ``ppo`` agent asks the
heuristic (``rummy_env.agents.romme.ppo.advised_move``): its tie-break generator made
afresh from ``ADVICE_SEED`` at every decision (decision 0 of that key), so the input is
the one the in-process hands and the agent compute from the information set (tested
decision by decision). Named by the game's ``training_module``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NoReturn, Optional, Union

import numpy as np

from rummy_env.train.adapter import TrainingAdapter


class RommeAdapter(TrainingAdapter):
    """``RommePolicyNet`` (told the heuristic's move, ``advice: true``) and its policy files;
    the rest is generic."""

    takes_advice = True
    scores_choices = True  # ``scored_moves``: the draws, discards and advice, or every legal move
    advised_move = True  # the advice is the heuristic's move: ``imitation_discards: advice`` falls back on it
    observation_input = False  # the flat encoding, then the heuristic's move: an exported file lacks the move
    _adviser: Any = None  # the heuristic's array policy giving the advice (its own, apart from any opponent's)

    def engine_inputs(self, engine: Any, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """The flat observations of ``rows``, then the heuristic's move there (module docstring)."""
        from rummy_env.agents.draws import key_of
        from rummy_env.agents.romme.ppo import ADVICE_SEED

        if self._adviser is None:
            from rummy_env.agents.romme.agents import RommeHeuristicAgent

            self._adviser = RommeHeuristicAgent(seed=ADVICE_SEED).batch_policy()
        keys = np.full(rows.size, key_of(ADVICE_SEED), dtype=np.uint64)
        advice = self._adviser(engine, rows, keys, np.zeros(rows.size, dtype=np.int64))
        return np.concatenate([obs, np.asarray(advice, dtype=np.float32)[:, None]], axis=1)

    def make_net(self, config: Any) -> Any:
        from rummy_env.agents.romme.network import RommePolicyNet

        return RommePolicyNet(config.hidden, config.scored_moves)

    def net_shape(self, net: Any) -> dict[str, Any]:
        return {"hidden": list(net.hidden), "scored_moves": getattr(net, "moves_scored", None)}

    def wanted_shape(self, config: Any) -> dict[str, Any]:
        return {"hidden": list(config.hidden), "scored_moves": config.scored_moves}

    def imitation_targets(self, config: Any, data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """With ``imitation_discards: advice``, where the teacher threw another card than the
        heuristic's discard (the advice, the input's last entry), the heuristic's is the target."""
        if config.imitation_discards != "advice":
            return data
        from rummy_env.romme.game import DISCARD, PICK

        advised = data["obs"][:, -1].astype(np.int64)
        act = data["act"]
        both = (advised >= DISCARD) & (advised < PICK) & (act >= DISCARD) & (act < PICK)
        return {**data, "act": np.where(both, advised, act)}

    def load_policy(self, path: Union[str, Path]) -> tuple[Any, dict[str, Any]]:
        from rummy_env.agents.romme.network import load_policy

        return load_policy(path)

    def policy_payload(self, net: Any, rules: Optional[str], extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        from rummy_env.agents.romme.network import policy_payload

        return policy_payload(net, rules, extra)

    def inputs(self, net: Any, info: Any, rules: Any, legal: list[int]) -> np.ndarray:
        """The ``ppo`` agent's input (``rummy_env.agents.romme.ppo.network_inputs``), the
        heuristic's move in it, for the network's moves and the warm start's alike."""
        from rummy_env.agents.romme.ppo import network_inputs

        return network_inputs(info, rules, legal)

    def check(self, config: Any, fail: Callable[[str, Any, str], NoReturn]) -> None:
        if not config.advice:
            fail("advice", config.advice, f"{self.game.title}'s network reads the heuristic's move: set true")
        super().check(config, fail)


ADAPTER = RommeAdapter
