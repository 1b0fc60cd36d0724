"""Compiled (numba) single-hand kernels over the meld solver's tables: optional speed.

Why: the batch solver in ``rummy_env.melds`` is exact and vectorized, but its cost on a
few thousand hands is mostly numpy's per-call overhead and the temporaries of grouping
hands by their sets. Callers that solve many small hands per step (the heuristic's
expected deadwood, searched once per position in training and in search playouts) go
faster through a loop compiled by numba over the very same tables. This module needs
numba (``pip install "rummy-env[fast]"``; the ``train`` extra includes it); without it,
or with the environment variable ``RUMMY_ENV_NO_NUMBA=1``, ``available()`` is False and
callers use the numpy solver. Tests compare the two on many hands.

Kernels take the tables of ``melds._tables(aces_high, five_under_ten)`` as arguments
(``kernel_tables``) so one compiled function serves every rule option.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from rummy_env import melds
from rummy_env.cards import NUM_CARDS

_SUIT = np.uint64(melds.SUIT_BITS)
_13, _26, _39 = np.uint64(13), np.uint64(26), np.uint64(39)


def available() -> bool:
    """Whether compiled kernels may be used (numba imported, not switched off)."""
    return not melds.numba_switched_off()


@functools.lru_cache(maxsize=None)
def kernel_tables(aces_high: bool, five_under_ten: bool) -> tuple[np.ndarray, ...]:
    """(dead, gain, opt4, opt3) of ``melds._tables`` in the dtypes the kernels take."""
    t = melds._tables(aces_high, five_under_ten)
    return t.dead.astype(np.int64), t.gain.astype(np.int64), t.opt4, t.opt3


def min_deadwood(hands: np.ndarray, aces_high: bool, five_under_ten: bool) -> np.ndarray:
    """``melds.min_deadwood`` of checked uint64 hands of any shape (int16, that shape)."""
    dead, _, opt4, opt3 = kernel_tables(aces_high, five_under_ten)
    flat = np.ascontiguousarray(hands, dtype=np.uint64).ravel()
    return _min_deadwood_kernel(flat, dead, opt4, opt3).astype(np.int16).reshape(np.shape(hands))


def best_discard_deadwood(hands: np.ndarray, aces_high: bool, five_under_ten: bool) -> np.ndarray:
    """``melds.best_discard_deadwood`` of checked non-empty uint64 hands (int16, their shape)."""
    dead, gain, opt4, opt3 = kernel_tables(aces_high, five_under_ten)
    flat = np.ascontiguousarray(hands, dtype=np.uint64).ravel()
    return _best_discard_kernel(flat, dead, gain, opt4, opt3).astype(np.int16).reshape(np.shape(hands))


def discard_deadwood(hands: np.ndarray, aces_high: bool, five_under_ten: bool) -> np.ndarray:
    """``melds.discard_deadwood`` of checked uint64 hands of shape S: int16 S + (52,), the
    least deadwood without each card held, -1 for cards not held."""
    dead, _, opt4, opt3 = kernel_tables(aces_high, five_under_ten)
    flat = np.ascontiguousarray(hands, dtype=np.uint64).ravel()
    minus = melds._tables(aces_high, five_under_ten).dead_minus
    return _discard_kernel(flat, dead, minus, opt4, opt3).reshape(np.shape(hands) + (NUM_CARDS,))


@numba.njit(cache=True)
def _discard_kernel(hands, dead, dead_minus, opt4, opt3):
    """Per hand and card held, the least deadwood without the card: for each choice X of
    set cards, a card outside X in suit field g leaves the other suits' deadwood plus
    ``dead_minus[g, rank]``; a card of X is covered by the choices that leave it out."""
    n = hands.shape[0]
    out = np.full((n, NUM_CARDS), -1, np.int16)
    best = np.empty(NUM_CARDS, np.int64)
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    fields = np.empty(4, np.int64)
    for i in range(n):
        h = hands[i]
        f0, f1, f2, f3 = np.int64(h & _SUIT), np.int64((h >> _13) & _SUIT), np.int64((h >> _26) & _SUIT), np.int64((h >> _39) & _SUIT)
        ab, cd = f0 & f1, f2 & f3
        four = ab & cd
        three = (ab & (f2 | f3)) | (cd & (f0 | f1))
        k = 0
        for r in range(13):
            if (three >> r) & 1:
                ranks[k] = r
                options[k] = 6 if (four >> r) & 1 else 2
                counter[k] = 0
                k += 1
        best[:] = np.int64(1) << 40
        while True:  # every choice X, the empty one first
            x = np.uint64(0)
            for j in range(k):
                x |= opt4[ranks[j], counter[j]] if options[j] == 6 else opt3[ranks[j], counter[j]]
            rem = h & ~x
            fields[0], fields[1] = np.int64(rem & _SUIT), np.int64((rem >> _13) & _SUIT)
            fields[2], fields[3] = np.int64((rem >> _26) & _SUIT), np.int64((rem >> _39) & _SUIT)
            total = dead[fields[0]] + dead[fields[1]] + dead[fields[2]] + dead[fields[3]]
            for suit in range(4):
                g = fields[suit]
                others = total - dead[g]
                for r in range(13):
                    if (g >> r) & 1:
                        v = others + dead_minus[g, r]
                        if v < best[suit * 13 + r]:
                            best[suit * 13 + r] = v
            j = 0
            while j < k:
                counter[j] += 1
                if counter[j] < options[j]:
                    break
                counter[j] = 0
                j += 1
            if j == k:
                break
        for card in range(NUM_CARDS):
            if (h >> np.uint64(card)) & np.uint64(1):
                out[i, card] = best[card]
    return out


def self_check() -> str:
    """'' when the kernels compile (or load from numba's cache) and agree with the array
    operations on a few hands of each rule option; else what went wrong."""
    rng = np.random.default_rng(0)
    hands = np.array([sum(1 << int(c) for c in rng.permutation(NUM_CARDS)[: 1 + i % 13]) for i in range(64)],
                     dtype=np.uint64)
    hands[:4] = [0x1FFF, 0x1 | 0x2000 | 0x4000000 | 0x8000000000, 0x7 | 0x38000, 0x1 | 0x2000 | 0x4000000]
    try:
        for aces_high in (False, True):
            for five_under_ten in (False, True):
                t = melds._tables(aces_high, five_under_ten)
                if not (np.array_equal(min_deadwood(hands, aces_high, five_under_ten), melds._min_deadwood_numpy(hands, t))
                        and np.array_equal(best_discard_deadwood(hands, aces_high, five_under_ten),
                                           melds._best_discard_deadwood_numpy(hands, t))
                        and np.array_equal(discard_deadwood(hands, aces_high, five_under_ten),
                                           melds._discard_deadwood_numpy(hands, t))):
                    return "they disagree with the array operations"
    except Exception as exc:  # numba cannot compile or cache here
        return f"{type(exc).__name__}: {exc}"
    return ""


@numba.njit(cache=True)
def _best_discard_kernel(hands, dead, gain, opt4, opt3):
    """``melds.best_discard_deadwood`` of (n,) uint64 hands (each with at least one card),
    as int64, with the tables of ``kernel_tables``. One loop over the hands: a compiled
    function called per hand would spend more on passing the tables than on the hand."""
    n = hands.shape[0]
    out = np.empty(n, np.int64)
    ranks = np.empty(4, np.int64)  # the ranks held 3 or 4 times (at most 4 in 13 cards)
    options = np.empty(4, np.int64)  # 6 set choices for a rank held 4 times, 2 for one held 3 times
    counter = np.zeros(4, np.int64)
    for i in range(n):
        h = hands[i]
        f0, f1, f2, f3 = np.int64(h & _SUIT), np.int64((h >> _13) & _SUIT), np.int64((h >> _26) & _SUIT), np.int64((h >> _39) & _SUIT)
        ab, cd = f0 & f1, f2 & f3
        four = ab & cd
        three = (ab & (f2 | f3)) | (cd & (f0 | f1))  # ranks held at least 3 times
        best = dead[f0] + dead[f1] + dead[f2] + dead[f3] - max(max(gain[f0], gain[f1]), max(gain[f2], gain[f3]))
        if three == 0:
            out[i] = best
            continue
        k = 0
        for r in range(13):
            if (three >> r) & 1:
                ranks[k] = r
                options[k] = 6 if (four >> r) & 1 else 2
                counter[k] = 0
                k += 1
        while True:  # every choice of set cards X (all-zero counter: X empty, done above)
            j = 0
            while j < k:
                counter[j] += 1
                if counter[j] < options[j]:
                    break
                counter[j] = 0
                j += 1
            if j == k:
                break
            x = np.uint64(0)
            for j in range(k):
                x |= opt4[ranks[j], counter[j]] if options[j] == 6 else opt3[ranks[j], counter[j]]
            rem = h & ~x
            g0, g1, g2, g3 = (np.int64(rem & _SUIT), np.int64((rem >> _13) & _SUIT), np.int64((rem >> _26) & _SUIT),
                              np.int64((rem >> _39) & _SUIT))
            v = dead[g0] + dead[g1] + dead[g2] + dead[g3] - max(max(gain[g0], gain[g1]), max(gain[g2], gain[g3]))
            if v < best:
                best = v
        out[i] = best
    return out


@numba.njit(cache=True)
def _min_deadwood_kernel(hands, dead, opt4, opt3):
    """``melds.min_deadwood`` of (n,) uint64 hands, as int64 (the loop of
    ``best_discard_deadwood`` without the discard)."""
    n = hands.shape[0]
    out = np.empty(n, np.int64)
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    for i in range(n):
        h = hands[i]
        f0, f1, f2, f3 = np.int64(h & _SUIT), np.int64((h >> _13) & _SUIT), np.int64((h >> _26) & _SUIT), np.int64((h >> _39) & _SUIT)
        ab, cd = f0 & f1, f2 & f3
        four = ab & cd
        three = (ab & (f2 | f3)) | (cd & (f0 | f1))
        best = dead[f0] + dead[f1] + dead[f2] + dead[f3]
        if three == 0:
            out[i] = best
            continue
        k = 0
        for r in range(13):
            if (three >> r) & 1:
                ranks[k] = r
                options[k] = 6 if (four >> r) & 1 else 2
                counter[k] = 0
                k += 1
        while True:
            j = 0
            while j < k:
                counter[j] += 1
                if counter[j] < options[j]:
                    break
                counter[j] = 0
                j += 1
            if j == k:
                break
            x = np.uint64(0)
            for j in range(k):
                x |= opt4[ranks[j], counter[j]] if options[j] == 6 else opt3[ranks[j], counter[j]]
            rem = h & ~x
            v = (dead[np.int64(rem & _SUIT)] + dead[np.int64((rem >> _13) & _SUIT)] + dead[np.int64((rem >> _26) & _SUIT)]
                 + dead[np.int64((rem >> _39) & _SUIT)])
            if v < best:
                best = v
        out[i] = best
    return out
