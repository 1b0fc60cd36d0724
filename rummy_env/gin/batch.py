"""Many dealt Gin Rummy hands played at once on the vector engine, by agents' array policies
(the loop is ``rummy_env.core.batch``'s; this is Gin Rummy's table for it).

``VectorGinRummy`` reports a hand's end as outcome codes and showdown arrays, not as the
pure game's result: here a finished hand's result is built by the pure game's own scoring
(``rummy_env.gin.game.showdown_result``) from the hands before its last action, and the
engine's outcome is checked against it. As hands finish, their rows are dealt the next
hands through a small engine dealt the explicit decks, copied in with ``copy_games``.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

import numpy as np

from rummy_env.core.batch import play_hands as play_batch
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.game import BatchHand, BatchPolicy
from rummy_env.gin.game import BIG_GIN, DISCARD, KNOCK, PASS, TAKE_DISCARD, HandResult, draw_result, showdown_result
from rummy_env.gin.rules import load_rules
from rummy_env.gin.scoring import OUTCOMES
from rummy_env.gin.vector import VectorGinRummy


class _GinTable:
    """``VectorGinRummy`` as the batch loop drives it (``rummy_env.core.batch.BatchTable``)."""

    def __init__(self, rules: Any, num_envs: int, encoding: Optional[str]) -> None:
        self.engine = VectorGinRummy(num_envs, rules=rules, encoding=encoding)

    def deal(self, rows: np.ndarray, decks: np.ndarray, dealers: np.ndarray) -> None:
        if rows.size == self.engine.num_envs:
            self.engine.reset(decks=decks, dealers=dealers)
            return
        stage = VectorGinRummy(rows.size, rules=self.engine.rules, encoding=None)
        stage.reset(decks=decks, dealers=dealers)
        self.engine.copy_games(stage, np.arange(rows.size), rows)

    def step(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, list[HandResult]]:
        engine = self.engine
        p = engine.current.astype(np.intp)
        hands = engine.hands.copy()  # the engine deals finished rows again at once: keep what scores them
        stock = NUM_CARDS - engine.stock_next.astype(np.int64)
        taken, repeated = engine.taken.copy(), engine.repeated.copy()
        step = engine.step(actions, active=live)
        done = np.flatnonzero(step.terminated)
        results = []
        for g in done.tolist():
            result = _result(int(actions[g]), int(p[g]), hands[g], int(stock[g]), int(taken[g]), bool(repeated[g]),
                             engine.rules)
            if OUTCOMES[int(step.outcome[g])] != result.outcome:  # the two rule implementations disagree
                raise RuntimeError(f"game {g} of the batch: the vector engine says {OUTCOMES[int(step.outcome[g])]!r}, "
                                   f"the pure game {result.outcome!r}; please report this bug")
            results.append(result)
        return done, results


def play_hands(rules: Any, decks: np.ndarray, dealers: np.ndarray, seats: np.ndarray, keys: np.ndarray,
               policies: Sequence[BatchPolicy], width: int = 2048) -> Iterator[list[BatchHand]]:
    """Play hand ``i`` from ``decks[i]`` (M, 52) with dealer ``dealers[i]``, seat ``s`` played
    by ``policies[seats[i, s]]`` with key ``keys[i, s]``; yields the hands finished at each
    step (see ``rummy_env.core.game.Game.play_batched``)."""
    rules = load_rules(rules)
    return play_batch(lambda n, encoding: _GinTable(rules, n, encoding), NUM_CARDS, 2, decks, dealers, seats, keys,
                      policies, width)


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
