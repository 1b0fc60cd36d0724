"""The ``flat`` Basic Rummy observation of one information set as one compiled (numba) call.

Why: the observation is 17 card slices with seats taken relative to the observer, and
26 scalars; in Python that is a few dozen small operations, about a third of a step of
``basic_rummy_v0.raw_env()``. This loop writes the same numbers in about a third of the time.
``rummy_env.basic.encoding`` uses it when the meld solver's compiled kernels are in use
(numba installed, not switched off with ``RUMMY_ENV_NO_NUMBA=1``) and it agrees with the
Python encoder on a few positions; otherwise it keeps the Python encoder. Tests compare
the two over many positions, table sizes and rule options.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numba
import numpy as np

from rummy_env.core.compiled import refresh_cache
from rummy_env.basic.game import RummyInformationSet
from rummy_env.basic.layout import (
    DEALER_REL0, DISCARDED_REL1, FLAT_SIZE, HAND_SIZE_REL0, HAND_SIZE_SCALE, KNOWN_REL1, MELDED_REL0, PHASE,
    PLAYED_REL0, PLAYERS_2, RUMMY_POSSIBLE, SCALARS_AT, SCORE_REL0, STOCK_SIZE, TURN, TURNOVERS,
)
from rummy_env.basic.rules import BasicRummyRules
from rummy_env.core.cards import FULL_DECK, NUM_CARDS, distinct_cards_mask


def encode_flat(info: RummyInformationSet, rules: BasicRummyRules, scores: Optional[Sequence[int]]) -> np.ndarray:
    """``rummy_env.basic.encoding``'s flat vector of ``info`` (the same numbers, float32)."""
    n = info.num_players
    pile = info.discard_pile
    match = scores is not None and rules.match
    match_scores = tuple(float(x) / rules.target_score for x in scores) if match else (0.0,) * n
    out = np.empty(FLAT_SIZE, np.float32)
    _encode_kernel(
        out, info.player, info.hand, 1 << pile[-1] if pile else 0, info.discard_mask,
        distinct_cards_mask(info.public_stock) if info.public_stock else 0, info.layoff_targets,
        0 if info.taken_card is None else 1 << info.taken_card, info.played, info.known, info.discarded,
        info.hand_sizes, info.has_melded, match_scores, info.dealer, int(info.phase), info.stock_size / NUM_CARDS,
        info.turnovers / max(1, rules.stock_turnovers), info.turn / rules.max_turns, float(info.rummy_possible),
        HAND_SIZE_SCALE,
    )
    return out


@numba.njit(cache=True)
def _bits(out, slot, m):
    for c in range(NUM_CARDS):
        out[slot * NUM_CARDS + c] = np.float32((m >> c) & 1)


@numba.njit(cache=True)
def _encode_kernel(out, p, hand, top, pile, public_stock, targets, taken, played, known, discarded, hand_sizes,
                   has_melded, scores, dealer, phase, stock, turnovers, turn, rummy_possible, hand_size_scale):
    n = len(played)
    for i in range(FLAT_SIZE):
        out[i] = 0.0
    table = 0
    seen = hand | pile | public_stock
    for s in range(n):
        table |= played[s]  # every card on the table was put there by some seat
        if s != p:
            seen |= known[s]
    seen |= table
    for slot, m in enumerate((hand, top, pile, public_stock, targets, taken, FULL_DECK & ~seen)):
        _bits(out, slot, m)  # hand .. unseen: the first card slices, in CARD_SLICES order
    for k in range(n):
        seat = (p + k) % n
        _bits(out, PLAYED_REL0 + k, played[seat])
        if k > 0:
            _bits(out, KNOWN_REL1 + k - 1, known[seat])
            _bits(out, DISCARDED_REL1 + k - 1, discarded[seat])
    sc = SCALARS_AT
    out[sc + PHASE + phase] = 1.0
    out[sc + STOCK_SIZE] = stock
    out[sc + TURNOVERS] = turnovers
    out[sc + TURN] = turn
    out[sc + RUMMY_POSSIBLE] = rummy_possible
    for k in range(n):
        seat = (p + k) % n
        out[sc + HAND_SIZE_REL0 + k] = hand_sizes[seat] / hand_size_scale
        out[sc + MELDED_REL0 + k] = 1.0 if has_melded[seat] else 0.0
        out[sc + SCORE_REL0 + k] = scores[seat]
    out[sc + DEALER_REL0 + (dealer - p) % n] = 1.0
    out[sc + PLAYERS_2 + n - 2] = 1.0


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
