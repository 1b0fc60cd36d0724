"""Many dealt hands played at once on a vector engine, by agents' array policies: the loop
behind every game's ``Game.play_batched``.

Why: a tournament plays thousands of hands of the same agents, and one at a time through
the env each hand costs milliseconds of Python per move. Here up to ``width`` hands share
one vector engine (``rummy_env.core.vector``); each step asks every agent's array policy
(``rummy_env.core.game.BatchPolicy``) for its moves in all the games where it is to move,
so the cost per move is a share of a few array operations.

The hands are the tournament's, exactly: each is dealt from its given deck and dealer,
each seat's policy gets that seat's key and the index of its decision in the hand (its
random choices derive from those two, as the per-game agent's do), every action is kept,
and a finished hand's result is the pure game's, so a record made from it equals the one
the env would give. As hands finish, their rows are dealt the next hands, so the engine
stays full until the last hands.

What a game gives the loop is a ``BatchTable``: its engine, which the policies read,
dealing explicit hands into some of its rows, and a step that says which hands ended and
their results. ``EngineTable`` is that for an engine whose steps carry each ended hand's
result (``results``) and that deals rows (``deal_rows``: Basic Rummy's and Rommé's
engines and the pure hands in a loop, ``StatesEngine``), and ``OnEngine`` the
``Game.play_batched`` of a game whose vector engine is such (a mixin); a game whose engine
works otherwise writes its own (``rummy_env.gin.batch``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional, Protocol, Sequence

import numpy as np

from rummy_env.core.game import BatchHand, BatchPolicy, HandResult


class BatchTable(Protocol):
    """A vector engine as the batch loop drives it."""

    engine: Any  # what the policies are called with (its ``current``: the player to move per game)

    def deal(self, rows: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        """Deal games ``rows`` from ``decks`` (len(rows), deck size) and ``dealers``."""

    def step(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, list[HandResult]]:
        """Play ``actions`` in the ``live`` games (the others hold no hand of the batch:
        whatever they do is not reported); the live games whose hands ended, and their results."""


class EngineTable:
    """A ``BatchTable`` over a vector engine whose steps give each ended hand's result
    (``results``) and that deals explicit hands into rows (``deal_rows``). Games outside the batch play their
    lowest legal action, so the engine needs no notion of a game that does not move."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def deal(self, rows: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        if rows.size == self.engine.num_envs:
            self.engine.reset(decks=decks, dealers=dealers)
        else:
            self.engine.deal_rows(rows, decks, dealers)

    def step(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, list[HandResult]]:
        if not live.all():
            actions = np.where(live, actions, np.argmax(self.engine.action_mask(), axis=1))
        step = self.engine.step(actions)
        done = np.flatnonzero(step.terminated & live)
        return done, [step.results[g] for g in done.tolist()]


def _encoding(policies: Sequence[BatchPolicy]) -> Optional[str]:
    """The one observation encoding the policies read (None when none reads observations)."""
    wanted = {p.observation for p in policies if getattr(p, "observation", None) is not None}
    if len(wanted) > 1:
        raise ValueError(f"the policies read different observation encodings {sorted(wanted)}; one engine writes one")
    return wanted.pop() if wanted else None


def play_hands(make_table: Callable[[int, Optional[str]], BatchTable], deck_size: int, num_players: int,
               decks: np.ndarray, dealers: np.ndarray, seats: np.ndarray, keys: np.ndarray,
               policies: Sequence[BatchPolicy], width: int = 2048) -> Iterator[list[BatchHand]]:
    """Play hand ``i`` from ``decks[i]`` (M, deck_size) with dealer ``dealers[i]``, seat ``s``
    played by ``policies[seats[i, s]]`` with key ``keys[i, s]``, up to ``width`` at once on
    ``make_table(games, encoding)``; yields the hands finished at each step (see
    ``rummy_env.core.game.Game.play_batched``)."""
    decks = np.asarray(decks)
    m = len(decks)
    dealers = np.asarray(dealers, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.intp)
    keys = np.asarray(keys, dtype=np.uint64)
    p = num_players
    if (decks.shape != (m, deck_size) or dealers.shape != (m,) or seats.shape != (m, p) or keys.shape != (m, p)):
        raise ValueError(f"for {m} hands: decks ({m}, {deck_size}), dealers ({m},), seats ({m}, {p}) and keys ({m}, {p}) "
                         f"are needed, got {decks.shape}, {dealers.shape}, {seats.shape}, {keys.shape}")
    if m and (seats.min() < 0 or seats.max() >= len(policies)):
        raise ValueError(f"seats must index the {len(policies)} policies")
    if not isinstance(width, (int, np.integer)) or width < 1:
        raise ValueError(f"width must be a positive number of games, got {width!r}")
    if m == 0:
        return
    # policies that play alike (equal) are asked once a step for all their games
    distinct: list[BatchPolicy] = []
    merged = np.empty(len(policies), dtype=np.intp)
    for k, policy in enumerate(policies):
        same = [u for u, other in enumerate(distinct) if other == policy]
        merged[k] = same[0] if same else len(distinct)
        if not same:
            distinct.append(policy)
    seats, policies = merged[seats], distinct
    n = min(int(width), m)
    table = make_table(n, _encoding(policies))
    everyone = np.arange(n)
    table.deal(everyone, decks[:n], dealers[:n])
    job = np.arange(n)  # the hand each row plays
    live = np.ones(n, dtype=bool)
    decisions = np.zeros((n, p), dtype=np.int64)  # per row and seat, the decisions made so far
    moves = np.zeros((n, 64), dtype=np.int16)  # the actions of each row's hand so far
    length = np.zeros(n, dtype=np.int64)
    next_job = n
    while True:
        rows = np.flatnonzero(live)
        if rows.size == 0:
            return
        mover = table.engine.current.astype(np.intp)
        who = seats[job, mover]
        actions = np.zeros(n, dtype=np.int64)
        for q, policy in enumerate(policies):
            mine = rows[who[rows] == q]
            if mine.size:
                actions[mine] = policy(table.engine, mine, keys[job[mine], mover[mine]], decisions[mine, mover[mine]])
        decisions[rows, mover[rows]] += 1
        if length.max() >= moves.shape[1]:
            moves = np.concatenate([moves, np.zeros_like(moves)], axis=1)
        moves[rows, length[rows]] = actions[rows]
        length[rows] += 1
        done, results = table.step(actions, live)
        if done.size == 0:
            continue
        finished = [BatchHand(int(job[g]), result, moves[g, : length[g]].tolist())
                    for g, result in zip(done.tolist(), results)]
        fresh = min(done.size, m - next_job)
        if fresh:
            rows_in, jobs = done[:fresh], np.arange(next_job, next_job + fresh)
            table.deal(rows_in, decks[jobs], dealers[jobs])
            job[rows_in], decisions[rows_in], length[rows_in] = jobs, 0, 0
            next_job += fresh
        live[done[fresh:]] = False
        yield finished


class OnEngine:
    """A ``Game`` mixin (listed before ``Game``): ``batched``, and ``play_batched`` on the
    game's own vector engine (``Game.vector``) through ``EngineTable``, for a game whose
    engine carries its ended hands' results and deals rows."""

    batched = True

    def play_batched(self, rules: Any, decks: np.ndarray, dealers: np.ndarray, seats: np.ndarray, keys: np.ndarray,
                     policies: Sequence[BatchPolicy], width: int = 2048) -> Iterator[list[BatchHand]]:
        game: Any = self
        rules = game.load_rules(rules)
        shape = np.shape(seats)
        if len(shape) != 2 or not game.min_players <= shape[1] <= game.max_players:
            raise ValueError(f"seats must have a column per player ({game.min_players}..{game.max_players}), "
                             f"got shape {shape}")
        players = shape[1]
        return play_hands(lambda n, encoding: EngineTable(game.vector(n, players, rules=rules, encoding=encoding)),
                          game.deck_size_of(rules), players, decks, dealers, seats, keys, policies, width)
