"""Compiled (numba) kernels of Rommé's meld solver: the same search, as loops.

Why: the solver's Python search (``rummy_env.romme.melds._Search``) takes about a
millisecond per 14-card hand, most of it the interpreter's; batches of hands (a
heuristic's features, many positions of a search) want thousands of hands in that time.
These kernels run the very same search, in the same order (the melds of a hand listed
like ``melds._candidates``, each state's options tried like ``_Search.table``, the same
strict comparisons), so they give the same numbers and, for single hands, the same
arrangements. The solver uses them (``melds.KERNELS``) unless numba is missing,
``RUMMY_ENV_NO_NUMBA=1`` is set, or they fail to compile or to agree with the Python
search on a few hands (``self_check``; a warning then says why). This module needs numba
(``pip install "rummy-env[fast]"``). The meld being built has two kernels of its own at
the end (``next_cards``, ``completion_rows``), checked the same way against
``melds._python_next_cards`` and ``melds._python_completions``; and what a meld on the
table accepts (``table_meld_accepts``) serves the compiled legal mask and observation
(``rummy_env.romme.legal_jit``, ``encoding_jit``), which are checked against the game's.

Layout. A hand's held natural kinds are its *slots* (increasing); the cards still
undecided are a mixed-radix number over the slots' counts and the jokers (the *state*,
below 2 ** cards). A state's best completion is kept per *context* (value capped at the
points, run laid, card used, cards left capped at ``keep``: ``melds._Search``): in
arrays of (slots visited, contexts). States get their row on their first visit; when
every state of the hand fits in ``DENSE_ENTRIES`` entries the rows are allocated up
front, else a first pass counts the states the search visits (it visits the same states
whatever it keeps).
"""

from __future__ import annotations

import threading

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from rummy_env.core.compiled import refresh_cache
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS
from rummy_env.romme.cards import JOKER, NUM_KINDS, RANK_VALUES, TWO_JOKERS, penalty_values

DENSE_ENTRIES = 1 << 20  # a batch's (states x contexts) table up to this size (32 MB) is allocated whole
_BIG = np.int64(1) << 40
_POSITION_VALUE = np.array([1 if p == 0 else RANK_VALUES[p % NUM_RANKS] for p in range(2 * NUM_RANKS)], np.int64)
_RANK_VALUE = np.array(RANK_VALUES, np.int64)
_MAX_CODES = 4 * 8192 * 7  # (suit, natural rank mask, jokers) keys of the runs' de-duplication


# ----------------------------------------------------------------------------- the melds of a hand


@numba.njit(cache=True, inline="always")
def _i(x):
    """``x`` as an int64 that is no literal. Why: numba compiles a function once per type of
    its arguments, and a constant passed (``0``, ``False``, a module's number) is a type of its
    own (``Literal[int](0)``): passed as a constant in some calls and a variable in others,
    ``_can_end`` and the solver's whole search under it were compiled up to ten times over,
    two minutes of a first use. The calls pass their constants through ``_i`` and ``_b``."""
    return np.int64(x)


@numba.njit(cache=True, inline="always")
def _b(x):
    """``x`` as a bool that is no literal (``_i``)."""
    return np.bool_(x)


@numba.njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@numba.njit(cache=True)
def _allows(n, j, more):
    return n > j if more else n >= 2


@numba.njit(cache=True, _nrt=False)
def _fill_candidates(slot_of, jokers, wrap, adjacent, more, where, nat, nn, jk, val, run, code, touched, have, missing,
                     pick):
    """``candidates``' melds into the arrays given: returns (how many, keys of ``where``
    set in ``touched``), or (-1, ...) when they do not hold them all (the caller makes them
    larger and asks again; ``where`` is cleared of the keys touched either way). The arrays
    are never replaced inside its loops: a variable rebound in a loop is reference counted
    at every turn."""
    n_touched = 0
    c = 0
    # sets, rank by rank
    for rank in range(NUM_RANKS):
        held = 0
        for s in range(4):
            if slot_of[s * 13 + rank] >= 0:
                held |= 1 << s
        if _popcount(held) < 2:
            continue
        for mask in range(1, 16):
            if mask & ~held:
                continue
            n = _popcount(mask)
            for j in range(0, min(jokers, 4 - n) + 1):
                if n + j >= 3 and _allows(n, j, more):
                    if c == nat.shape[0]:
                        return -1, n_touched
                    t = 0
                    for s in range(4):
                        if mask >> s & 1:
                            nat[c, t] = slot_of[s * 13 + rank]
                            t += 1
                    nn[c], jk[c], val[c], run[c] = n, j, _RANK_VALUE[rank] * (n + j), 0
                    code[c, 0], code[c, 1], code[c, 2], code[c, 3] = rank, mask, j, 0
                    c += 1
    # runs, suit by suit: windows by start and length, joker places by the natural cards replaced
    for suit in range(4):
        in_suit = 0
        for q in range(NUM_RANKS):
            if slot_of[suit * 13 + q] >= 0:
                in_suit += 1
        if in_suit < 2:
            continue
        for start in range(NUM_RANKS):
            longest = 13 if wrap else min(13, 14 - start)
            nh, nm = 0, 0
            for t in range(2):
                if slot_of[suit * 13 + (start + t) % 13] >= 0:
                    have[nh] = t
                    nh += 1
                else:
                    missing[nm] = t
                    nm += 1
            for length in range(3, longest + 1):
                t = length - 1  # the window grows by its last place
                if slot_of[suit * 13 + (start + t) % 13] >= 0:
                    have[nh] = t
                    nh += 1
                else:
                    missing[nm] = t
                    nm += 1
                if nm > jokers:
                    break  # longer windows from this start miss even more
                if nh < 2:
                    continue
                mmask = 0
                for i in range(nm):
                    mmask |= 1 << missing[i]
                for extra in range(0, jokers - nm + 1):
                    if extra > nh:
                        break
                    for i in range(extra):
                        pick[i] = i
                    while True:  # the combinations of `extra` of the places held, in lexicographic order
                        places = mmask
                        for i in range(extra):
                            places |= 1 << have[pick[i]]
                        j = nm + extra
                        ok = _allows(length - j, j, more) and (adjacent or (places & (places >> 1)) == 0)
                        if ok:
                            natmask = 0
                            value = 0
                            for t in range(length):
                                if not (places >> t & 1):
                                    natmask |= 1 << ((start + t) % 13)
                                value += _POSITION_VALUE[start + t]
                            key = (suit * 8192 + natmask) * 7 + j
                            if where[key] >= 0:
                                w = where[key]
                                if value > val[w]:
                                    val[w] = value
                                    code[w, 1], code[w, 2], code[w, 3] = start, length, places
                            else:
                                if c == nat.shape[0] or n_touched == touched.shape[0]:
                                    return -1, n_touched
                                touched[n_touched] = key
                                n_touched += 1
                                where[key] = c
                                t2 = 0
                                for q in range(NUM_RANKS):  # slots increase with the rank within a suit
                                    if natmask >> q & 1:
                                        nat[c, t2] = slot_of[suit * 13 + q]
                                        t2 += 1
                                nn[c], jk[c], val[c], run[c] = t2, j, value, 1
                                code[c, 0], code[c, 1], code[c, 2], code[c, 3] = suit, start, length, places
                                c += 1
                        # next combination
                        i = extra - 1
                        while i >= 0 and pick[i] == nh - extra + i:
                            i -= 1
                        if i < 0:
                            break
                        pick[i] += 1
                        for i2 in range(i + 1, extra):
                            pick[i2] = pick[i2 - 1] + 1
    return c, n_touched


@numba.njit(cache=True)
def candidates(counts, wrap, adjacent, more, where):
    """The melds of one hand, as ``melds._candidates`` lists them (same order, same
    de-duplication), bucketed by lowest slot.

    Returns (slot_of_kind (52,), kinds (m,), nat (C, 13) slots of the natural cards, nn
    (C,) their number, jk (C,) jokers, val (C,), run (C,), code (C, 4), first (m + 1,)).
    ``where``: scratch of ``_MAX_CODES`` entries, all -1 (left so on return).
    the candidates of slot i are rows first[i]..first[i + 1] (in order); ``code`` is
    (rank, suit mask, jokers, 0) for a set, (suit, start, length, joker place mask) for a run."""
    jokers = np.int64(counts[JOKER])
    slot_of = np.full(NUM_CARDS, -1, np.int64)
    m = 0
    for k in range(NUM_CARDS):
        if counts[k] > 0:
            slot_of[k] = m
            m += 1
    kinds = np.empty(m, np.int64)
    for k in range(NUM_CARDS):
        if slot_of[k] >= 0:
            kinds[slot_of[k]] = k
    cap = 64
    have = np.empty(13, np.int64)
    missing = np.empty(13, np.int64)
    pick = np.empty(13, np.int64)
    while True:
        nat = np.empty((cap, 13), np.int64)
        nn = np.empty(cap, np.int64)
        jk = np.empty(cap, np.int64)
        val = np.empty(cap, np.int64)
        run = np.empty(cap, np.int64)
        code = np.empty((cap, 4), np.int64)
        touched = np.empty(cap, np.int64)
        c, n_touched = _fill_candidates(slot_of, jokers, wrap, adjacent, more, where, nat, nn, jk, val, run, code,
                                        touched, have, missing, pick)
        for i in range(n_touched):
            where[touched[i]] = -1
        if c >= 0:
            break
        cap *= 4
    # bucket by lowest slot, keeping the order (a stable counting sort)
    first = np.zeros(m + 1, np.int64)
    for i in range(c):
        first[nat[i, 0] + 1] += 1
    for i in range(m):
        first[i + 1] += first[i]
    fill = first[:m].copy()
    order = np.empty(c, np.int64)
    for i in range(c):
        low = nat[i, 0]
        order[fill[low]] = i
        fill[low] += 1
    return slot_of, kinds, nat[order], nn[order], jk[order], val[order], run[order], code[order], first


# ----------------------------------------------------------------------------- the search

# The search's recursive functions take few arguments (each array passed costs a
# reference count in and out): the candidates in one (C, 19) array, the hand's numbers in
# one vector ``hs``, the tables in one (rows, contexts, 4) array. They allocate nothing and
# keep no array, so they are compiled without the runtime's reference counts
# (``_nrt=False``), as are the other kernels of this module that only read and write the arrays
# they are given (``_fill_candidates``, ``_next_cards``, ``_completion_rows``): each count
# is an atomic operation (about 10 ns), and the recursion made most of them.
C_NN, C_JK, C_VAL, C_V, C_R, C_N, C_WIDTH = 13, 14, 15, 16, 17, 18, 19  # columns of the candidates (0..12: slots)
H_M, H_JRADIX, H_JPEN, H_V, H_R, H_N, H_L, H_TARGET, H_KEEP, H_BYVAL, H_COUNTER, H_SID, H_BASE = range(13)
T_PEN, T_VAL, T_CHOICE, T_CHILD = range(4)  # per row and context: penalty, value, choice, child's context
NONE, END, LEAVE = -3, -2, -1  # choices; a candidate is its number among the lowest slot's


@numba.njit(cache=True, inline="always")
def _row(state, hs, smap):
    """The row of ``state``, given on its first visit in visit order. ``smap[state]`` is
    (stamp, row): stamp ``2 * sid - 1`` once the counting pass gave it a row, ``2 * sid``
    once the search reached it (the search never comes back to a state on its own path,
    so a state reached before is solved), anything else: not seen in this hand."""
    stamp = smap[state, 0]
    if stamp != 2 * hs[H_SID] - 1 and stamp != 2 * hs[H_SID]:
        smap[state, 1] = hs[H_COUNTER]
        hs[H_COUNTER] += 1
    return smap[state, 1]


@numba.njit(cache=True, inline="always")
def _lowest(hs):
    m = hs[H_M]
    for i in range(m):
        if hs[H_BASE + m + i] > 0:
            return i
    return -1


@numba.njit(cache=True, inline="always")
def _take(ci, rj, cand, hs):
    """The state's decrease when candidate ``ci`` is melded (its cards then taken from the
    counts), or -1 if the cards still undecided do not hold it."""
    m = hs[H_M]
    if cand[ci, C_JK] > rj:
        return -1
    for t in range(cand[ci, C_NN]):
        if hs[H_BASE + m + cand[ci, t]] == 0:
            return -1
    delta = cand[ci, C_JK] * hs[H_JRADIX]
    for t in range(cand[ci, C_NN]):
        hs[H_BASE + m + cand[ci, t]] -= 1
        delta += hs[H_BASE + cand[ci, t]]
    return delta


@numba.njit(cache=True, inline="always")
def _give_back(ci, cand, hs):
    m = hs[H_M]
    for t in range(cand[ci, C_NN]):
        hs[H_BASE + m + cand[ci, t]] += 1


@numba.njit(cache=True, _nrt=False)
def _visit(state, rj, cand, hs, smap):
    """The counting pass: give every state the search visits a row, in visit order."""
    if smap[state, 0] == 2 * hs[H_SID] - 1:
        return
    _row(state, hs, smap)
    smap[state, 0] = 2 * hs[H_SID] - 1
    low = _lowest(hs)
    if low < 0:
        return
    m = hs[H_M]
    hs[H_BASE + m + low] -= 1
    _visit(state - hs[H_BASE + low], rj, cand, hs, smap)
    hs[H_BASE + m + low] += 1
    first = H_BASE + 3 * m
    for ci in range(hs[first + low], hs[first + low + 1]):
        delta = _take(ci, rj, cand, hs)
        if delta >= 0:
            _visit(state - delta, rj - cand[ci, C_JK], cand, hs, smap)
            _give_back(ci, cand, hs)


@numba.njit(cache=True, inline="always")
def _offer(tab, row, x, pen, val, choice, child, by_value):
    """Keep (pen, val) at context ``x`` of ``row`` if there is none yet or it is better:
    less penalty then more value (``by_value``: more value); the first among equals stays."""
    if tab[row, x, T_CHOICE] != NONE:
        if by_value:
            if val <= tab[row, x, T_VAL]:
                return
        elif pen > tab[row, x, T_PEN] or (pen == tab[row, x, T_PEN] and val <= tab[row, x, T_VAL]):
            return
    tab[row, x, T_PEN] = pen
    tab[row, x, T_VAL] = val
    tab[row, x, T_CHOICE] = choice
    tab[row, x, T_CHILD] = child


@numba.njit(cache=True, _nrt=False)
def _solve(state, rj, cand, hs, smap, tab):
    """The best completion per context of ``state`` (``melds._Search.table``) into its row
    of ``tab``; returns the row."""
    if smap[state, 0] == 2 * hs[H_SID]:
        return smap[state, 1]
    row = _row(state, hs, smap)
    smap[state, 0] = 2 * hs[H_SID]
    V, R, N, L, keep, by_value = hs[H_V], hs[H_R], hs[H_N], hs[H_L], hs[H_KEEP], hs[H_BYVAL] != 0
    K = V * R * N * L
    for x in range(K):
        tab[row, x, T_CHOICE] = NONE
    low = _lowest(hs)
    if low < 0:
        x = min(rj, keep)
        tab[row, x, T_PEN], tab[row, x, T_VAL], tab[row, x, T_CHOICE], tab[row, x, T_CHILD] = rj * hs[H_JPEN], 0, END, 0
        return row
    m = hs[H_M]
    # leave one card of the lowest kind
    hs[H_BASE + m + low] -= 1
    cs = _solve(state - hs[H_BASE + low], rj, cand, hs, smap, tab)
    hs[H_BASE + m + low] += 1
    p = hs[H_BASE + 2 * m + low]
    for cx in range(K):
        if tab[cs, cx, T_CHOICE] != NONE:
            l = cx % L
            _offer(tab, row, cx - l + min(l + 1, keep), tab[cs, cx, T_PEN] + p, tab[cs, cx, T_VAL], LEAVE, cx, by_value)
    # or meld it
    first = H_BASE + 3 * m
    target = hs[H_TARGET]
    for ci in range(hs[first + low], hs[first + low + 1]):
        delta = _take(ci, rj, cand, hs)
        if delta < 0:
            continue
        cs = _solve(state - delta, rj - cand[ci, C_JK], cand, hs, smap, tab)
        _give_back(ci, cand, hs)
        mv, mr, mn, worth = cand[ci, C_V], cand[ci, C_R], cand[ci, C_N], cand[ci, C_VAL]
        for cx in range(K):
            if tab[cs, cx, T_CHOICE] == NONE:
                continue
            l = cx % L
            q = cx // L
            n = q % N
            q //= N
            r = q % R
            v = q // R
            v2 = min(v + mv, target) if V > 1 else 0
            x = ((v2 * R + (r | mr)) * N + min(n + mn, N - 1)) * L + l
            _offer(tab, row, x, tab[cs, cx, T_PEN], tab[cs, cx, T_VAL] + worth, ci - hs[first + low], cx, by_value)
    return row


@numba.njit(cache=True)
def _space(counts):
    """The number of states of a hand: the product of (count + 1) over its kinds."""
    s = np.int64(1)
    for k in range(NUM_KINDS):
        s *= np.int64(counts[k]) + 1
    return s


@numba.njit(cache=True)
def _hand(counts, wrap, adjacent, more, pen_of_kind, target, need_run, need_kind, keep, by_value, sid, smap, tab,
          where):
    """One hand's search (``melds._Search``) with the scratch arrays given (``smap``: an
    entry per state at least, stamps below ``2 * sid - 1``; ``tab``: reused when it holds
    a row per state, else replaced by a table of the states the search visits). Returns
    (root row, full context, tab, hs, cand, code, kinds, run, root state)."""
    slot_of, kinds, nat, nn, jk, val, run, code, first = candidates(counts, wrap, adjacent, more, where)
    m = kinds.shape[0]
    C = nn.shape[0]
    J = np.int64(counts[JOKER])
    hs = np.zeros(H_BASE + 4 * m + 1, np.int64)
    V = 1 if by_value else target + 1
    R = 2 if need_run else 1
    N = 3 if need_kind == TWO_JOKERS else 2 if need_kind >= 0 else 1  # jokers used so far, up to two
    L = keep + 1
    hs[H_M], hs[H_JPEN], hs[H_V], hs[H_R], hs[H_N], hs[H_L] = m, pen_of_kind[JOKER], V, R, N, L
    hs[H_TARGET], hs[H_KEEP], hs[H_BYVAL], hs[H_SID] = target, keep, 1 if by_value else 0, sid
    acc = np.int64(1)
    root = np.int64(0)
    need_slot = -1
    for i in range(m):
        c = np.int64(counts[kinds[i]])
        hs[H_BASE + i] = acc
        hs[H_BASE + m + i] = c
        hs[H_BASE + 2 * m + i] = pen_of_kind[kinds[i]]
        root += c * acc
        acc *= c + 1
        if kinds[i] == need_kind:
            need_slot = i
    for i in range(m + 1):
        hs[H_BASE + 3 * m + i] = first[i]
    hs[H_JRADIX] = acc
    root += J * acc
    cand = np.zeros((C, C_WIDTH), np.int64)
    for ci in range(C):
        for t in range(nn[ci]):
            cand[ci, t] = nat[ci, t]
        cand[ci, C_NN], cand[ci, C_JK], cand[ci, C_VAL] = nn[ci], jk[ci], val[ci]
        if not by_value:
            cand[ci, C_V] = min(val[ci], target)
        cand[ci, C_R] = run[ci] if need_run else 0
        if need_kind == JOKER or need_kind == TWO_JOKERS:
            cand[ci, C_N] = min(jk[ci], N - 1)
        elif need_slot >= 0:
            for t in range(nn[ci]):
                if nat[ci, t] == need_slot:
                    cand[ci, C_N] = 1
    K = V * R * N * L
    if acc * (J + 1) > tab.shape[0] or K > tab.shape[1]:  # count the states visited, then tables of that size
        _visit(root, J, cand, hs, smap)
        tab = np.empty((hs[H_COUNTER], K, 4), np.int64)
        hs[H_COUNTER] = 0
    top = _solve(root, J, cand, hs, smap, tab)
    full = ((V - 1) * R + R - 1) * N * L + (N - 1) * L + keep
    return top, full, tab, hs, cand, code, kinds, run, root


@numba.njit(cache=True)
def _batch(hands, needs, wrap, adjacent, more, pen_of_kind, target, need_run, keep, by_value, dense_entries, smap,
           sid, where):
    """(penalty, value) of the best arrangement meeting every condition, per hand (-1, -1
    where none); ``needs``: per hand a kind or -1. The scratch is the single-hand calls'
    (``_scratch``: the state map, the last stamp ``sid`` given, the de-duplication table),
    so a small batch does not clear megabytes first; returns the state map used (a bigger
    one when a hand needs it) and the last stamp given, for the next call."""
    n = hands.shape[0]
    out_pen = np.full(n, -1, np.int64)
    out_val = np.full(n, -1, np.int64)
    biggest = np.int64(1)
    for i in range(n):
        biggest = max(biggest, _space(hands[i]))
    V = 1 if by_value else target + 1
    most_n = 1
    for i in range(n):
        most_n = max(most_n, 3 if needs[i] == TWO_JOKERS else 2 if needs[i] >= 0 else 1)
    K = V * (2 if need_run else 1) * most_n * (keep + 1)
    if biggest > smap.shape[0]:
        smap = np.zeros((biggest, 2), np.int64)
        sid = 0
    # a row for every state up front (no counting pass) when the batch is big enough to pay for it
    rows = biggest if n >= 32 and biggest * K <= dense_entries else 0
    tab = np.empty((rows, K, 4), np.int64)
    for i in range(n):
        sid += 1  # stamps of earlier hands are smaller: those states count as not seen
        got = _hand(hands[i], wrap, adjacent, more, pen_of_kind, target, need_run, needs[i], keep, by_value, sid,
                    smap, tab, where)
        top, full, t = got[0], got[1], got[2]
        if t[top, full, T_CHOICE] != NONE:
            out_pen[i], out_val[i] = t[top, full, T_PEN], t[top, full, T_VAL]
    return out_pen, out_val, smap, sid


# ----------------------------------------------------------------------------- what the solver calls


def _flags(rules):
    return rules.aces_around_the_corner, rules.adjacent_jokers, rules.naturals_per_meld == "more_than_jokers"


def _batch_with_scratch(hands: np.ndarray, needs: np.ndarray, rules, target: int, need_run: bool, keep: int,
                        by_value: bool) -> tuple[np.ndarray, np.ndarray]:
    """``_batch`` of checked (n, 53) uint8 hands with this module's scratch arrays."""
    scratch = _scratch()
    wrap, adjacent, more = _flags(rules)
    pen, val, scratch["smap"], scratch["sid"] = _batch(
        np.ascontiguousarray(hands, dtype=np.int64), np.ascontiguousarray(needs, dtype=np.int64), wrap, adjacent, more,
        _penalties(rules), target, need_run, keep, by_value, DENSE_ENTRIES, scratch["smap"], scratch["sid"],
        scratch["where"])
    return pen, val


def least_penalty(hands: np.ndarray, rules) -> np.ndarray:
    """``melds.least_penalty`` of checked (n, 53) uint8 hands (int64, (n,))."""
    return _batch_with_scratch(hands, np.full(hands.shape[0], -1, np.int64), rules, 0, False, 0, False)[0]


def can_come_out(hands: np.ndarray, rules, needs: np.ndarray, keep: int) -> np.ndarray:
    """``melds.can_come_out`` of checked (n, 53) uint8 hands (``needs``: a kind or -1 each)."""
    val = _batch_with_scratch(hands, needs, rules, rules.come_out_points, rules.come_out_needs_run, keep, True)[1]
    return val >= rules.come_out_points


@numba.njit(cache=True)
def _walk(top, full, tab, hs, cand, smap, root):
    """The choices from the root's best entry down (``melds._Search.arrangement``): the
    candidates melded (their rows), and the slots left (-1 for a joker)."""
    m = hs[H_M]
    first = H_BASE + 3 * m
    rem = hs[H_BASE + m:H_BASE + 2 * m].copy()  # the search left the counts as they were
    rem_j = (root // hs[H_JRADIX])
    melded = np.empty(m + 1, np.int64)
    left = np.empty(m * 2 + rem_j + 1, np.int64)
    nm = nl = 0
    state, ctx, row = root, full, top
    while True:
        c, next_ctx = tab[row, ctx, T_CHOICE], tab[row, ctx, T_CHILD]
        low = -1
        for i in range(m):
            if rem[i] > 0:
                low = i
                break
        if c == END:
            for _ in range(rem_j):
                left[nl] = -1
                nl += 1
            break
        if c == LEAVE:
            rem[low] -= 1
            left[nl] = low
            nl += 1
            state -= hs[H_BASE + low]
        else:
            ci = hs[first + low] + c
            for t in range(cand[ci, C_NN]):
                rem[cand[ci, t]] -= 1
                state -= hs[H_BASE + cand[ci, t]]
            rem_j -= cand[ci, C_JK]
            state -= cand[ci, C_JK] * hs[H_JRADIX]
            melded[nm] = ci
            nm += 1
        ctx = next_ctx
        row = smap[state, 1]
    return melded[:nm], left[:nl]


_NO_ROWS = np.empty((0, 1, 4), np.int64)
# Each thread's scratch for the solver's calls from Python (made on its first call): a
# search's state map is read again after it returns (``_walk``), so two threads (a
# server's tables, moved in a pool of threads) must never share one.
_LOCAL = threading.local()


def _scratch() -> dict:
    """This thread's scratch (``_LOCAL``): the de-duplication table (left all -1 by each
    search) and the state map, whose entries count as unseen for stamps above the last
    one given, so neither is cleared per call."""
    scratch = getattr(_LOCAL, "scratch", None)
    if scratch is None:
        scratch = _LOCAL.scratch = {"where": np.full(_MAX_CODES, -1, np.int64),
                                    "smap": np.zeros((1 << 15, 2), np.int64), "sid": 0}
    return scratch


def _penalties(rules) -> np.ndarray:
    """``penalty_values(rules)`` as the kernels' own callers pass it: int64, writable (a
    read-only array, or counts as uint8, is another type to numba, and the search would be
    compiled once more for it; ``_i``). One array per joker penalty, made once; no kernel
    writes it."""
    got = _PENALTIES.get(rules.joker_penalty)
    if got is None:
        got = _PENALTIES[rules.joker_penalty] = np.array(penalty_values(rules))
    return got


_PENALTIES: dict = {}  # joker penalty -> ``_penalties``' array


def _single(hand: np.ndarray, rules, target: int, need_run: bool, need, keep: int, by_value: bool):
    """One hand's compiled search with this thread's scratch arrays (``_hand``'s results)."""
    scratch = _scratch()
    counts = np.ascontiguousarray(hand, dtype=np.int64)
    space = int(_space(counts))
    if space > scratch["smap"].shape[0]:
        scratch.update(smap=np.zeros((space, 2), np.int64), sid=0)
    scratch["sid"] += 1  # stamps of earlier calls are smaller: those states count as not seen
    wrap, adjacent, more = _flags(rules)
    return _hand(counts, wrap, adjacent, more, _penalties(rules), target, need_run, -1 if need is None else int(need),
                 keep, by_value, scratch["sid"], scratch["smap"], _NO_ROWS, scratch["where"])


def _arrangement(hand: np.ndarray, rules, target: int, need_run: bool, need, keep: int):
    """The best arrangement of one hand meeting the conditions (``melds._Search.arrangement``)
    from the compiled search, or None."""
    from rummy_env.romme.melds import Arrangement, Meld

    top, full, tab, hs, cand, code, kinds, run, root = _single(hand, rules, target, need_run, need, keep, False)
    if tab[top, full, T_CHOICE] == NONE:
        return None
    melded, left = _walk(top, full, tab, hs, cand, _scratch()["smap"], root)
    melds = []
    for ci in melded.tolist():
        a, b, c, d = code[ci].tolist()
        if run[ci]:
            melds.append(Meld.make_run(a, b, c, [t for t in range(c) if d >> t & 1]))
        else:
            melds.append(Meld.make_set(a, [x for x in range(4) if b >> x & 1], c))
    kinds = kinds.tolist()
    return Arrangement(tuple(melds), tuple(sorted(JOKER if x < 0 else kinds[x] for x in left.tolist())),
                       int(tab[top, full, T_PEN]), int(tab[top, full, T_VAL]))


def arrangement(hand: np.ndarray, rules, target: int, need_run: bool, need, keep: int):
    """``melds._Search(hand, rules, target, need_run, need, keep).arrangement()``, compiled."""
    return _arrangement(hand, rules, target, need_run, need, keep)


def come_out(hand: np.ndarray, rules, need, keep: int):
    """``melds._python_come_out``, compiled: feasibility (most value), then the least
    penalty meeting the other conditions, then the search with the value in its context."""
    target = rules.come_out_points
    top, full, tab, *_ = _single(hand, rules, target, rules.come_out_needs_run, need, keep, True)
    if tab[top, full, T_CHOICE] == NONE or tab[top, full, T_VAL] < target:
        return None
    plain = _arrangement(hand, rules, 0, rules.come_out_needs_run, need, keep)
    if plain is not None and plain.value >= target:
        return plain
    return _arrangement(hand, rules, target, rules.come_out_needs_run, need, keep)


# ----------------------------------------------------------------------------- the meld being built


def _window_table(wrap: bool) -> np.ndarray:
    """(start, length, rank mask) of every window a run may cover (``melds._windows``)."""
    rows = []
    for start in range(NUM_RANKS):
        longest = NUM_RANKS if wrap else min(NUM_RANKS, NUM_RANKS + 1 - start)
        for length in range(3, longest + 1):
            rows.append((start, length, sum(1 << ((start + t) % NUM_RANKS) for t in range(length))))
    return np.array(rows, np.int64)


def _rank_window_table(wrap: bool) -> np.ndarray:
    """(13, W, 3): per rank, the windows of ``_window_table`` holding it, shortest first
    (padded with rows of 0, which hold no rank): what ``_finishes`` tries, where any window
    will do (the short ones most often)."""
    windows = _window_table(wrap)
    per_rank = [sorted((w for w in windows if (w[2] >> q) & 1), key=lambda w: w[1]) for q in range(NUM_RANKS)]
    out = np.zeros((NUM_RANKS, max(map(len, per_rank)), 3), np.int64)
    for q, rows in enumerate(per_rank):
        out[q, :len(rows)] = rows
    return out


_WINDOWS_FLAT = _window_table(False)
_WINDOWS_WRAP = _window_table(True)
_RANK_WINDOWS_FLAT = _rank_window_table(False)
_RANK_WINDOWS_WRAP = _rank_window_table(True)
_RANKS = (1 << NUM_RANKS) - 1
_SAME_RANK = sum(1 << (s * NUM_RANKS) for s in range(4))  # the kinds of rank 0 (the aces); << rank: of that rank
_EVERY_KIND = (1 << NUM_CARDS) - 1  # the 52 natural kinds, as a mask


@numba.njit(cache=True)
def _finishes(natm, jokm, nn, nj, held, avail, wrap, adjacent, more):
    """``melds._can_finish`` of the meld being built with the natural kinds of mask ``natm``
    (``nn`` of them) and jokers standing for those of ``jokm`` (``nj``; disjoint), from a
    hand holding the natural kinds of mask ``held`` with ``avail`` jokers. A run is tried
    in the windows holding the lowest card's rank (``_rank_window_table``: a window must
    hold every card). Scalars only: an array passed to a compiled call is reference counted
    (two atomic operations), which cost more than the test itself at 104 calls a hand."""
    kinds = natm | jokm
    if kinds == 0:
        return False
    low = np.int64(trailing_zeros(np.uint64(kinds)))
    rank = low % NUM_RANKS
    suit = low // NUM_RANKS
    same_rank = _SAME_RANK << rank
    if kinds & ~same_rank == 0:
        others = _popcount(held & same_rank & ~kinds)
        for size in range(others + 1):
            n = nn + size
            for e in range(avail + 1):
                j = nj + e
                if n + j > 4:
                    break
                if n + j >= 3 and _allows(n, j, more):
                    return True
    base = suit * NUM_RANKS
    if kinds & ~(np.int64(_RANKS) << base) == 0:
        nat_r = (natm >> base) & _RANKS
        jok_r = (jokm >> base) & _RANKS
        need = nat_r | jok_r
        suit_held = (held >> base) & _RANKS
        rank_windows = _RANK_WINDOWS_WRAP if wrap else _RANK_WINDOWS_FLAT
        for w in range(rank_windows.shape[1]):
            start, length, wm = rank_windows[rank, w, 0], rank_windows[rank, w, 1], rank_windows[rank, w, 2]
            if need & ~wm:
                continue
            missing = wm & ~need & ~suit_held
            if _popcount(missing) > avail:
                continue
            jokers = jok_r | missing
            j = _popcount(jokers)
            if not _allows(length - j, j, more):
                continue
            if not adjacent:
                places = ((jokers >> start) | (jokers << (NUM_RANKS - start))) & _RANKS
                if places & (places >> 1):
                    continue
            return True
    return False


@numba.njit(cache=True, inline="always")
def _held(counts, at):
    """The natural kinds with a card in the kind counts ``counts[at:at + 53]``, as a mask:
    the loops over a hand's cards visit its bits only."""
    held = np.int64(0)
    for k in range(NUM_CARDS):
        if counts[at + k] > 0:
            held |= np.int64(1) << k
    return held


@numba.njit(cache=True, inline="always")
def _near(held):
    """The kinds (held or not) that have a natural kind of mask ``held`` of their rank (of
    another suit), or of their suit within two ranks (around the corner too).

    Why it bounds ``_next_cards``: take one card of a meld of three or more (a natural
    card, or a joker standing for a kind), and three of the meld's places that hold it and
    lie side by side (a set's: any three). Unless the two others are both jokers, one of
    them is a natural card near it: another suit of its rank, or its suit within two
    ranks. So with at most one joker held, a card held that is not near the hand starts no
    meld the hand can finish; with at most two (the one placed among them), nor does a
    joker standing for a kind not near it. A necessary condition only: ``_finishes``
    decides, around the corner or not."""
    out = np.int64(0)
    for s in range(4):
        lane = (held >> (s * NUM_RANKS)) & _RANKS
        near = np.int64(0)
        for d in range(1, 3):
            near |= ((lane << d) | (lane >> (NUM_RANKS - d))) & _RANKS
            near |= ((lane >> d) | (lane << (NUM_RANKS - d))) & _RANKS
        for t in range(4):
            if t != s:
                near |= (held >> (t * NUM_RANKS)) & _RANKS
        out |= near << (s * NUM_RANKS)
    return out


@numba.njit(cache=True, _nrt=False)
def _next_cards(natm, jokm, nn, nj, hand, wrap, adjacent, more):
    """(picks, jokers) masks of ``melds.next_cards``: the natural kinds held whose card, and
    the kinds a joker held may stand for, leave a meld that can still be finished."""
    taken = natm | jokm
    avail = np.int64(hand[JOKER])
    held = _held(hand, 0)
    # a meld not started yet, few jokers held: only the cards near the hand (``_near``) are
    # asked of ``_finishes`` (a card held: at most one joker; a joker: at most two)
    near = _near(held) if taken == 0 and avail < 3 else np.int64(_EVERY_KIND)
    picks = np.int64(0)
    look = held & ~taken & (near if avail < 2 else np.int64(_EVERY_KIND))
    while look:
        bit = look & -look
        look &= look - 1
        if _finishes(natm | bit, jokm, nn + 1, nj, held, avail, wrap, adjacent, more):
            picks |= bit
    jokers = np.int64(0)
    if avail > 0:
        look = near & ~taken
        while look:
            bit = look & -look
            look &= look - 1
            if _finishes(natm, jokm | bit, nn, nj + 1, held, avail - 1, wrap, adjacent, more):
                jokers |= bit
    return picks, jokers


def next_cards(nat: tuple, jok: tuple, hand: bytes, rules) -> tuple[int, int]:
    """``melds.next_cards`` (the same masks), compiled: one call for every card."""
    natm = jokm = 0
    for k in nat:
        natm |= 1 << k
    for k in jok:
        jokm |= 1 << k
    if (natm | jokm).bit_count() != len(nat) + len(jok):  # a kind twice: nothing finishes it
        return 0, 0
    wrap, adjacent, more = _flags(rules)
    picks, jokers = _next_cards(natm, jokm, len(nat), len(jok), np.frombuffer(hand, np.uint8).astype(np.int64), wrap,
                                adjacent, more)
    return int(picks), int(jokers)


_ROW = 8  # a completion's row: run, extra natural kinds (mask), extra jokers, worth, then its reading's four numbers


@numba.njit(cache=True, _nrt=False)
def _emit(out, n, run, extra, extra_jokers, value, a, b, c, d):
    if n < out.shape[0]:
        out[n, 0], out[n, 1], out[n, 2], out[n, 3] = run, extra, extra_jokers, value
        out[n, 4], out[n, 5], out[n, 6], out[n, 7] = a, b, c, d
    return n + 1


@numba.njit(cache=True, _nrt=False)
def _completion_rows(natm, jokm, nn, nj, hand, wrap, adjacent, more, out):
    """The completions ``melds._python_completions`` offers, as rows of ``out``: (run,
    extra natural kinds as a mask, extra jokers, worth, reading) with the reading (rank,
    suits mask, jokers, 0) for a set and (suit, start, length, joker offsets mask) for a
    run. The windows come in the same order (which of two equal readings is kept depends
    on it); within a window every row uses other cards, so their order does not matter.
    Returns how many there are (more than ``out`` holds: call again with room for them
    all)."""
    n = 0
    kinds = natm | jokm
    avail = np.int64(hand[JOKER])
    low = 0
    while not (kinds >> low) & 1:
        low += 1
    rank = low % NUM_RANKS
    suit = low // NUM_RANKS
    same_rank = np.int64(0)
    for s in range(4):
        same_rank |= np.int64(1) << (s * NUM_RANKS + rank)
    if kinds & ~same_rank == 0:
        taken = 0
        nat_suits = 0
        for s in range(4):
            if (kinds >> (s * NUM_RANKS + rank)) & 1:
                taken |= 1 << s
            if (natm >> (s * NUM_RANKS + rank)) & 1:
                nat_suits |= 1 << s
        others = 0
        for s in range(4):
            if not (taken >> s) & 1 and hand[s * NUM_RANKS + rank] > 0:
                others |= 1 << s
        for chosen in range(16):
            if chosen & ~others:
                continue
            size = _popcount(chosen)
            nat_n = nn + size
            extra = np.int64(0)
            for s in range(4):
                if (chosen >> s) & 1:
                    extra |= np.int64(1) << (s * NUM_RANKS + rank)
            for e in range(avail + 1):
                j = nj + e
                if nat_n + j > 4:
                    break
                if nat_n + j >= 3 and _allows(nat_n, j, more):
                    n = _emit(out, n, 0, extra, e, _RANK_VALUE[rank] * (nat_n + j), rank, nat_suits | chosen, j, 0)
    base = suit * NUM_RANKS
    if kinds & ~(np.int64(_RANKS) << base) == 0:
        nat_r = (natm >> base) & _RANKS
        jok_r = (jokm >> base) & _RANKS
        need = nat_r | jok_r
        held = np.int64(0)
        for q in range(NUM_RANKS):
            if hand[base + q] > 0:
                held |= np.int64(1) << q
        windows = _WINDOWS_WRAP if wrap else _WINDOWS_FLAT
        positions = _POSITIONS
        for w in range(windows.shape[0]):
            start, length, wm = windows[w, 0], windows[w, 1], windows[w, 2]
            if need & ~wm:
                continue
            missing_r = wm & ~need & ~held
            n_missing = _popcount(missing_r)
            if n_missing > avail:
                continue
            # offsets in the window: rank q sits at (q - start) % 13
            fixed = ((jok_r >> start) | (jok_r << (NUM_RANKS - start))) & _RANKS
            missing = ((missing_r >> start) | (missing_r << (NUM_RANKS - start))) & _RANKS
            have_r = wm & held & ~need
            have = ((have_r >> start) | (have_r << (NUM_RANKS - start))) & _RANKS
            value = positions[start + length] - positions[start]
            # the offsets of the cards held (``spots``) and the indices of those a joker
            # replaces (``pick``), 4 bits each in one integer: no array made per call
            spots = np.int64(0)
            h = 0
            for t in range(length):
                if (have >> t) & 1:
                    spots |= np.int64(t) << (4 * h)
                    h += 1
            for extra in range(min(avail - n_missing, h) + 1):  # jokers in place of natural cards held
                j = _popcount(fixed | missing) + extra
                if not _allows(length - j, j, more):
                    break  # more jokers only take natural cards away
                pick = np.int64(0)
                for i in range(extra):
                    pick |= np.int64(i) << (4 * i)
                while True:  # the subsets of ``extra`` spots, as itertools.combinations lists them
                    subs = np.int64(0)
                    for i in range(extra):
                        subs |= np.int64(1) << ((spots >> (4 * ((pick >> (4 * i)) & 15))) & 15)
                    places = fixed | missing | subs
                    if adjacent or not places & (places >> 1):
                        kept = have & ~subs
                        extra_nat = np.int64(0)
                        for t in range(length):
                            if (kept >> t) & 1:
                                extra_nat |= np.int64(1) << (base + (start + t) % NUM_RANKS)
                        n = _emit(out, n, 1, extra_nat, n_missing + extra, value, suit, start, length, places)
                    i = extra - 1
                    while i >= 0 and (pick >> (4 * i)) & 15 == h - extra + i:
                        i -= 1
                    if i < 0:
                        break
                    pick += np.int64(1) << (4 * i)
                    for u in range(i + 1, extra):
                        pick = (pick & ~(np.int64(15) << (4 * u))) | ((((pick >> (4 * (u - 1))) & 15) + 1) << (4 * u))
    return n


_POSITIONS = np.concatenate(([0], np.cumsum(_POSITION_VALUE))).astype(np.int64)  # worth of positions 0..p-1
_ROWS: list = [np.empty((256, _ROW), np.int64)]


def completion_rows(nat: tuple, jok: tuple, hand: bytes, rules) -> list[list[int]]:
    """``_completion_rows`` of a meld being built (distinct kinds), as lists."""
    natm = jokm = 0
    for k in nat:
        natm |= 1 << k
    for k in jok:
        jokm |= 1 << k
    wrap, adjacent, more = _flags(rules)
    counts = np.frombuffer(hand, np.uint8).astype(np.int64)  # (the kernels' type: one compiled version)
    while True:
        out = _ROWS[0]
        n = _completion_rows(natm, jokm, len(nat), len(jok), counts, wrap, adjacent, more, out)
        if n <= out.shape[0]:
            return out[:n].tolist()
        _ROWS[0] = np.empty((2 * n, _ROW), np.int64)


# ----------------------------------------------------------------------------- a meld on the table


@numba.njit(cache=True)
def _run_legal(start, length, places, wrap, adjacent, more):
    """Whether a run of ``length`` from position ``start`` with jokers at the offsets of mask
    ``places`` is a legal meld (``melds.Meld.problem``)."""
    j = _popcount(places)
    if length < 3 or not _allows(length - j, j, more):
        return False
    if not wrap and start + length - 1 > NUM_RANKS:
        return False
    return adjacent or not places & (places >> 1)


@numba.njit(cache=True)
def table_meld_accepts(run, a, b, c, d, wrap, adjacent, more):
    """What a legal table meld accepts (``game._accepts`` with every card in hand), as
    masks over the 52 kinds: (the natural kinds a lay-off takes, those of them listed twice,
    the kinds a joker laid off stands for, the natural kinds a swap takes). The meld is its
    reading's numbers: a set (``run`` 0: rank a, suits mask b, c jokers standing for the
    lowest missing suits) or a run (``run`` 1: suit a, start b, length c, joker offsets mask
    d). As ``melds.layoffs`` and ``melds.joker_swaps`` list them: a set of fewer than 4
    cards takes each missing suit, or a joker standing for the lowest suit its jokers leave
    missing; a run shorter than 13 takes the card before its first place (if it starts
    above the ace low, or around the corner) and after its last, natural or joker, each if
    the meld it makes is legal; a swap takes the card each joker stands for."""
    takes = twice = jokers = swaps = np.int64(0)
    if run == 0:
        nat = _popcount(b)
        missing = 15 & ~b
        if nat + c < 4:
            for s in range(4):
                if (missing >> s) & 1 and _allows(nat + 1, c, more):
                    takes |= np.int64(1) << (s * NUM_RANKS + a)
            if _allows(nat, c + 1, more):
                seen = 0
                for s in range(4):  # the joker stands for the missing suit after those of the set's jokers
                    if (missing >> s) & 1:
                        if seen == c:
                            jokers |= np.int64(1) << (s * NUM_RANKS + a)
                            break
                        seen += 1
        if c > 0:
            for s in range(4):
                if (missing >> s) & 1:
                    swaps |= np.int64(1) << (s * NUM_RANKS + a)
        return takes, twice, jokers, swaps
    suit, start, length, places = a, b, c, d
    if length < NUM_RANKS:
        if start > 0 or wrap:  # the place before the first: the jokers move up one
            front = (start + NUM_RANKS - 1) % NUM_RANKS
            kind = np.int64(1) << (suit * NUM_RANKS + front)
            if _run_legal(front, length + 1, places << 1, wrap, adjacent, more):
                takes |= kind
            if _run_legal(front, length + 1, (places << 1) | 1, wrap, adjacent, more):
                jokers |= kind
        if wrap or start + length <= NUM_RANKS:  # the place after the last
            kind = np.int64(1) << (suit * NUM_RANKS + (start + length) % NUM_RANKS)
            if _run_legal(start, length + 1, places, wrap, adjacent, more):
                twice |= takes & kind
                takes |= kind
            if _run_legal(start, length + 1, places | (np.int64(1) << length), wrap, adjacent, more):
                jokers |= kind
    for t in range(length):
        if (places >> t) & 1:
            swaps |= np.int64(1) << (suit * NUM_RANKS + (start + t) % NUM_RANKS)
    return takes, twice, jokers, swaps


@numba.njit(cache=True)
def takes_joker_after(run, a, b, c, d, kind, swap, wrap, adjacent, more):
    """Whether a legal table meld (its numbers, as ``table_meld_accepts`` reads them) takes
    a joker laid off once the natural ``kind`` is laid off on it (``swap`` false) or has
    taken the place of its joker standing for that kind (``swap`` true): what a player who
    owes a joker taken by a swap needs of the table after such a move."""
    suit, rank = kind // NUM_RANKS, kind % NUM_RANKS
    if run == 0:
        return table_meld_accepts(0, a, b | (np.int64(1) << suit), c - 1 if swap else c, 0, wrap, adjacent,
                                  more)[2] != 0
    start, length, places = b, c, d
    if swap:
        t = (rank - start + NUM_RANKS) % NUM_RANKS
        return table_meld_accepts(1, a, start, length, places & ~(np.int64(1) << t), wrap, adjacent, more)[2] != 0
    front = (start + NUM_RANKS - 1) % NUM_RANKS
    if rank == front and (start > 0 or wrap):  # laid before the first place: the jokers move up one
        return table_meld_accepts(1, a, front, length + 1, places << 1, wrap, adjacent, more)[2] != 0
    return table_meld_accepts(1, a, start, length + 1, places, wrap, adjacent, more)[2] != 0


def self_check() -> str:
    """'' when the kernels compile (or load from numba's cache) and agree with the Python
    search on a few hands (numbers and arrangements); else what went wrong."""
    from rummy_env.romme import melds
    from rummy_env.romme.cards import counts_of
    from rummy_env.romme.rules import RommeRules

    rng = np.random.default_rng(0)
    hands = counts_of(np.argsort(rng.random((24, 110)), axis=1)[:, :14])
    hands[0] = melds.parse_hand("AH 2H 3H 4H 5H 5C 5D JK JK KS KD KC QH QH")
    hands[1] = melds.parse_hand("6C 6D AH 3H 4H 6S TS JK")
    try:
        for rules in (RommeRules(), RommeRules(aces_around_the_corner=True, adjacent_jokers=True,
                                               naturals_per_meld="more_than_jokers", come_out_needs_run=True)):
            want = [melds._Search(h, rules).best()[0] for h in hands]
            if least_penalty(hands, rules).tolist() != want:
                return "they disagree with the Python search"
            keep = 1
            want_can = [melds._python_can_come_out(h, rules, None, keep) for h in hands]
            if can_come_out(hands, rules, np.full(len(hands), -1), keep).tolist() != want_can:
                return "they disagree with the Python search"
            for h in hands[:6]:
                if (come_out(h, rules, None, keep) != melds._python_come_out(h, rules, None, keep)
                        or arrangement(h, rules, 0, False, None, 0) != melds._Search(h, rules).arrangement()):
                    return "they disagree with the Python search"
        for nat, jok, hand in _pending_samples(rng):
            for rules in (RommeRules(), RommeRules(aces_around_the_corner=True, adjacent_jokers=True,
                                                   naturals_per_meld="more_than_jokers")):
                if next_cards(nat, jok, hand, rules) != melds._python_next_cards(nat, jok, hand, rules):
                    return "they disagree with the Python search on the meld being built"
                if nat or jok:
                    if melds._completions_from_rows(completion_rows(nat, jok, hand, rules)) != \
                            melds._python_completions(nat, jok, hand, rules):
                        return "they disagree with the Python search on the meld being built"
    except Exception as exc:  # numba cannot compile or cache here
        return f"{type(exc).__name__}: {exc}"
    return ""


def _pending_samples(rng: np.random.Generator) -> list[tuple[tuple, tuple, bytes]]:
    """A few melds being built, with the rest of a hand (biased to one suit, for runs)."""
    out = []
    for _ in range(12):
        suit = int(rng.integers(4))
        hand = np.zeros(NUM_KINDS, np.uint8)
        for _ in range(int(rng.integers(3, 14))):
            k = suit * NUM_RANKS + int(rng.integers(NUM_RANKS)) if rng.random() < 0.6 else int(rng.integers(NUM_CARDS))
            hand[k] = min(hand[k] + 1, 2)
        hand[JOKER] = int(rng.integers(0, 4))
        held = [int(k) for k in np.flatnonzero(hand[:NUM_CARDS])]
        nat = tuple(sorted(held[:int(rng.integers(0, 3))]))
        for k in nat:
            hand[k] -= 1
        jok = ()
        if hand[JOKER] and rng.random() < 0.5:
            jok = (suit * NUM_RANKS + int(rng.integers(NUM_RANKS)),)
            if jok[0] in nat:
                jok = ()
            else:
                hand[JOKER] -= 1
        out.append((nat, jok, hand.tobytes()))
    return out


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
