"""Basic Rummy ``heuristic``'s meld choice compiled by numba: the melds of each hand's
least-deadwood arrangement, for many hands at once.

Why: when a player may meld, the scripted agent lays down the melds of
``rummy_env.core.melds.best_arrangement`` (the first least-deadwood arrangement, in the
order ``arrangements`` lists them), first the first of them that is legal. That function
builds Python objects per hand (tens of microseconds); the array policy
(``rummy_env.agents.basic.heuristic_vector``) asks it for every game where a meld is
legal, so here one compiled loop does it over the solver's own tables
(``rummy_env.core.melds_jit.kernel_tables``): the same choices of set cards in the same
order (``itertools.product`` over the ranks held three or four times, the last rank
fastest), the first that leaves the least deadwood, then its sets by rank and its runs
suit by suit, each run a whole block of consecutive cards, as meld-table ids
(``rummy_env.core.meld_table``).

Used by the policy where the meld solver's kernels are used and this one agrees with
``best_arrangement`` on a few hundred hands (``heuristic_vector.KERNELS``); importing
this module needs numba.
"""

from __future__ import annotations

import numba
import numpy as np

from rummy_env.core.cards import NUM_RANKS
from rummy_env.core.compiled import refresh_cache
from rummy_env.core.meld_table import NUM_SETS, RUN_SHAPES
from rummy_env.core.melds_jit import kernel_tables

_SUIT = np.uint64((1 << NUM_RANKS) - 1)
# run_ids[start, length]: the offset of the run (start position, length) among a suit's runs
_RUN_IDS = np.full((NUM_RANKS, NUM_RANKS + 1), -1, dtype=np.int64)
for _k, (_start, _length) in enumerate(RUN_SHAPES):
    _RUN_IDS[_start, _length] = _k
_RUNS_PER_SUIT = len(RUN_SHAPES)


def best_melds(hands: np.ndarray, aces_high: bool, out: np.ndarray) -> np.ndarray:
    """The meld-table ids of the melds of each hand's ``melds.best_arrangement``, in its
    order, into the row of ``out`` ((n, 4) int64 of -1: a hand of at most 13 cards holds at
    most 4 melds) given; hands: (n,) uint64, checked 52-bit masks of at most 13 cards."""
    dead, _, opt4, _ = kernel_tables(aces_high, False)
    _best_melds(np.ascontiguousarray(hands, dtype=np.uint64), dead, opt4, _RUN_IDS, aces_high, out)
    return out


@numba.njit(cache=True)
def _best_melds(hands, dead, opt4, run_ids, aces_high, out):
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    one = np.uint64(1)
    for i in range(hands.shape[0]):
        h = hands[i]
        f0, f1 = np.int64(h & _SUIT), np.int64((h >> np.uint64(13)) & _SUIT)
        f2, f3 = np.int64((h >> np.uint64(26)) & _SUIT), np.int64((h >> np.uint64(39)) & _SUIT)
        ab, cd = f0 & f1, f2 & f3
        four = ab & cd
        three = (ab & (f2 | f3)) | (cd & (f0 | f1))
        k = 0
        for r in range(NUM_RANKS):
            if (three >> r) & 1:
                ranks[k] = r
                options[k] = 6 if (four >> r) & 1 else 2
                counter[k] = 0
                k += 1
        least = np.int64(1) << 40
        best_x = np.uint64(0)
        while True:  # every choice of set cards, in itertools.product's order (the last rank fastest)
            x = np.uint64(0)
            for j in range(k):
                rank_cards = (one << np.uint64(ranks[j])) * np.uint64(0x0008004002001)  # the rank in the 4 suits
                x |= opt4[ranks[j], counter[j]] if options[j] == 6 else (rank_cards & h if counter[j] else np.uint64(0))
            rem = h & ~x
            total = (dead[np.int64(rem & _SUIT)] + dead[np.int64((rem >> np.uint64(13)) & _SUIT)]
                     + dead[np.int64((rem >> np.uint64(26)) & _SUIT)] + dead[np.int64((rem >> np.uint64(39)) & _SUIT)])
            if total < least:
                least = total
                best_x = x
            j = k - 1
            while j >= 0:
                counter[j] += 1
                if counter[j] < options[j]:
                    break
                counter[j] = 0
                j -= 1
            if j < 0:
                break
        m = 0
        for r in range(NUM_RANKS):  # the sets, by rank
            cards = best_x & ((one << np.uint64(r)) * np.uint64(0x0008004002001))
            if cards:
                missing = 4
                for s in range(4):
                    if not (cards >> np.uint64(13 * s + r)) & one:
                        missing = s
                out[i, m] = 5 * r + missing
                m += 1
        rem = h & ~best_x
        for s in range(4):  # then the runs, suit by suit, in run order: whole blocks of 3 or more
            field = np.int64((rem >> np.uint64(13 * s)) & _SUIT)
            p = ((field >> 1) | ((field & 1) << 12)) if aces_high else field
            t = p & (p >> 1) & (p >> 2)
            cover = (t | (t << 1) | (t << 2)) & 0x1FFF
            q = 0
            while q < NUM_RANKS:
                if (cover >> q) & 1:
                    start = q
                    while q < NUM_RANKS and (cover >> q) & 1:
                        q += 1
                    out[i, m] = NUM_SETS + _RUNS_PER_SUIT * s + run_ids[start, q - start]
                    m += 1
                else:
                    q += 1


refresh_cache(__name__)
