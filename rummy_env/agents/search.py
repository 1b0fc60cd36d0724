"""``search``: one determinised search for every game, written over the game interface alone.

Why PIMC (perfect-information Monte Carlo) and not information-set MCTS: the move is
chosen by sampling worlds consistent with the mover's information set
(``Game.sample_world``, or a game's belief model plugged in as ``belief``), playing each
candidate move in each world and playing the hand out with a rollout policy, and
comparing the candidates' mean rewards over the same worlds. That is a one-step policy
improvement over the rollout policy (the game's scripted agent by default): in a world
the rollout plays both the mover's later moves and everyone else's, so nothing beyond
the first move needs a tree. A tree over information sets (IS-MCTS) would have to
expand the multi-step turns of these games (Rommé lays its melds card by card) with
too few visits per node at the budgets a move can afford here (tens to hundreds of
playouts), and Gin's ``mcts`` found an IS-MCTS with greedy rollouts weaker than PIMC at
equal cost (docs/findings/search.md). PIMC's known flaw (strategy fusion: a world's
playout uses cards the mover cannot know) is bounded here because the rollout policy
chooses every move from its own information set in that world, never from the full
state.

How a move is chosen (``act``):

- the base move is the rollout policy's own move in the real position; the candidates
  are every legal move, the base first (one legal move: no search);
- worlds come in rounds; in each world every candidate still in play is stepped and the
  hand played out to its end by the rollout policy (one agent per seat, all reseeded with
  the world's seed: common random numbers, so the candidates are compared under the
  same tie-breaks in the same deal, and the difference between two moves is far less
  noisy than the rewards themselves);
- after each round (from ``MIN_WORLDS`` worlds on) the candidates clearly worse than the
  base move (by ``ELIMINATE_SE`` standard errors of the paired difference) stop being played, so the
  budget goes to the contenders, and the search stops when none is left;
- the search plays the base move unless another candidate beats it by more than
  ``confidence`` standard errors (and never on fewer than ``MIN_WORLDS`` worlds): too
  few worlds make it fall back to the rollout policy's move rather than to noise.

Values are the mover's ``HandResult.rewards`` at the end of the hand (the game's own
points, zero-sum over the seats). By default the playouts are whole hands: a playout cut
at a depth needs a value for a position in the game's points, and the game interface
gives none (``docs/findings/generic-search.md`` measures the cost of playouts per game).

Budget: ``simulations`` playouts a move in all (reproducible with a seed), or ``time``
seconds a move when given (then the moves depend on the machine's speed). ``depth`` cuts
each playout after that many moves, worth what ``evaluate`` says (below) or nothing to
anyone: the search then compares moves only by the hands that end within the horizon.

Where the playouts are played (``playouts``): ``python`` one at a time, each seat's
agent's ``act`` on the pure game (``_play_out``, the reference); ``engine`` all the
playouts of a round at once, as rows of the game's vector engine stepped by the rollout
agent's array policy (``rummy_env.agents.search_playouts``), with exactly the same values
and so the same moves; ``auto`` (the default) the engine for rounds of the game's
``engine_playout_rows`` playouts or more (smaller ones cost less in Python: 16 in Basic
Rummy and Gin Rummy; in Rommé, whose heuristic is compiled there, any round), where it
can be used: the game's engine loads states (``rummy_env.core.vector.LoadsStates``: the compiled engines of Basic
Rummy, Gin Rummy and Rommé), the rollout agent has an array version (``Agent.batch_policy``) and no
``evaluate`` is plugged in (only Python playouts call it); ``engine`` where it cannot be
used is refused, saying why. Basic Rummy's ``expert`` (100 playouts) thinks 1.5 to 1.65
times as fast with ``auto`` as in Python, at 2 to 4 players, 2026-12-06
(``benchmarks/bench_playouts.py --search expert``; docs/findings/generic-search.md).

Plug-ins, for Python callers: ``belief``, a game's model of the hidden cards (a callable
``(information_set, rules, rng) -> GameState``, or an object with such a
``sample_world`` method) in place of the uniform ``Game.sample_world``; ``evaluate``, a
callable ``state -> points per seat`` for playouts cut at ``depth``. ``rollout`` is any
agent spec of the same game (default: the game's ``heuristic`` if it has one, else the
generic ``random``); it is shown what the env shows, the encoded observation (the env's
default encoding) computed only if it reads it.

``confidence`` defaults to 1.5 standard errors, not the 1.0 of Gin's ``mcts``: every
legal move is a candidate here (a Basic Rummy discard has up to 11), and the largest of
many noisy differences passes one standard error by chance.
"""

from __future__ import annotations

import time as _time
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.registry import make, register_generic, resolve
from rummy_env.agents.search_playouts import (
    PLAYOUTS, engine_loads_states, engine_refusal, engine_rewards, seat_seeds,
)
from rummy_env.core.game import Game, GameState, get_game

ROUND = 16  # at most this many worlds a round; clearly worse candidates are dropped after each
ELIMINATE_SE = 2.0  # standard errors below the base move that drop a candidate
MIN_WORLDS = 4  # fewer worlds than this: play the base move
DEFAULT_ROLLOUTS = ("heuristic", "random")  # the first of these the game has is the default rollout policy
ENCODING = "flat"  # the env's default encoding: what a rollout agent that reads observations is shown

Belief = Callable[[Any, Any, np.random.Generator], GameState]


class SearchAgent(Agent):
    """``search``: determinised search (PIMC) over the game interface; see the module docstring."""

    name = "search"
    game = None  # set per instance: one class plays every game
    # a playout is the rest of a hand by the rollout policy: from the deal, 2 ms in Basic
    # Rummy, up to 38 ms in Rommé and 0.14 s in Gin Rummy (its heuristic samples hands at
    # each knock decision) on our 2-core machine; ``costs`` gives a game's own figure
    # (``Game.playout_seconds``), ``budgets`` the dearest, for when the game is not known
    # (docs/findings/generic-search.md)
    budgets = MappingProxyType({"simulations": 0.15, "time": 1.0})

    @classmethod
    def costs(cls, game: str, options: Mapping[str, Any]) -> Mapping[str, float]:
        """A simulation costs a hand of ``game`` played out by the rollout agent the options
        name (the game's default one if none): ``Game.playout_seconds`` of its name, else of
        ``"*"``. A cut playout (``depth``) is counted whole."""
        rollout = options.get("rollout")
        name = None
        try:
            name = resolve(rollout if isinstance(rollout, str) else default_rollout(game), game).name
        except ValueError:
            pass  # a rollout that cannot be made is refused when the agent is made
        table = get_game(game).playout_seconds
        return MappingProxyType({"simulations": table.get(name, table["*"]), "time": 1.0})

    def __init__(
        self,
        game: str,
        seed: Optional[int] = None,
        simulations: int = 100,
        time: Optional[float] = None,
        rollout: Optional[str] = None,
        confidence: float = 1.5,
        depth: Optional[int] = None,
        belief: Optional[Any] = None,
        evaluate: Optional[Callable[[GameState], Sequence[float]]] = None,
        playouts: str = "auto",
    ) -> None:
        super().__init__(seed)
        played: Game = get_game(game)
        self.game = played.name
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a whole number >= 1, got {simulations!r}")
        if time is not None and not 0 < time < float("inf"):
            raise ValueError(f"time must be a number of seconds > 0, got {time!r}")
        if not confidence >= 0:
            raise ValueError(f"confidence must be >= 0 standard errors, got {confidence!r}")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise ValueError(f"depth must be a whole number of moves >= 1, got {depth!r}")
        if evaluate is not None and not callable(evaluate):
            raise ValueError(f"evaluate must be a callable state -> points per seat (set from Python), "
                             f"got {evaluate!r}")
        if playouts not in PLAYOUTS:
            raise ValueError(f"playouts must be one of {', '.join(PLAYOUTS)}, got {playouts!r}")
        self.simulations = simulations
        self.depth = depth
        self.evaluate = evaluate
        self.time = time
        self.confidence = float(confidence)
        self.rollout = rollout if rollout is not None else default_rollout(self.game)
        self._sample = _belief_sampler(played, belief)
        self._encoding = played.encoding(ENCODING)
        # one rollout agent per seat, made on first use; the first now, so a bad spec is refused here
        self._policies: list[Agent] = [rollout_agent(self.rollout, self.game)]
        # where the playouts go: the rollout agent's array policy on the game's engine (None: in Python)
        self.playouts = playouts
        self._batch = None if playouts == "python" or evaluate is not None else self._policies[0].batch_policy()
        if playouts == "engine":
            why = engine_refusal(played, self._batch, self.rollout, evaluate)
            if why:
                raise ValueError(f"playouts=engine cannot be honoured: {why}; use playouts=auto (the engine where it "
                                 "can be used) or playouts=python")
        self._on_engine: dict[int, bool] = {}  # per table size: whether the game's engine loads states
        # searched decisions, and those where it did not play the base move, over the agent's
        # life (not cleared by reset: for reports over many games); the last search's moves
        # (the base move first) and values (worlds x moves, NaN where a move was dropped)
        self.decisions = self.deviations = 0
        self.last_search: Optional[tuple[list[int], np.ndarray]] = None

    # ------------------------------------------------------------------ playing

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        self.next_decision()
        infoset, rules = game_input(self, observation, info)
        if legal.size == 1:
            return int(legal[0])
        seed = int(self.rng.integers(1 << 62))  # everything below derives from it: reproducible
        policy = self._policy(0)
        policy.reset(seed)
        base = int(policy.act(observation, info))
        moves = [base] + sorted(int(a) for a in legal if a != base)
        values = self._search(infoset, rules, moves, seed)
        self.last_search = (moves, values)
        self.decisions += 1
        choice = _choose(values, self.confidence)
        self.deviations += choice != 0
        return moves[choice]

    def _search(self, infoset: Any, rules: Any, moves: list[int], seed: int) -> np.ndarray:
        """(worlds, moves): the mover's reward with each move played in each sampled world
        and the hand played out (NaN where a move was no longer played). Worlds come in
        rounds, clearly worse moves dropped after each (see the module docstring)."""
        seeds = np.random.default_rng(seed)  # each world's seed, in turn
        deadline = None if self.time is None else _time.perf_counter() + self.time
        values = np.zeros((0, len(moves)))
        active = list(range(len(moves)))
        spent = 0
        while len(active) > 1:
            if deadline is None:
                left = self.simulations - spent
                if left < len(active):  # not a world's worth left
                    break
                n = max(1, min(ROUND, left // (2 * len(active))))
            else:  # a world at a time, so that a move overruns ``time`` by one world's playouts at most
                if _time.perf_counter() >= deadline:
                    break
                n = 1
            rows = np.full((n, len(moves)), np.nan)
            starts, world_seeds = [], []  # every active move played in every world of the round
            for w in range(n):
                world_seed = int(seeds.integers(1 << 62))
                world = self._sample(infoset, rules, np.random.default_rng(world_seed))
                for i in active:
                    state = world.clone()
                    state.step(moves[i])
                    starts.append(state)
                    world_seeds.append(world_seed)
            me = world.current_player  # the mover: the search only runs on its turn
            rows[:, active] = self._play_outs(starts, world_seeds)[:, me].reshape(n, len(active))
            values = np.vstack([values, rows])
            spent += n * len(active)
            if len(values) >= MIN_WORLDS:
                mean, se = paired(values)
                active = [0] + [i for i in active[1:] if mean[i] + ELIMINATE_SE * se[i] > 0]
        return values

    def _play_outs(self, states: list[GameState], seeds: list[int]) -> np.ndarray:
        """(len(states), num_players): each state's playout (``_play_out``, in world
        ``seeds[k]``), all of them at once on the game's vector engine where the playouts
        may go there (``rummy_env.agents.search_playouts``; under ``auto`` a round of at least
        the game's ``engine_playout_rows`` playouts), else one by one in Python: the same values
        either way."""
        played = get_game(self.game)
        wanted = self.playouts == "engine" or len(states) >= played.engine_playout_rows  # ``auto``: worth an engine
        if self._batch is not None and wanted and self._engine_loads(played, states[0].num_players):
            return engine_rewards(played, self._batch, states, seeds, self.depth)
        return np.array([self._play_out(state, seed) for state, seed in zip(states, seeds)], dtype=float)

    def _engine_loads(self, played: Game, num_players: int) -> bool:
        """Whether the game's engine at this table size loads states (asked once)."""
        if num_players not in self._on_engine:
            self._on_engine[num_players] = engine_loads_states(played, num_players)
            if not self._on_engine[num_players] and self.playouts == "engine":
                raise ValueError(f"playouts=engine cannot be honoured: the {played.title} vector engine at "
                                 f"{num_players} players cannot load states; use playouts=auto or python")
        return self._on_engine[num_players]

    def _play_out(self, state: GameState, seed: int) -> tuple[int, ...]:
        """The rewards at the end of the hand (or at ``depth``: ``evaluate``'s, else none),
        every seat playing the rollout policy from its own information set in this world
        (each seat's agent reseeded with ``seed`` plus its seat: ``seat_seeds``)."""
        policies = [self._policy(p) for p in range(state.num_players)]
        for policy, own in zip(policies, seat_seeds(seed, state.num_players)):
            policy.reset(own)
        rules = state.rules
        moves = 0
        while not state.is_over:
            if moves == self.depth:  # the horizon: the game's value if one was plugged in, else nobody's points
                return tuple(self.evaluate(state)) if self.evaluate is not None else (0,) * state.num_players
            moves += 1
            p = state.current_player
            infoset = state.information_set(p)
            info = {"information_set": infoset, "rules": rules}
            state.step(int(policies[p].act(_Observation(self._encoding, infoset, rules, state.legal_mask()), info)))
        assert state.result is not None
        return tuple(state.result.rewards)

    def _policy(self, seat: int) -> Agent:
        while len(self._policies) <= seat:
            self._policies.append(rollout_agent(self.rollout, self.game))
        return self._policies[seat]


# ----------------------------------------------------------------------------- helpers


def default_rollout(game: str) -> str:
    """The rollout policy used when none is named: the first of ``DEFAULT_ROLLOUTS`` that
    ``game`` has (its own ``heuristic``, else the generic ``random``)."""
    for spec in DEFAULT_ROLLOUTS:
        try:
            rollout_agent(spec, game)
        except ValueError:
            continue
        return spec
    raise ValueError(f"{get_game(game).title} has none of the agents {', '.join(DEFAULT_ROLLOUTS)} to play the "
                     "search's playouts; name one with rollout=SPEC")


def rollout_agent(spec: str, game: str) -> Agent:
    """The agent of ``spec`` for ``game`` that plays the playouts; an agent that buys its own
    thinking time (a search: its class has a ``time`` budget) is refused, since every move
    of every playout would then be a search."""
    if not isinstance(spec, str):
        raise ValueError(f"rollout must be an agent spec such as 'heuristic', got {spec!r}")
    agent = make(spec, seed=0, game=game)
    if isinstance(agent, SearchAgent) or "time" in getattr(agent, "budgets", {}):
        raise ValueError(f"rollout={spec!r} is a search itself: name an agent that plays without searching "
                         "(e.g. heuristic or random)")
    return agent


def _belief_sampler(game: Game, belief: Any) -> Belief:
    """The function that deals a world from an information set: ``belief`` (a callable, or
    an object with a ``sample_world`` method), or the game's uniform ``sample_world``."""
    if belief is None:
        return game.sample_world
    sampler = getattr(belief, "sample_world", belief)
    if not callable(sampler):
        raise ValueError(f"belief must be a callable (information_set, rules, rng) -> state, or an object with such "
                         f"a sample_world method (set from Python), got {belief!r}")
    return sampler


class _Observation(dict):
    """What a rollout agent is shown: the action mask at once, and the encoded
    ``observation`` (the env's default encoding of the information set) only when an agent
    reads it, since the scripted agents never do and encoding costs more than their move."""

    def __init__(self, encoding: Any, infoset: Any, rules: Any, mask: np.ndarray) -> None:
        super().__init__(action_mask=mask)
        self._encode = lambda: encoding.encode(infoset, rules)

    def __missing__(self, key: str) -> np.ndarray:
        if key != "observation":
            raise KeyError(key)
        self[key] = value = self._encode()
        return value

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[key] if key in self or key == "observation" else default


def paired(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of each column minus column 0 (the base move), over the rows
    (worlds) where that column was played (NaN after it was dropped). The standard
    deviation is taken as at least one point, so that a few worlds that agree exactly
    cannot look infinitely sure (and a column of one world has that deviation)."""
    diff = values - values[:, :1]
    played = ~np.isnan(diff)
    n = played.sum(axis=0)
    mean = np.where(played, diff, 0.0).sum(axis=0) / np.maximum(n, 1)
    squares = np.where(played, (diff - mean) ** 2, 0.0).sum(axis=0)
    std = np.sqrt(squares / np.maximum(n - 1, 1))
    return mean, np.maximum(std, 1.0) / np.sqrt(np.maximum(n, 1))


def _choose(values: np.ndarray, confidence: float) -> int:
    """The index of the move to play: the best-scoring move still in play if it beats the
    base move (index 0) by more than ``confidence`` standard errors over ``MIN_WORLDS``
    worlds or more, else the base move."""
    if len(values) < MIN_WORLDS or values.shape[1] < 2:
        return 0
    mean, se = paired(values)
    played = ~np.isnan(values[-1])  # the moves still in play in the last round
    played[0] = False
    if not played.any():
        return 0
    best = int(np.flatnonzero(played)[np.argmax(mean[played])])
    return best if mean[best] > 0 and mean[best] > confidence * se[best] else 0


register_generic("search", SearchAgent)
