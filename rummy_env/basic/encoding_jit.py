"""The ``flat`` Basic Rummy observation of one information set as one compiled (numba) call.

Why: the observation is 17 card slices with seats taken relative to the observer, and
26 scalars; in Python that is a few dozen small operations, about a third of a step of
``rummy_v0.raw_env()``. This loop writes the same numbers in about a third of the time.
``rummy_env.basic.encoding`` uses it when the meld solver's compiled kernels are in use
(numba installed, not switched off with ``RUMMY_ENV_NO_NUMBA=1``) and it agrees with the
Python encoder on a few positions; otherwise it keeps the Python encoder. Tests compare
the two over many positions, table sizes and rule options.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numba
import numpy as np

from rummy_env.basic.encoding import HAND_SIZE_SCALE
from rummy_env.basic.game import RummyInformationSet
from rummy_env.basic.rules import MAX_PLAYERS, BasicRummyRules
from rummy_env.core.cards import FULL_DECK, NUM_CARDS, distinct_cards_mask

_SLICES = 17  # card slices (rummy_env.basic.encoding.CARD_SLICES)
_SIZE = _SLICES * NUM_CARDS + 26


def encode_flat(info: RummyInformationSet, rules: BasicRummyRules, scores: Optional[Sequence[int]]) -> np.ndarray:
    """``rummy_env.basic.encoding``'s flat vector of ``info`` (the same numbers, float32)."""
    n = info.num_players
    pile = info.discard_pile
    match = scores is not None and rules.match
    match_scores = tuple(float(x) / rules.target_score for x in scores) if match else (0.0,) * n
    out = np.empty(_SIZE, np.float32)
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
    for i in range(_SIZE):
        out[i] = 0.0
    table = 0
    seen = hand | pile | public_stock
    for s in range(n):
        table |= played[s]  # every card on the table was put there by some seat
        if s != p:
            seen |= known[s]
    seen |= table
    for slot, m in enumerate((hand, top, pile, public_stock, targets, taken, FULL_DECK & ~seen)):
        _bits(out, slot, m)
    for k in range(n):
        seat = (p + k) % n
        _bits(out, 7 + k, played[seat])
        if k > 0:
            _bits(out, 7 + MAX_PLAYERS + k - 1, known[seat])
            _bits(out, 7 + 2 * MAX_PLAYERS - 1 + k - 1, discarded[seat])
    sc = _SLICES * NUM_CARDS
    out[sc + phase] = 1.0
    out[sc + 3] = stock
    out[sc + 4] = turnovers
    out[sc + 5] = turn
    out[sc + 6] = rummy_possible
    for k in range(n):
        seat = (p + k) % n
        out[sc + 7 + k] = hand_sizes[seat] / hand_size_scale
        out[sc + 11 + k] = 1.0 if has_melded[seat] else 0.0
        out[sc + 15 + k] = scores[seat]
    out[sc + 19 + (dealer - p) % n] = 1.0
    out[sc + 23 + n - 2] = 1.0
