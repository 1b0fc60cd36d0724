"""Compiled (numba) single-hand kernels over the meld solver's tables: optional speed.

Why: the batch solver in ``rummy_env.core.melds`` is exact and vectorized, but its cost on a
few thousand hands is mostly numpy's per-call overhead and the temporaries of grouping
hands by their sets. Callers that solve many small hands per step (the heuristic's
expected deadwood, searched once per position in training and in search playouts) go
faster through a loop compiled by numba over the very same tables. This module needs
numba (``pip install "rummy-env[fast]"``; the ``train`` extra includes it). The solver
uses it (``melds.KERNELS``) unless numba is missing, ``RUMMY_ENV_NO_NUMBA=1`` is set,
or the kernels fail to compile or to agree with the array operations on a few hands
(``self_check``; a warning then says why); otherwise it runs its numpy array operations.
Tests compare the two on many hands.

Kernels take the tables of ``melds._tables(aces_high, five_under_ten)`` as arguments
(``kernel_tables``) so one compiled function serves every rule option. Each kernel
spells out the loop over a hand's set choices instead of calling a shared compiled
helper per hand or per choice: such a call, passing the tables, costs about 100 ns,
several times a hand's whole solve (measured while writing them).
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros  # the CPU's count-trailing-zeros: the lowest card held

from rummy_env.core.compiled import refresh_cache
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS

_SUIT = np.uint64(melds.SUIT_BITS)
_ONE = np.uint64(1)
_13, _26, _39 = np.uint64(13), np.uint64(26), np.uint64(39)
# a gain table of zeros: with it, _best_discard_kernel discards nothing and gives min_deadwood
_NO_GAIN = np.zeros(1 << 13, np.int64)


@functools.lru_cache(maxsize=None)
def kernel_tables(aces_high: bool, five_under_ten: bool) -> tuple[np.ndarray, ...]:
    """(dead, gain, opt4, opt3) of ``melds._tables`` in the dtypes the kernels take."""
    t = melds._tables(aces_high, five_under_ten)
    return t.dead.astype(np.int64), t.gain.astype(np.int64), t.opt4, t.opt3


def min_deadwood(hands: np.ndarray, aces_high: bool, five_under_ten: bool) -> np.ndarray:
    """``melds.min_deadwood`` of checked uint64 hands of any shape (int16, that shape).

    The functions of this module take hands already checked by ``rummy_env.core.melds`` (52-bit
    masks of at most 13 cards: the kernels have room for 4 ranks held 3 or 4 times)."""
    dead, _, opt4, opt3 = kernel_tables(aces_high, five_under_ten)
    flat = np.ascontiguousarray(hands, dtype=np.uint64).ravel()
    return _best_discard_kernel(flat, dead, _NO_GAIN, opt4, opt3).astype(np.int16).reshape(np.shape(hands))


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


@functools.lru_cache(maxsize=None)
def _hand_tables(t: "melds._Tables") -> tuple[np.ndarray, ...]:
    """(dead, dead_minus, opt4, opt3) of tables ``t`` for ``_one_hand_kernel`` (``t`` is
    hashed by identity: one entry per rule option)."""
    return t.dead.astype(np.int64), t.dead_minus, t.opt4, t.opt3


def discard_deadwood_one(hand: int, t: "melds._Tables") -> tuple[int, ...]:
    """``melds.discard_deadwood`` of one checked hand (a Python int) with tables ``t``: a
    tuple of 52 ints, -1 for cards not held. What a game computes at every discard (which
    cards it may knock with), about five times faster than the scalar Python loop."""
    out = np.empty(NUM_CARDS, np.int64)
    _one_hand_kernel(hand, *_hand_tables(t), out, True)
    return tuple(out.tolist())


def min_deadwood_one(hand: int, t: "melds._Tables") -> int:
    """``melds.min_deadwood`` of one checked hand (a Python int) with tables ``t``."""
    return int(_one_hand_kernel(hand, *_hand_tables(t), _NO_CARDS, False))


_NO_CARDS = np.empty(NUM_CARDS, np.int64)  # per-card output not asked for


@numba.njit(cache=True)
def _one_hand_kernel(hand, dead, dead_minus, opt4, opt3, out, per_card):
    """The least deadwood of one hand (``solve_hand``); with ``per_card``, ``out[c]`` is the
    least deadwood without card c for the cards held, -1 for the others."""
    h = np.uint64(hand)
    best = np.empty(NUM_CARDS, np.int64)
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    fields = np.empty(4, np.int64)
    least = solve_hand(h, dead, dead_minus, opt4, opt3, best, per_card, ranks, options, counter, fields)
    if per_card:
        for c in range(NUM_CARDS):
            out[c] = best[c] if (h >> np.uint64(c)) & _ONE else -1
    return least


@numba.njit(cache=True, inline="always")
def _set_ranks(h, ranks, options, counter):
    """The ranks hand ``h`` holds 3 or 4 times into ``ranks[:k]`` (``options``: 6 choices of
    set cards for a rank held 4 times, 2 for one held 3 times), ``counter`` at the first
    choice (no set cards); returns k (at most 4 in 13 cards)."""
    f0, f1 = np.int64(h & _SUIT), np.int64((h >> _13) & _SUIT)
    f2, f3 = np.int64((h >> _26) & _SUIT), np.int64((h >> _39) & _SUIT)
    ab, cd = f0 & f1, f2 & f3
    four = ab & cd
    three = (ab & (f2 | f3)) | (cd & (f0 | f1))  # ranks held at least 3 times
    k = 0
    for r in range(13):
        if (three >> r) & 1:
            ranks[k] = r
            options[k] = 6 if (four >> r) & 1 else 2
            counter[k] = 0
            k += 1
    return k


@numba.njit(cache=True, inline="always")
def _set_cards(ranks, options, counter, k, opt4, opt3):
    """The set cards X of the choice ``counter`` points at (the tables' cards of each rank)."""
    x = np.uint64(0)
    for j in range(k):
        x |= opt4[ranks[j], counter[j]] if options[j] == 6 else opt3[ranks[j], counter[j]]
    return x


@numba.njit(cache=True, inline="always")
def _next_choice(counter, options, k):
    """Move ``counter`` to the next choice of set cards; False when every one was seen."""
    j = 0
    while j < k:
        counter[j] += 1
        if counter[j] < options[j]:
            return True
        counter[j] = 0
        j += 1
    return False


@numba.njit(cache=True, inline="always")
def solve_hand(h, dead, dead_minus, opt4, opt3, best, per_card, ranks, options, counter, fields):
    """The least deadwood of hand ``h``; with ``per_card``, also ``best[c]``: the least
    deadwood without card c (written for the cards held only). For each choice X of set
    cards, the deadwood with X melded is the sum of the suits' run-only deadwood (the
    least over X is the hand's least deadwood), and a card outside X in suit field g
    leaves the other suits' deadwood plus ``dead_minus[g, rank]``; a card of X is covered
    by the choices that leave it out. Inlined into each kernel that calls it (no call, no
    passing of the tables), with its scratch arrays (``ranks``, ``options``, ``counter``,
    ``fields``, of 4) from the caller."""
    k = _set_ranks(h, ranks, options, counter)
    if per_card:
        left = h
        while left:
            best[trailing_zeros(left)] = np.int64(1) << 40
            left &= left - _ONE
    least = np.int64(1) << 40
    while True:  # every choice X, the empty one first
        rem = h & ~_set_cards(ranks, options, counter, k, opt4, opt3)
        fields[0], fields[1] = np.int64(rem & _SUIT), np.int64((rem >> np.uint64(13)) & _SUIT)
        fields[2], fields[3] = np.int64((rem >> np.uint64(26)) & _SUIT), np.int64((rem >> np.uint64(39)) & _SUIT)
        total = np.int64(dead[fields[0]]) + np.int64(dead[fields[1]]) + np.int64(dead[fields[2]]) + np.int64(dead[fields[3]])
        if total < least:
            least = total
        if per_card:
            for suit in range(4):
                g = fields[suit]
                others = total - dead[g]
                left = g
                while left:  # the ranks held in this suit
                    r = trailing_zeros(left)
                    left &= left - 1
                    v = others + dead_minus[g, r]
                    if v < best[suit * 13 + r]:
                        best[suit * 13 + r] = v
        if not _next_choice(counter, options, k):
            return least



@numba.njit(cache=True)
def _discard_kernel(hands, dead, dead_minus, opt4, opt3):
    """Per hand and card held, the least deadwood without the card (``solve_hand``)."""
    n = hands.shape[0]
    out = np.full((n, NUM_CARDS), -1, np.int16)
    best = np.empty(NUM_CARDS, np.int64)
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    fields = np.empty(4, np.int64)
    for i in range(n):
        h = hands[i]
        solve_hand(h, dead, dead_minus, opt4, opt3, best, True, ranks, options, counter, fields)
        left = h
        while left:  # the cards held
            card = trailing_zeros(left)
            left &= left - np.uint64(1)
            out[i, card] = best[card]
    return out


def self_check() -> str:
    """'' when the kernels compile (or load from numba's cache) and agree with the array
    operations on a few hands of each rule option; else what went wrong."""
    rng = np.random.default_rng(0)
    hands = np.array([sum(1 << int(c) for c in rng.permutation(NUM_CARDS)[: 1 + i % 13]) for i in range(64)],
                     dtype=np.uint64)
    hands[:4] = [0x1FFF, 0x1 | 0x2000 | 0x4000000 | 0x8000000000, 0x7 | 0x38000, 0x1 | 0x2000 | 0x4000000]
    # knockers with a set, a run and a little deadwood; defenders that can lay off on them
    knocker = np.array([0x7 | 0x1 << 13 | 0x1 << 26 | 0x1 << 39 | 0x300 | 0x1 << 20, 0xE0 | 0xF << 13 | 0x3 << 30],
                       dtype=np.uint64)
    defender = np.array([0x8 | 0x1000 | 0x1 << 45 | 0x7 << 33, 0x100 | 0x1 << 27 | 0x3 << 48 | 0x1 << 17], dtype=np.uint64)
    try:
        for aces_high in (False, True):
            for five_under_ten in (False, True):
                t = melds._tables(aces_high, five_under_ten)
                kd = melds._min_deadwood_numpy(knocker, t)
                if not (np.array_equal(min_deadwood(hands, aces_high, five_under_ten), melds._min_deadwood_numpy(hands, t))
                        and np.array_equal(best_discard_deadwood(hands, aces_high, five_under_ten),
                                           melds._best_discard_deadwood_numpy(hands, t))
                        and np.array_equal(discard_deadwood(hands, aces_high, five_under_ten),
                                           melds._discard_deadwood_numpy(hands, t))
                        and np.array_equal(defender_after_layoffs(knocker, defender, kd, aces_high, five_under_ten),
                                           melds._defender_after_layoffs(knocker, defender, kd, t, aces_high,
                                                                         five_under_ten))
                        and all(discard_deadwood_one(int(h), t) == melds._python_discard_deadwood(int(h), t)
                                and min_deadwood_one(int(h), t) == melds._python_min_deadwood(int(h), t) for h in hands)):
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
        best = dead[f0] + dead[f1] + dead[f2] + dead[f3] - max(max(gain[f0], gain[f1]), max(gain[f2], gain[f3]))
        k = _set_ranks(h, ranks, options, counter)
        while _next_choice(counter, options, k):  # every choice of set cards X (X empty: done above)
            rem = h & ~_set_cards(ranks, options, counter, k, opt4, opt3)
            g0, g1, g2, g3 = (np.int64(rem & _SUIT), np.int64((rem >> _13) & _SUIT), np.int64((rem >> _26) & _SUIT),
                              np.int64((rem >> _39) & _SUIT))
            v = dead[g0] + dead[g1] + dead[g2] + dead[g3] - max(max(gain[g0], gain[g1]), max(gain[g2], gain[g3]))
            if v < best:
                best = v
        out[i] = best
    return out


def defender_after_layoffs(knocker: np.ndarray, defender: np.ndarray, knocker_deadwood: np.ndarray, aces_high: bool,
                           five_under_ten: bool) -> np.ndarray:
    """``melds._defender_after_layoffs`` (flat uint64 hands; the knocker's least deadwood,
    above 0): the defender's deadwood after its best lay-offs, against the knocker's
    least-deadwood layout that leaves it the most (int16)."""
    dead, _, opt4, opt3 = kernel_tables(aces_high, five_under_ten)
    return _layoff_kernel(np.ascontiguousarray(knocker, dtype=np.uint64), np.ascontiguousarray(defender, dtype=np.uint64),
                          np.ascontiguousarray(knocker_deadwood, dtype=np.int64), dead, _NO_GAIN, opt4, opt3, aces_high)


@numba.njit(cache=True, inline="always")
def _positions(field, aces_high):
    """A suit field in run order (A above K when aces are high), as ``cards.run_positions``."""
    return ((field >> 1) | ((field & 1) << 12)) if aces_high else field


@numba.njit(cache=True, inline="always")
def _ranks(positions, aces_high):
    return (((positions << 1) & 8191) | (positions >> 12)) if aces_high else positions


@numba.njit(cache=True, inline="always")
def _run_cover(field, aces_high):
    """Cards of a suit field in a block of >= 3 consecutive ranks (``melds._run_cover``)."""
    p = _positions(field, aces_high)
    t = p & (p >> 1) & (p >> 2)
    return _ranks((t | (t << 1) | (t << 2)) & 8191, aces_high)


@numba.njit(cache=True, inline="always")
def _reach(runs, allowed):
    """Cards of ``allowed`` joined to ``runs`` by consecutive cards (run-order fields)."""
    reach = 0
    while True:
        grown = runs | reach
        new = ((grown << 1) | (grown >> 1)) & allowed & ~reach & 8191
        if new == 0:
            return reach
        reach |= new


@numba.njit(cache=True)
def _layoff_kernel(knockers, defenders, kds, dead, no_gain, opt4, opt3, aces_high):
    n = knockers.shape[0]
    out = np.full(n, -1, np.int16)
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    rf = np.empty(4, np.int64)
    df = np.empty(4, np.int64)
    xf = np.empty(4, np.int64)
    runs = np.empty(4, np.int64)
    set_cand = np.empty(4, np.int64)
    lows = np.empty(64, np.uint64)
    one_hand = np.empty(1, np.uint64)
    for i in range(n):
        k, d = knockers[i], defenders[i]
        for s in range(4):
            df[s] = np.int64((d >> np.uint64(13 * s)) & _SUIT)
        one_hand[0] = d
        plain = _best_discard_kernel(one_hand, dead, no_gain, opt4, opt3)[0]
        nk = _set_ranks(k, ranks, options, counter)
        while True:  # each of the knocker's layouts with its least deadwood
            # the tables' 3-card choice is the whole rank: keep the knocker's cards
            x = _set_cards(ranks, options, counter, nk, opt4, opt3) & k
            rem = k & ~x
            total = 0
            for s in range(4):
                rf[s] = np.int64((rem >> np.uint64(13 * s)) & _SUIT)
                xf[s] = np.int64((x >> np.uint64(13 * s)) & _SUIT)
                total += dead[rf[s]]
            if total == kds[i]:
                xab, xcd = xf[0] & xf[1], xf[2] & xf[3]
                exactly3 = ((xab & (xf[2] | xf[3])) | (xcd & (xf[0] | xf[1]))) & ~(xab & xcd)
                cand = np.uint64(0)
                for s in range(4):
                    set_cand[s] = exactly3 & ~xf[s] & df[s]  # the 4th card of a 3-card set
                    runs[s] = _positions(_run_cover(rf[s], aces_high), aces_high)
                    run_cand = _ranks(_reach(runs[s], _positions(df[s], aces_high)), aces_high)
                    cand |= np.uint64(set_cand[s] | run_cand) << np.uint64(13 * s)
                m = 0
                while cand:
                    lows[m] = cand & (~cand + np.uint64(1))
                    cand ^= lows[m]
                    m += 1
                result = plain  # laying off nothing
                for subset in range(1, 1 << m):
                    laid = np.uint64(0)
                    for j in range(m):
                        if (subset >> j) & 1:
                            laid |= lows[j]
                    valid = True
                    for s in range(4):
                        lf = np.int64((laid >> np.uint64(13 * s)) & _SUIT)
                        need = lf & ~set_cand[s]  # run cards must join a knocker run through the subset
                        joined = _ranks(_reach(runs[s], _positions(lf, aces_high)), aces_high)
                        if need & ~joined:
                            valid = False
                            break
                    if valid:
                        one_hand[0] = d & ~laid
                        left = _best_discard_kernel(one_hand, dead, no_gain, opt4, opt3)[0]
                        if left < result:
                            result = left
                if result > out[i]:
                    out[i] = result
            if not _next_choice(counter, options, nk):
                break
    return out


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
