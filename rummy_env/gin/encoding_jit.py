"""The ``flat`` observation of one information set as one compiled (numba) call.

Why: an env step builds one observation, and in Python that is a dozen numpy calls
(the card bits, the deadwood left by each discard, the scalars), about a third of the
whole step of ``gin_rummy_v0.raw_env()``. Here the same numbers are written by one loop
that also solves the hand (``rummy_env.core.melds_jit``'s single-hand kernel): about 2
microseconds instead of 5 to 8. ``rummy_env.gin.encoding`` uses it when the solver's
kernels are in use (numba installed, not switched off with ``RUMMY_ENV_NO_NUMBA=1``)
and it agrees with the Python encoder on a few positions (``core.encoding.CompiledEncoder``); otherwise it
keeps its Python encoder. Tests compare the two over many positions and rule options.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from rummy_env.core.compiled import refresh_cache
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.melds_jit import _hand_tables, _one_hand_kernel
from rummy_env.gin.game import InformationSet
from rummy_env.gin.layout import (
    DEADWOOD, DISCARD_DEADWOOD, FLAT_SIZE, IS_DEALER, KNOCK_LIMIT, OPPONENT_SCORE, OWN_SCORE, PHASE, POINTS_SCALE,
    SCALARS_AT, STOCK_AT_DEAL, STOCK_SIZE, TURN,
)
from rummy_env.gin.rules import Rules


def encode_flat(info: InformationSet, rules: Rules, scores: Optional[Sequence[int]]) -> np.ndarray:
    """``rummy_env.gin.encoding``'s flat vector of ``info`` (the same numbers, float32)."""
    p, q = info.player, 1 - info.player
    pile = info.discard_pile
    hand = info.hand
    own, theirs = (scores[p] / rules.target_score, scores[q] / rules.target_score) if scores and rules.match else (0.0, 0.0)
    out = np.empty(FLAT_SIZE, np.float32)
    _encode_kernel(
        out, hand, 1 << pile[-1] if pile else 0, info.discard_mask, info.opponent_known, info.discarded[q],
        info.passed[q], ((1 << NUM_CARDS) - 1) & ~(hand | info.opponent_known | info.discard_mask),
        0 if info.taken_card is None else 1 << info.taken_card, int(info.phase), info.stock_size / STOCK_AT_DEAL,
        info.knock_limit / POINTS_SCALE, info.turn / rules.max_turns, float(info.dealer == p), own, theirs,
        *_hand_tables(melds._tables(rules.aces_high, rules.five_under_ten)),
    )
    return out


@numba.njit(cache=True)
def _encode_kernel(out, hand, top, pile, known, discarded, passed, unseen, taken, phase, stock, knock_limit, turn,
                   is_dealer, own, theirs, dead, dead_minus, opt4, opt3):
    masks = (hand, top, pile, known, discarded, passed, unseen, taken)  # the 0/1 card slices, in CARD_SLICES order
    for s in range(DISCARD_DEADWOOD):  # they are the ones before discard_deadwood
        m = masks[s]
        for c in range(NUM_CARDS):
            out[s * NUM_CARDS + c] = np.float32((m >> c) & 1)
    after = DISCARD_DEADWOOD * NUM_CARDS  # where discard_deadwood starts
    for c in range(NUM_CARDS):
        out[after + c] = 0.0
    for i in range(SCALARS_AT, FLAT_SIZE):
        out[i] = 0.0
    h = np.uint64(hand)
    eleven = 0
    left = h
    while left:
        eleven += 1
        left &= left - np.uint64(1)
    eleven = eleven == 11
    best = np.empty(NUM_CARDS, np.int64)
    least = _one_hand_kernel(hand, dead, dead_minus, opt4, opt3, best, eleven)  # the solver's own single-hand loop
    if eleven:
        left = h
        while left:
            c = trailing_zeros(left)
            left &= left - np.uint64(1)
            out[after + c] = best[c] / POINTS_SCALE
    sc = SCALARS_AT
    out[sc + PHASE + phase] = 1.0
    out[sc + STOCK_SIZE] = stock
    out[sc + DEADWOOD] = least / POINTS_SCALE
    out[sc + KNOCK_LIMIT] = knock_limit
    out[sc + TURN] = turn
    out[sc + IS_DEALER] = is_dealer
    out[sc + OWN_SCORE] = own
    out[sc + OPPONENT_SCORE] = theirs


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
