"""The heuristic's expected-deadwood term compiled by numba: optional speed, same numbers.

Why: ``heuristic_terms.mean_over_unseen`` runs for every draw and every legal discard
of every position the heuristic or the advice features look at (thousands of 10-card
hands a training step, more in search playouts), and as numpy it is mostly call
overhead and temporaries. Here one compiled loop does the same per hand: the hand's
best discard, the unseen cards that make no meld summed by card value, and the solver
on the hand plus each unseen card that does (``rummy_env.core.melds_jit``). The sums are of
integers, so the result is exactly the numpy path's; tests compare the two.

Used by ``heuristic_terms`` when the meld solver's kernels are in use
(``rummy_env.core.melds._kernels``) and these agree with the array versions on a few hands
(``heuristic_terms._compiled``); importing this module needs numba.
"""

from __future__ import annotations

import numba
import numpy as np

from rummy_env.core.compiled import refresh_cache
from rummy_env.core.cards import NUM_CARDS, card_value
from rummy_env.core.melds_jit import best_discard_deadwood, min_deadwood

# per rule option five_under_ten: each card id's deadwood value
_CARDS = NUM_CARDS
_VALUES = [np.array([card_value(c, f) for c in range(NUM_CARDS)], dtype=np.int64) for f in (False, True)]


def mean_over_unseen(base: np.ndarray, unseen: np.ndarray, completions: np.ndarray, whole: np.ndarray,
                     aces_high: bool, five_under_ten: bool) -> np.ndarray:
    """``heuristic_terms.mean_over_unseen`` given the hands' ``meld_completions`` and
    least deadwood ``whole`` (float64 (n,); NaN where nothing is unseen)."""
    base = np.ascontiguousarray(base, dtype=np.uint64)
    unseen = np.ascontiguousarray(unseen, dtype=np.uint64)
    completions = np.ascontiguousarray(completions, dtype=np.uint64)
    solved = best_discard_deadwood(_hands_to_solve(base, unseen & completions), aces_high, five_under_ten)
    return _mean(unseen, completions, np.ascontiguousarray(whole, dtype=np.float64).astype(np.int64), solved,
                 _VALUES[int(five_under_ten)])


@numba.njit(cache=True)
def _hands_to_solve(base, extra):
    """The hands the solver must see: every base, then base | u for each card u of
    ``extra`` (the unseen cards that make a meld with it), base by base, card by card."""
    n = base.shape[0]
    total = n
    for i in range(n):
        for card in range(_CARDS):
            if (extra[i] >> np.uint64(card)) & np.uint64(1):
                total += 1
    hands = np.empty(total, np.uint64)
    hands[:n] = base
    k = n
    for i in range(n):
        for card in range(_CARDS):
            bit = np.uint64(1) << np.uint64(card)
            if extra[i] & bit:
                hands[k] = base[i] | bit
                k += 1
    return hands


@numba.njit(cache=True)
def _mean(unseen, completions, whole, solved, values):
    n = unseen.shape[0]
    out = np.empty(n, np.float64)
    k = n  # solved[k]: the next base | u, in _hands_to_solve's order
    for i in range(n):
        kept = solved[i]
        total = np.int64(0)
        count = 0
        for card in range(_CARDS):
            bit = np.uint64(1) << np.uint64(card)
            if not unseen[i] & bit:
                continue
            count += 1
            if completions[i] & bit:
                total += solved[k]
                k += 1
            else:  # deadwood in every arrangement: throw it, or keep it and throw base's best card
                total += min(whole[i], kept + values[card])
        out[i] = total / count if count else np.nan
    return out


def take_values(hands: np.ndarray, top: np.ndarray, aces_high: bool, five_under_ten: bool) -> tuple[np.ndarray, np.ndarray]:
    """``heuristic_terms.take_values``: for 10-card ``hands`` and the face-up card ``top``,
    the least deadwood after taking it and discarding another card (float64), and the
    hands' least deadwood now (int16)."""
    hands = np.ascontiguousarray(hands, dtype=np.uint64)
    solved = min_deadwood(_take_hands(hands, np.ascontiguousarray(top, dtype=np.int64)), aces_high, five_under_ten)
    return _least_after_take(hands, solved), solved[: hands.size]


@numba.njit(cache=True)
def _take_hands(hands, top):
    """Each hand, then for each hand and each card c it holds, hand | top - c."""
    n = hands.shape[0]
    total = n
    for i in range(n):
        for card in range(_CARDS):
            if (hands[i] >> np.uint64(card)) & np.uint64(1):
                total += 1
    out = np.empty(total, np.uint64)
    out[:n] = hands
    k = n
    for i in range(n):
        taken = hands[i] | (np.uint64(1) << np.uint64(top[i]))
        for card in range(_CARDS):
            bit = np.uint64(1) << np.uint64(card)
            if hands[i] & bit:
                out[k] = taken & ~bit
                k += 1
    return out


@numba.njit(cache=True)
def _least_after_take(hands, solved):
    n = hands.shape[0]
    out = np.full(n, np.inf)
    k = n
    for i in range(n):
        for card in range(_CARDS):
            if (hands[i] >> np.uint64(card)) & np.uint64(1):
                if solved[k] < out[i]:
                    out[i] = solved[k]
                k += 1
    return out


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
