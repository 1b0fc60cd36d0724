"""Many dealt Gin Rummy hands played at once on the vector engine, by agents' array policies.

Why: a tournament plays thousands of hands of the same pair of agents, and one at a time
through the env each hand costs milliseconds of Python per move. Here up to ``width``
hands share one ``VectorGinRummy``; each step asks every agent's array policy
(``rummy_env.core.game.BatchPolicy``) for its moves in all the games where it is to move,
so the cost per move is a share of a few array operations.

The hands are the tournament's, exactly: each is dealt from its given deck and dealer,
each seat's policy gets that seat's key and the index of its decision in the hand (its
random choices derive from those two, as the per-game agent's do), every action is kept,
and a finished hand's result is built by the pure game's own scoring
(``rummy_env.gin.game.showdown_result``) from the final hands, so a record made from it
equals the one the env would give. As hands finish, their rows are dealt the next hands
(through a small engine dealt the explicit decks, copied in with ``copy_games``), so the
engine stays full until the last hands.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

import numpy as np

from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.game import BatchHand, BatchPolicy
from rummy_env.gin.game import BIG_GIN, DISCARD, KNOCK, PASS, TAKE_DISCARD, HandResult, draw_result, showdown_result
from rummy_env.gin.rules import load_rules
from rummy_env.gin.scoring import OUTCOMES
from rummy_env.gin.vector import VectorGinRummy

def _encoding(policies: Sequence[BatchPolicy]) -> Optional[str]:
    """The one observation encoding the policies read (None when none reads observations)."""
    wanted = {p.observation for p in policies if getattr(p, "observation", None) is not None}
    if len(wanted) > 1:
        raise ValueError(f"the policies read different observation encodings {sorted(wanted)}; one engine writes one")
    return wanted.pop() if wanted else None


def play_hands(rules: Any, decks: np.ndarray, dealers: np.ndarray, seats: np.ndarray, keys: np.ndarray,
               policies: Sequence[BatchPolicy], width: int = 2048) -> Iterator[list[BatchHand]]:
    """Play hand ``i`` from ``decks[i]`` (M, 52) with dealer ``dealers[i]``, seat ``s`` played
    by ``policies[seats[i, s]]`` with key ``keys[i, s]``; yields the hands finished at each
    step (see ``rummy_env.core.game.Game.play_batched``)."""
    rules = load_rules(rules)
    decks = np.asarray(decks)
    m = len(decks)
    dealers = np.asarray(dealers, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.intp)
    keys = np.asarray(keys, dtype=np.uint64)
    if decks.shape != (m, NUM_CARDS) or dealers.shape != (m,) or seats.shape != (m, 2) or keys.shape != (m, 2):
        raise ValueError(f"for {m} hands: decks ({m}, {NUM_CARDS}), dealers ({m},), seats ({m}, 2) and keys ({m}, 2) "
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
    engine = VectorGinRummy(n, rules=rules, encoding=_encoding(policies))
    engine.reset(decks=decks[:n], dealers=dealers[:n])
    job = np.arange(n)  # the hand each row plays
    live = np.ones(n, dtype=bool)
    decisions = np.zeros((n, 2), dtype=np.int64)  # per row and seat, the decisions made so far
    moves = np.zeros((n, 64), dtype=np.int16)  # the actions of each row's hand so far
    length = np.zeros(n, dtype=np.int64)
    everyone = np.arange(n)
    next_job = n
    while True:
        rows = np.flatnonzero(live)
        if rows.size == 0:
            return
        p = engine.current.astype(np.intp)
        who = seats[job, p]
        actions = np.zeros(n, dtype=np.int64)
        for q, policy in enumerate(policies):
            mine = rows[who[rows] == q]
            if mine.size:
                actions[mine] = policy(engine, mine, keys[job[mine], p[mine]], decisions[mine, p[mine]])
        decisions[rows, p[rows]] += 1
        if length.max() >= moves.shape[1]:
            moves = np.concatenate([moves, np.zeros_like(moves)], axis=1)
        moves[rows, length[rows]] = actions[rows]
        length[rows] += 1
        hands = engine.hands.copy()  # the engine deals finished rows again at once: keep what scores them
        stock = NUM_CARDS - engine.stock_next.astype(np.int64)
        taken, repeated = engine.taken.copy(), engine.repeated.copy()
        step = engine.step(actions, active=live)
        done = np.flatnonzero(step.terminated)
        if done.size == 0:
            continue
        finished = []
        for g in done.tolist():
            result = _result(int(actions[g]), int(p[g]), hands[g], int(stock[g]), int(taken[g]), bool(repeated[g]), rules)
            if OUTCOMES[int(step.outcome[g])] != result.outcome:  # the two rule implementations disagree
                raise RuntimeError(f"hand {int(job[g])}: the vector engine says {OUTCOMES[int(step.outcome[g])]!r}, "
                                   f"the pure game {result.outcome!r}; please report this bug")
            finished.append(BatchHand(int(job[g]), result, moves[g, : length[g]].tolist()))
        fresh = min(done.size, m - next_job)
        if fresh:
            rows_in, jobs = done[:fresh], np.arange(next_job, next_job + fresh)
            stage = VectorGinRummy(fresh, rules=engine.rules, encoding=None)
            stage.reset(decks=decks[jobs], dealers=dealers[jobs])
            engine.copy_games(stage, everyone[:fresh], rows_in)
            job[rows_in], decisions[rows_in], length[rows_in] = jobs, 0, 0
            next_job += fresh
        live[done[fresh:]] = False
        yield finished


def _result(action: int, player: int, hands: np.ndarray, stock: int, taken: int, repeated: bool,
            rules: Any) -> HandResult:
    """The result of a hand that ``action`` by ``player`` ended: a showdown from ``hands``
    (both seats' cards before the action), else a draw, its reason read from the position
    before the action (``stock`` cards left, the card ``taken`` from the pile this turn or
    -1, the engine's ``repeated`` flag), as the pure game gives it."""
    if action >= KNOCK:
        shown = [int(hands[0]), int(hands[1])]
        if action != BIG_GIN:
            shown[player] &= ~(1 << (action - KNOCK))
        return showdown_result(shown, player, action == BIG_GIN, rules)
    if action == TAKE_DISCARD:
        return draw_result("upcard_draws")
    if action == PASS:
        return draw_result("wall")
    if repeated and action - DISCARD == taken:
        return draw_result("repeated")
    return draw_result("wall" if stock <= 2 else "max_turns")
