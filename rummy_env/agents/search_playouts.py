"""The generic search's playouts on a game's vector engine: all the playouts of a round
stepped together, by the rollout agent's array policy, with the very results of the
playouts played one at a time in Python (``SearchAgent._play_out``, the reference).

Why: a playout is a whole hand of the rollout agent's moves, and one at a time each move
costs the agent's Python (Basic Rummy's ``heuristic``: tens of microseconds, a hand 1 to 3
ms). A game whose engine can take pure states into its rows
(``rummy_env.core.vector.LoadsStates``) plays a round's playouts, worlds times candidates,
as rows of one engine: each step asks the array policy (``Agent.batch_policy``) for every
row still playing, so a move costs a share of a few array operations. A step costs the
policy's call whatever the rows, though, and a round as many steps as its longest
playout: ``auto`` leaves rounds of fewer than the game's ``engine_playout_rows`` playouts
in Python.

Exactly the Python playouts': in Python every seat's agent is reseeded with the world's
seed plus the seat (``seat_seeds``: common random numbers) and each seat's first move of a
playout is its first decision since. An array policy decides as its agent does from the
agent's 64-bit key (``rummy_env.agents.draws.key_of`` of the seed) and the index of the
decision among that seat's decisions of the hand (``rummy_env.core.game.BatchPolicy``), so
each row's seat gets the key of that seed and its decisions counted from 0 at its first
move in the playout, as tournaments give them (``rummy_env.core.batch``). A playout cut at
``depth`` is worth nothing to anyone, as in Python without an ``evaluate``; with one, the
search keeps the Python playouts, which call it.

Tests hold the two equal, the search's values matrix entry for entry
(tests/agents/test_search_engine.py).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from rummy_env.agents.draws import key_of
from rummy_env.core.game import BatchPolicy, Game, GameState
from rummy_env.core.vector import LoadsStates

PLAYOUTS = ("auto", "engine", "python")  # where the search plays its playouts ("auto": the engine where it can)


def seat_seeds(seed: int, num_players: int) -> list[int]:
    """The seed each seat's rollout agent is reseeded with in a playout of world ``seed``."""
    return [seed + p for p in range(num_players)]


def engine_loads_states(game: Game, num_players: int) -> bool:
    """Whether ``game``'s vector engine at ``num_players``, as ``Game.vector`` makes it in this
    process (its compiled engine, or the pure hands in a loop without numba), can load states."""
    return isinstance(game.vector(1, num_players, encoding=None), LoadsStates)


def engine_refusal(game: Game, policy: Optional[BatchPolicy], rollout: str, evaluate: Any) -> str:
    """Why the search's playouts cannot go through ``game``'s vector engine ('' when they
    can): ``policy`` is the rollout agent's array policy (None: it has none)."""
    if evaluate is not None:
        return "an evaluate plug-in values the cut playouts, which only the Python playouts call"
    if policy is None:
        return f"the rollout agent {rollout!r} has no array version (Agent.batch_policy)"
    if not engine_loads_states(game, game.min_players):
        return (f"the {game.title} vector engine here cannot load states (load_states; without numba, or with "
                "RUMMY_ENV_NO_NUMBA set, a game's engine is the pure hands in a loop, which cannot)")
    return ""


def engine_rewards(game: Game, policy: BatchPolicy, states: Sequence[GameState], seeds: Sequence[int],
                   depth: Optional[int]) -> np.ndarray:
    """(len(states), num_players) float: each state played out to the end of its hand (or
    ``depth`` moves: nothing to anyone) on one engine of ``game``, every seat's moves by
    ``policy`` with the key of its seed in world ``seeds[k]`` (module docstring); a state
    whose hand is over gives its result at once."""
    num_players = states[0].num_players
    out = np.zeros((len(states), num_players))
    playing = []
    for k, state in enumerate(states):
        if state.is_over:
            out[k] = state.result.rewards
        else:
            playing.append(k)
    if not playing:
        return out
    size = len(playing)
    engine = game.vector(size, num_players, rules=states[0].rules, encoding=getattr(policy, "observation", None),
                         seed=0)
    engine.load_states(np.arange(size), [states[k] for k in playing])
    keys = np.array([[key_of(s) for s in seat_seeds(seeds[k], num_players)] for k in playing], dtype=np.uint64)
    decisions = np.zeros((size, num_players), dtype=np.int64)
    value = np.zeros((size, num_players))
    live = np.ones(size, dtype=bool)
    moves = 0
    while moves != depth:
        rows = np.flatnonzero(live)
        if rows.size == 0:
            break
        mover = engine.current[rows].astype(np.intp)
        if rows.size == size:
            actions = np.asarray(policy(engine, rows, keys[rows, mover], decisions[rows, mover]), dtype=np.int64)
        else:  # the rows whose playout ended hold a new hand, unreported: they play their lowest legal action
            actions = np.argmax(engine.action_mask(), axis=1).astype(np.int64)
            actions[rows] = policy(engine, rows, keys[rows, mover], decisions[rows, mover])
        decisions[rows, mover] += 1
        step = engine.step(actions)
        ended = step.terminated & live
        value[ended] = step.rewards[ended]
        live &= ~step.terminated
        moves += 1
    out[playing] = value
    return out
