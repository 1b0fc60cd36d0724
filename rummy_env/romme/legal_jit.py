"""Rommé's legal actions as one compiled (numba) call: the game's legal mask, its
"can the turn still end" predicate and the solver's questions, as loops.

Why: the mask asks, for every card that could go into the meld being built, every lay-off
and swap, whether the turn can still end (``rummy_env.romme.game``'s module docstring);
in Python that is a few hundred small operations per step around the solver's kernels
(the completions listed and made into objects, each question built, hashed, cached and
batched), about half of a step of ``romme_v0.raw_env()``. Here the same questions are asked
in the same terms by one loop that calls the solver's own compiled search
(``rummy_env.romme.melds_jit``: ``_completion_rows``, ``_next_cards``, ``_hand``, and
``table_meld_accepts`` for what the table takes) with scratch arrays kept between calls,
keeps the solver's answers per rules (as the Python mask's ``_QUERY_CACHE``), and stops at
an action's first question that holds. ``_draw_kernel`` and ``_play_kernel`` take the
game's arguments and write the legal ids into the scratch (and, for
``RommeState.legal_mask``, the int8 mask too: one call makes both); ``_draw_into`` and
``_play_into``, which they call, read the hand from the scratch and write the legal ids
into a given array (the vector engine calls them).

It is ``RommeState._legal_actions`` (reference=False) line for line: the same
completions (per use of cards, the first of its most valuable readings), the same
questions, the same answers; tests compare the two in every position of random play
under the presets and the options that change melds or the turn. ``RommeState`` uses it
when the solver's kernels are in use (numba installed, not switched off with
``RUMMY_ENV_NO_NUMBA=1``) and it agrees with the Python mask on every position of a few
random hands (``game.LEGAL_KERNEL``, checked once per process); otherwise the Python mask.
"""

from __future__ import annotations

import threading
from typing import Optional

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from rummy_env.core.compiled import refresh_cache
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS
from rummy_env.romme import melds_jit as K
from rummy_env.romme.melds_jit import _b, _i
from rummy_env.romme.cards import FIRST_JOKER, JOKER, KINDS, NUM_KINDS, TWO_JOKERS
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, MAX_TABLE_MELDS, PICK, SWAP, TAKE_DISCARD, Phase,
    RommeState,
    _table_arrays,
)
from rummy_env.romme.rules import RommeRules

# The scratch, kept between calls in one int64 array (one argument to pass; no allocation
# per question): the call's stamp, the candidates' de-duplication (all -1 between calls),
# the completion rows, the state map and the table of the searches of hands of up to
# _TAB_ROWS states, the hands the questions ask about, the completions' keys. The kernels
# pass the scratch itself and offsets into it, not views of it: every array a compiled
# call takes or makes is reference counted (an atomic operation each way), which was half
# of the mask's time when each question passed a tuple of nine views.
_TAB_ROWS = 1 << 15
_MAX_CONTEXTS = 12  # a question's contexts: run laid (2) x card used (2) x cards left (keep <= 2: 3)
_ROWS = 256  # completion rows the buffer holds (the kernel makes room for more when a meld has more)
STAMP_AT = 0
WHERE_AT = 1
ROWS_AT = WHERE_AT + K._MAX_CODES
SMAP_AT = ROWS_AT + _ROWS * 8
TAB_AT = SMAP_AT + _TAB_ROWS * 2
RESTS_AT = TAB_AT + _TAB_ROWS * _MAX_CONTEXTS * 4  # three hands of counts: what a question asks about
KEYS_AT = RESTS_AT + 3 * NUM_KINDS  # the completions' keys and those kept, for up to _ROWS rows
KEPT_AT = KEYS_AT + _ROWS
HAND_AT = KEPT_AT + _ROWS  # the hand's kind counts (the mask's kernels move cards in and out of it)
PEN_AT = HAND_AT + NUM_KINDS  # each kind's penalty (``penalty_values``): what the solver weighs
ACC_AT = PEN_AT + NUM_KINDS  # what each table slot accepts (``_accepts``): 4 masks a slot, by mask
LEGAL_AT = ACC_AT + 4 * MAX_TABLE_MELDS  # the legal ids ``_draw_kernel`` and ``_play_kernel`` write
MAX_LEGAL = 4 + 3 * NUM_KINDS + 4 * NUM_CARDS * MAX_TABLE_MELDS  # more than a position can have
SCRATCH_SIZE = LEGAL_AT + MAX_LEGAL
REST0, REST1, REST2 = RESTS_AT, RESTS_AT + NUM_KINDS, RESTS_AT + 2 * NUM_KINDS
# The solver's answers under one set of rules, kept between calls (a question comes back in
# later positions, as the Python mask's ``_QUERY_CACHE`` knows): rows of (key, key, key,
# answer + 1) in buckets of 4 (a question is looked for in its bucket only); a new answer
# goes first in its bucket and the bucket's oldest is forgotten, so the answers are never
# all forgotten at once. ``KNOWN_ROWS`` by default; the vector engine asks for more rows
# for a large batch (``_rules_of``).
BUCKET = 4
KNOWN_ROWS = 1 << 17

# ``flags``: the rules' numbers the kernels read, one tuple
C_WRAP, C_ADJACENT, C_MORE, C_NO_DISCARD, C_POINTS, C_NEEDS_RUN = range(6)

# Each thread's scratch (made on its first call): the kernels write the legal ids into it
# and the caller reads them after the call, so two threads (a server's tables, moved in a
# pool of threads) must never share one.
_LOCAL = threading.local()
_RULES: dict = {}  # id(rules) -> (rules, flags, penalties, the solver's answers so far)


def thread_scratch() -> np.ndarray:
    """This thread's scratch for the kernels (``_LOCAL``): every call from Python passes it."""
    scratch = getattr(_LOCAL, "scratch", None)
    if scratch is None:
        scratch = _LOCAL.scratch = np.zeros(SCRATCH_SIZE, np.int64)
        scratch[WHERE_AT:ROWS_AT] = -1
    return scratch


def _rules_of(rules: RommeRules, rows: int = 0) -> tuple:
    """What the kernels read of ``rules``, and the solver's answers found under them (a
    table of ``KNOWN_ROWS`` rows, or at least ``rows``, a power of two: made larger, and
    emptied, when asked for more than it holds)."""
    got = _RULES.get(id(rules))  # by identity (no hashing), the rules held
    if got is None or got[0] is not rules or got[3].shape[0] < rows:
        if got is None and len(_RULES) >= 8:  # many rule sets in one process (tests): start afresh
            _RULES.clear()
        flags = (int(rules.aces_around_the_corner), int(rules.adjacent_jokers),
                 int(rules.naturals_per_meld == "more_than_jokers"), int(rules.go_out_without_discard),
                 int(rules.come_out_points), int(rules.come_out_needs_run))
        size = 1 << (max(rows, KNOWN_ROWS) - 1).bit_length()
        # the penalties as the kernels' own type (``melds_jit._penalties``: one compiled search)
        got = _RULES[id(rules)] = (rules, flags, K._penalties(rules), np.zeros((size, 4), np.int64))
    return got[1:]


_NO_MASK = np.zeros(0, np.int8)


def legal_actions(state: RommeState, mask: Optional[np.ndarray] = None) -> list[int]:
    """``state._legal_actions(reference=False)``, compiled (the state is not changed); with
    ``mask`` (int8, one entry per action, zeros) the same call also sets the legal entries
    of ``mask`` to 1 (``RommeState.legal_mask``). The kernels write the ids into the
    scratch and return how many: an array returned by a compiled call costs more than the
    call's other arguments together."""
    if mask is None:
        mask = _NO_MASK
    phase = state.phase
    if phase == Phase.OVER:
        return []
    rules = state.rules
    got = _RULES.get(id(rules))
    if got is None or got[0] is not rules:
        _rules_of(rules)
        got = _RULES[id(rules)]
    scratch = thread_scratch()
    p = state.current_player
    hand = state.hands[p]
    came_out = state.came_out[p]
    if phase == Phase.DRAW:
        pile = state.discard_pile
        n = _draw_kernel(bytes(hand), KINDS[pile[-1]] if pile else -1, len(state.stock) > 0, came_out,
                         not came_out and rules.take_discard_before_out == "meld", got[1], got[2], scratch, got[3],
                         mask)
    else:
        codes = _table_arrays(state._table_view or state._shown_table())[0]
        taken, swapped, pending = state.taken_card, state.swapped_joker, state.pending
        turn = (came_out, KINDS[taken] if state.taken_held else -1, state.must_meld_taken,
                swapped is not None and swapped in hand, state.turn_points, state.turn_melds, state.turn_run)
        if pending:
            nat = bytes([k for c, k in pending if c < FIRST_JOKER])
            jok = bytes([k for c, k in pending if c >= FIRST_JOKER])
        else:
            nat = jok = b""
        n = _play_kernel(bytes(hand), nat, jok, turn, codes, got[1], got[2], scratch, got[3], mask)
    return scratch[LEGAL_AT:LEGAL_AT + n].tolist()


# ----------------------------------------------------------------------------- the kernels


@numba.njit(cache=True)
def _lowest(mask):
    """The lowest kind of a nonzero mask of kinds."""
    return np.int64(trailing_zeros(np.uint64(mask)))


@numba.njit(cache=True)
def _takes_joker(run, a, b, c, d, flags):
    """Whether a joker may be laid off on the meld of a completion's reading (``melds.layoffs``
    lists a joker): a set (rank a, suits mask b, c jokers) of fewer than 4 cards, or a run
    (suit a, start b, length c, joker offsets mask d) shorter than 13 at an end it may grow
    to, the meld made legal (the natural-card rule, jokers side by side)."""
    wrap, adjacent, more = flags[C_WRAP], flags[C_ADJACENT], flags[C_MORE]
    if not run:
        nat = K._popcount(b)
        return nat + c < 4 and K._allows(nat, c + 1, more)
    if c >= NUM_RANKS:
        return False
    if b > 0 or wrap:  # before the first place: the jokers move up one
        places = (d << 1) | 1
        j = K._popcount(places)
        if K._allows(c + 1 - j, j, more) and (adjacent or not places & (places >> 1)):
            return True
    if wrap or b + c <= NUM_RANKS:  # after the last place
        places = d | (np.int64(1) << c)
        j = K._popcount(places)
        if K._allows(c + 1 - j, j, more) and (adjacent or not places & (places >> 1)):
            return True
    return False


@numba.njit(cache=True)
def _bucket(low, high, meta, rows):
    """The first row of a question's bucket among ``rows`` answer rows (a power of two)."""
    h = (np.uint64(low) * np.uint64(0x9E3779B97F4A7C15)) ^ (np.uint64(high) * np.uint64(0xC2B2AE3D27D4EB4F)) \
        ^ (np.uint64(meta) * np.uint64(0x165667B19E3779F9))
    return (np.int64(h >> np.uint64(32)) & (rows // BUCKET - 1)) * BUCKET


@numba.njit(cache=True)
def _solves(scratch, at, target, need_run, need, keep, flags, known):
    """Whether melds from the hand ``scratch[at:at + 53]`` can be worth ``target`` (none if
    <= 0), hold a run if ``need_run``, use a card of kind ``need`` (-1: any) and leave
    ``keep`` cards (``melds.rest_can_come_out``): answered on the spot where no search is
    needed, else from the answers kept, else by the solver's search (``_search``)."""
    if target <= 0 and not need_run and need < 0:
        size = 0
        for k in range(NUM_KINDS):
            size += scratch[at + k]
        return size >= keep
    if need >= 0 and scratch[at + (JOKER if need == TWO_JOKERS else need)] < (2 if need == TWO_JOKERS else 1):
        return False
    points = max(0, target)
    low = high = np.int64(0)  # the question as a key: two bits a kind, then the jokers and the numbers
    for k in range(NUM_CARDS // 2):
        low |= scratch[at + k] << (2 * k)
        high |= scratch[at + k + NUM_CARDS // 2] << (2 * k)
    meta = scratch[at + JOKER] | (need + 1) << 3 | keep << 9 | (1 if need_run else 0) << 11 | points << 12
    base = _bucket(low, high, meta, known.shape[0])
    for r in range(base, base + BUCKET):
        if known[r, 3] == 0:  # the bucket's rows are filled first to last
            break
        if known[r, 0] == low and known[r, 1] == high and known[r, 2] == meta:
            return known[r, 3] == 2
    return _search(scratch, at, points, need_run, need, keep, flags, known, base, low, high, meta)


@numba.njit(cache=True, _nrt=False)  # (no array made or kept)
def _most_worth(scratch, at):
    """No less than what melds from the hand ``scratch[at:at + 53]`` can be worth together:
    each natural card that may lie in some meld of the hand at its rank's value (an ace 11,
    the most it is worth in a meld), each joker at 11 (an ace's). A card lies in a meld of
    three or more only if three of the meld's places that hold it, side by side (a set's:
    any three), are held or jokers: so a card counts where two more suits of its rank, or
    the other two places of a window of three of its suit around it (around the corner
    too), are held or made up by the hand's jokers. Why: many questions of a player who has
    not come out ask for more points than the hand holds in melds at all, and this answers
    them without the solver's search (``_search``)."""
    jokers = scratch[at + JOKER]
    held = K._held(scratch, at)
    total = jokers * K._RANK_VALUE[0]  # (an ace's)
    look = held
    while look:
        k = _lowest(look)
        look &= look - 1
        suit, rank = k // NUM_RANKS, k % NUM_RANKS
        meldable = K._popcount(held & (np.int64(K._SAME_RANK) << rank)) - 1 + jokers >= 2
        if not meldable:
            lane = (held >> (suit * NUM_RANKS)) & K._RANKS
            for first in range(rank - 2, rank + 1):
                count = 0
                for place in range(first, first + 3):
                    count += (lane >> (place % NUM_RANKS)) & 1
                if count + jokers >= 3:
                    meldable = True
                    break
        if meldable:
            total += scratch[at + k] * K._RANK_VALUE[rank]
    return total


@numba.njit(cache=True)
def _search(scratch, at, points, need_run, need, keep, flags, known, base, low, high, meta):
    """``_solves`` of a question not answered before: the solver's search (most value per
    context), unless the hand's melds cannot be worth the points at all (``_most_worth``);
    the answer is kept first in its bucket (row ``base`` on), the oldest forgotten."""
    if _most_worth(scratch, at) < points:
        holds = False
    else:
        holds = _searched(scratch, at, points, need_run, need, keep, flags)
    for r in range(base + BUCKET - 1, base, -1):
        known[r, 0], known[r, 1], known[r, 2], known[r, 3] = known[r - 1, 0], known[r - 1, 1], known[r - 1, 2], \
            known[r - 1, 3]
    known[base, 0], known[base, 1], known[base, 2], known[base, 3] = low, high, meta, 2 if holds else 1
    return holds


@numba.njit(cache=True)
def _searched(scratch, at, points, need_run, need, keep, flags):
    """The solver's search of ``_search``: whether melds from the hand ``scratch[at:at + 53]``
    reach ``points`` under the question's conditions."""
    rest = scratch[at:at + NUM_KINDS]
    scratch[STAMP_AT] += 1  # the kept map's states stamped by earlier calls count as not seen
    sid = scratch[STAMP_AT]
    smap = scratch[SMAP_AT:TAB_AT].reshape((_TAB_ROWS, 2))
    if K._space(rest) > smap.shape[0]:  # more states than the kept map holds: one of its own
        smap = np.zeros((K._space(rest), 2), np.int64)
        sid = 1
    got = K._hand(rest, flags[C_WRAP] != 0, flags[C_ADJACENT] != 0, flags[C_MORE] != 0,
                  scratch[PEN_AT:PEN_AT + NUM_KINDS], points, need_run, need, keep, _b(True), sid, smap,
                  scratch[TAB_AT:RESTS_AT].reshape((_TAB_ROWS, _MAX_CONTEXTS, 4)), scratch[WHERE_AT:ROWS_AT])
    top, full, t = got[0], got[1], got[2]
    return t[top, full, K.T_CHOICE] != K.NONE and t[top, full, K.T_VAL] >= points


@numba.njit(cache=True)
def _completions(natm, jokm, nn, nj, hand, flags, scratch):
    """The completions of the meld being built (``melds._completions``): the compiled rows,
    and the indices of those kept (per use of cards, the first of its most valuable
    readings). Returns (rows, kept), in the scratch where they fit."""
    rows = scratch[ROWS_AT:SMAP_AT].reshape((_ROWS, 8))
    keys = scratch[KEYS_AT:KEPT_AT]
    kept = scratch[KEPT_AT:KEPT_AT + _ROWS]
    n = K._completion_rows(natm, jokm, nn, nj, hand, flags[C_WRAP] != 0, flags[C_ADJACENT] != 0,
                           flags[C_MORE] != 0, rows)
    if n > rows.shape[0]:
        rows = np.empty((n, 8), np.int64)
        keys = np.empty(n, np.int64)
        kept = np.empty(n, np.int64)
        n = K._completion_rows(natm, jokm, nn, nj, hand, flags[C_WRAP] != 0, flags[C_ADJACENT] != 0,
                               flags[C_MORE] != 0, rows)
    for i in range(n):
        keys[i] = (rows[i, 1] << 4) | (rows[i, 2] << 1) | rows[i, 0]  # extra kinds, extra jokers, run
    m = 0
    if n <= 64:
        for i in range(n):
            best = True
            for j in range(n):
                if keys[j] == keys[i] and (rows[j, 3] > rows[i, 3] or (j < i and rows[j, 3] == rows[i, 3])):
                    best = False
                    break
            if best:
                kept[m] = i
                m += 1
    else:
        order = np.argsort(keys[:n], kind="mergesort")  # stable: a key's rows in their order
        i = 0
        while i < n:
            first = order[i]
            j = i + 1
            while j < n and keys[order[j]] == keys[first]:
                if rows[order[j], 3] > rows[first, 3]:
                    first = order[j]
                j += 1
            kept[m] = first
            m += 1
            i = j
    return rows, kept[:m]


@numba.njit(cache=True)
def _plan_ends(value, run, extra_jokers, used, plan, rrun, ra, rb, rc, rd, out, tk, must, debt, turn_points,
               turn_melds, need_run0, keep_base, slots_joker, flags, scratch, known):
    """Whether the turn can end by one plan (``_can_end``): the hand left after it in
    ``scratch[REST0:]``; the meld it finishes worth ``value`` (a run if ``run``; it takes
    ``extra_jokers`` jokers from the hand, the natural kinds of mask ``used``; ``plan``:
    there is one, read (``rrun``, ``ra`` .. ``rd``)); the questions asked in order, the
    first that holds answers."""
    if out:
        target, need_run = 0, False
    else:
        target, need_run = flags[C_POINTS] - turn_points - value, need_run0 and not run
        if not plan and turn_melds == 0:
            target = max(target, 0)
    t = tk
    need = -1
    # a joker played leaves the hand as the one owed first, then the one taken (``_take``)
    if t >= 0 and ((t < NUM_CARDS and (used >> t) & 1) or (t == JOKER and extra_jokers >= (2 if debt else 1))):
        t = -1  # the taken card went first into this meld
    elif t >= 0 and must:
        need = t
    for variant in range(2):
        at, need_v = REST0, need
        if not debt or extra_jokers > 0:  # no joker to pay back: one variant
            if variant == 1:
                break
        elif variant == 0:  # the joker taken by a swap laid off on some meld
            if scratch[REST0 + JOKER] < 1 or not (slots_joker or (plan and _takes_joker(rrun != 0, ra, rb, rc, rd,
                                                                                         flags))):
                continue
            at = REST1
            for k in range(NUM_KINDS):
                scratch[REST1 + k] = scratch[REST0 + k]
            scratch[REST1 + JOKER] -= 1
        elif t == JOKER:  # or melded, and then the taken joker too
            if need < 0:  # or not: it stays, and another card is discarded
                for k in range(NUM_KINDS):
                    scratch[REST2 + k] = scratch[REST0 + k]
                scratch[REST2 + JOKER] -= 1
                if _solves(scratch, _i(REST2), target, need_run, _i(JOKER), _i(1), flags, known):
                    return True
            return _solves(scratch, _i(REST0), target, need_run, _i(TWO_JOKERS), keep_base, flags, known)
        else:  # or melded
            if need >= 0:
                break
            need_v = JOKER
        if t >= 0 and scratch[at + t] >= 1:
            held = scratch[at + t]
            if need_v != t:  # the taken card stays in hand: another card is discarded
                for k in range(NUM_KINDS):
                    scratch[REST2 + k] = scratch[at + k]
                scratch[REST2 + t] = 0
                if need_v < 0 or scratch[REST2 + need_v] >= 1:
                    if _solves(scratch, _i(REST2), target, need_run, need_v, _i(max(0, 2 - held)), flags, known):
                        return True
            if need_v < 0 or need_v == t:  # a card of its kind is melded (the taken one first)
                if _solves(scratch, at, target, need_run, t, keep_base, flags, known):
                    return True
        elif _solves(scratch, at, target, need_run, need_v, keep_base, flags, known):
            return True
    return False


@numba.njit(cache=True)
def _can_end(natm, jokm, nn, nj, out, tk, must, debt, turn_points, turn_melds, turn_run, slots_joker, flags, scratch,
             known):
    """Whether the turn can still end (``RommeState._queries`` and ``_evaluate``): the hand
    (``scratch[HAND_AT:]``) the kind counts not in the meld being built (natural kinds
    ``natm``, jokers standing for ``jokm``, ``nn`` and ``nj`` of them); ``tk`` the kind of
    the card taken from the pile if it is in the hand (-1 none), ``must`` it must be melded,
    ``debt`` a joker taken by a swap is in the hand; each plan (``_plan_ends``) in order,
    the first that holds answers."""
    keep_base = 0 if flags[C_NO_DISCARD] else 1
    need_run0 = flags[C_NEEDS_RUN] != 0 and not turn_run
    if natm == 0 and jokm == 0:  # one plan: no meld to finish
        if not debt and not (must and tk >= 0) and (out or turn_melds == 0):
            size = 0
            for k in range(NUM_KINDS):
                size += scratch[HAND_AT + k]
            if size - (1 if tk >= 0 else 0) >= 1:
                return True
        for k in range(NUM_KINDS):
            scratch[REST0 + k] = scratch[HAND_AT + k]
        zero, no = _i(0), _b(False)
        return _plan_ends(zero, no, zero, zero, no, zero, zero, zero, zero, zero, out, tk, must, debt, turn_points,
                          turn_melds, need_run0, keep_base, slots_joker, flags, scratch, known)
    rows, kept = _completions(natm, jokm, nn, nj, scratch[HAND_AT:HAND_AT + NUM_KINDS], flags, scratch)
    for c in range(kept.shape[0]):
        r = kept[c]
        extra = rows[r, 1]
        for k in range(NUM_KINDS):
            scratch[REST0 + k] = scratch[HAND_AT + k]
        for k in range(NUM_CARDS):
            if (extra >> k) & 1:
                scratch[REST0 + k] -= 1
        scratch[REST0 + JOKER] -= rows[r, 2]
        if _plan_ends(rows[r, 3], rows[r, 0] != 0, rows[r, 2], natm | extra, _b(True), rows[r, 0],
                      rows[r, 4], rows[r, 5], rows[r, 6], rows[r, 7], out, tk, must, debt, turn_points, turn_melds,
                      need_run0, keep_base, slots_joker, flags, scratch, known):
            return True
    return False


@numba.njit(cache=True, _nrt=False)  # (no array made or kept: no reference counts, ``melds_jit``)
def _accepts(codes, flags, scratch):
    """What each table slot accepts (``melds_jit.table_meld_accepts`` of its meld's numbers),
    into ``scratch[ACC_AT:]`` (mask ``j`` of slot ``s`` at ``ACC_AT + MAX_TABLE_MELDS * j +
    s``); returns whether any slot takes a joker."""
    joker = False
    for slot in range(codes.shape[0]):
        m0, m1, m2, m3 = K.table_meld_accepts(codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3],
                                              codes[slot, 4], flags[C_WRAP] != 0, flags[C_ADJACENT] != 0,
                                              flags[C_MORE] != 0)
        scratch[ACC_AT + slot] = m0
        scratch[ACC_AT + MAX_TABLE_MELDS + slot] = m1
        scratch[ACC_AT + 2 * MAX_TABLE_MELDS + slot] = m2
        scratch[ACC_AT + 3 * MAX_TABLE_MELDS + slot] = m3
        joker |= m2 != 0
    return joker


@numba.njit(cache=True, _nrt=False)  # (no array made or kept)
def _set_hand(cards, pen, scratch):
    """The hand's kind counts (physical ids ``cards``) and the penalties into the scratch."""
    for k in range(NUM_KINDS):
        scratch[HAND_AT + k] = 0
        scratch[PEN_AT + k] = pen[k]
    for c in cards:
        scratch[HAND_AT + (c % NUM_CARDS if c < FIRST_JOKER else JOKER)] += 1


@numba.njit(cache=True, _nrt=False)  # (no array made or kept)
def _mark(scratch, n, mask):
    """The ``n`` legal ids in ``scratch[LEGAL_AT:]`` set to 1 in ``mask`` (none if it is empty)."""
    if mask.shape[0]:
        for i in range(n):
            mask[scratch[LEGAL_AT + i]] = 1
    return n


@numba.njit(cache=True)
def _draw_kernel(cards, top, stock, came_out, must, flags, pen, scratch, known, mask):
    """The legal draws (``RommeState._legal_actions`` in the draw phase, ``_can_take``),
    into ``scratch[LEGAL_AT:]`` and ``mask`` (``_mark``); returns how many."""
    _set_hand(cards, pen, scratch)
    return _mark(scratch, _draw_into(top, stock, came_out, must, flags, scratch, known, scratch[LEGAL_AT:LEGAL_AT + 2]),
                 mask)


@numba.njit(cache=True)
def _draw_into(top, stock, came_out, must, flags, scratch, known, legal):
    """``_draw_kernel`` with the hand and the penalties already in the scratch
    (``HAND_AT``, ``PEN_AT``): the legal ids into ``legal``; returns how many. The table is
    not read: a draw owes no joker, so what its melds accept does not decide whether the
    turn can end (``_plan_ends``)."""
    n = 0
    if stock:
        legal[n] = DRAW_STOCK
        n += 1
    if top >= 0:
        scratch[HAND_AT + top] += 1
        zero, no = _i(0), _b(False)
        ok = _can_end(zero, zero, zero, zero, _b(came_out), top, _b(must), no, zero, _i(1 if must else 0), no, no, flags,
                      scratch, known)
        scratch[HAND_AT + top] -= 1
        if ok:
            legal[n] = TAKE_DISCARD
            n += 1
    return n


@numba.njit(cache=True)
def _play_kernel(cards, nat, jok, turn, codes, flags, pen, scratch, known, mask):
    """The legal actions of the play phase (``RommeState._legal_actions``), increasing,
    into ``scratch[LEGAL_AT:]`` and ``mask`` (``_mark``); returns how many.
    ``turn``: (came out, the kind of the card taken from the pile if in the hand or -1, it
    must be melded, a joker taken by a swap is in the hand, points, melds and a run laid
    this turn before coming out)."""
    _set_hand(cards, pen, scratch)
    natm = np.int64(0)
    jokm = np.int64(0)
    for k in nat:
        natm |= np.int64(1) << k
    for k in jok:
        jokm |= np.int64(1) << k
    return _mark(scratch, _play_into(natm, jokm, len(nat), len(jok), turn, codes, flags, scratch, known,
                                     scratch[LEGAL_AT:LEGAL_AT + MAX_LEGAL]), mask)


@numba.njit(cache=True)
def _play_into(natm, jokm, nn, nj, turn, codes, flags, scratch, known, legal):
    """``_play_kernel`` with the hand and the penalties already in the scratch (``HAND_AT``,
    ``PEN_AT``) and the meld being built as masks (``nn`` and ``nj`` cards): the legal ids
    into ``legal``, increasing (each kind of move in id order); returns how many."""
    out_, tk, must, debt, turn_points, turn_melds, turn_run = turn
    zero, no, yes = _i(0), _b(False), _b(True)  # not literals: one compiled _can_end (``_i``)
    pending = nn + nj > 0
    # what the table's slots accept is read by the lay-offs and swaps (out, nothing pending)
    # and by a joker owed (``_plan_ends``) only: the table is not read for the other positions
    slots_joker = _accepts(codes, flags, scratch) if debt or (out_ and not pending) else False
    slots = codes.shape[0]
    no_discard = flags[C_NO_DISCARD] != 0
    size = 0
    for k in range(NUM_KINDS):
        size += scratch[HAND_AT + k]
    held = K._held(scratch, HAND_AT)
    n = 0
    # commit: the pending meld's best reading
    if pending:
        rows, kept = _completions(natm, jokm, nn, nj, np.zeros(NUM_KINDS, np.int64), flags, scratch)
        if len(kept):
            best = kept[0]  # the most valuable; among equals the first in ``_completions``' order (a set first)
            for i in kept[1:]:
                if rows[i, 3] > rows[best, 3] or (rows[i, 3] == rows[best, 3] and rows[i, 0] < rows[best, 0]):
                    best = i
            value, run = rows[best, 3], rows[best, 0] != 0
            after_out = out_ or (turn_points + value >= flags[C_POINTS]
                                 and (flags[C_NEEDS_RUN] == 0 or turn_run or run))
            if size == 0:
                if no_discard and after_out:
                    legal[n] = COMMIT
                    n += 1
            else:
                takes = slots_joker or _takes_joker(run, rows[best, 4], rows[best, 5], rows[best, 6], rows[best, 7],
                                                    flags)
                if _can_end(zero, zero, zero, zero, after_out, tk, must, debt and nj == 0,
                            0 if after_out else turn_points + value, turn_melds + 1, turn_run or run, takes, flags,
                            scratch, known):
                    legal[n] = COMMIT
                    n += 1
    # discard: a kind held other than the card taken from the pile
    if not pending and not debt and not (must and tk >= 0) and (out_ or turn_melds == 0):
        for k in range(NUM_KINDS):
            if scratch[HAND_AT + k] - (1 if k == tk else 0) > 0:
                legal[n] = DISCARD + k
                n += 1
    # cards into the meld being built, when the hand can come out at all
    can_meld = True
    if not out_ and not pending:
        can_meld = _can_end(zero, zero, zero, zero, no, tk, must, no, turn_points, max(turn_melds, 1),
                            turn_run, slots_joker, flags, scratch, known)
    if can_meld:
        picks, jokers_as = np.int64(0), np.int64(0)
        if K._popcount(natm | jokm) == nn + nj:  # distinct kinds (else nothing finishes the meld)
            picks, jokers_as = K._next_cards(natm, jokm, nn, nj, scratch[HAND_AT:HAND_AT + NUM_KINDS],
                                             flags[C_WRAP] != 0, flags[C_ADJACENT] != 0, flags[C_MORE] != 0)
        while picks:
            k = _lowest(picks)
            picks &= picks - 1
            scratch[HAND_AT + k] -= 1
            ok = _can_end(natm | (np.int64(1) << k), jokm, nn + 1, nj, out_, -1 if tk == k else tk, must, debt,
                          turn_points, turn_melds, turn_run, slots_joker, flags, scratch, known)
            scratch[HAND_AT + k] += 1
            if ok:
                legal[n] = PICK + k
                n += 1
        if jokers_as:  # the joker put down: the one owed if any (paid), else the one taken if any
            scratch[HAND_AT + JOKER] -= 1
            tk2 = -1 if tk == JOKER and not debt else tk
            while jokers_as:
                k = _lowest(jokers_as)
                jokers_as &= jokers_as - 1
                if _can_end(natm, jokm | (np.int64(1) << k), nn, nj + 1, out_, tk2, must, no, turn_points,
                            turn_melds, turn_run, slots_joker, flags, scratch, known):
                    legal[n] = JOKER_AS + k
                    n += 1
            scratch[HAND_AT + JOKER] += 1
    # lay-offs and swaps: once out, nothing pending (all lay-offs, then joker lay-offs, then
    # swaps: the action ids increase). A joker owed must still find a place after the move:
    # whether a table meld takes a joker is asked of the table as the move leaves it
    if out_ and not pending:
        lay, joker_at, swap_at = ACC_AT, ACC_AT + 2 * MAX_TABLE_MELDS, ACC_AT + 3 * MAX_TABLE_MELDS
        taking = 0
        for slot in range(slots):
            taking += scratch[joker_at + slot] != 0
        for slot in range(slots):
            others = taking - (scratch[joker_at + slot] != 0) > 0
            ks = scratch[lay + slot] & held
            while ks:
                k = _lowest(ks)
                ks &= ks - 1
                if size == 1:  # the last card: it goes out without a discard, where the rules allow it
                    ok = no_discard
                else:
                    after = slots_joker
                    if debt:
                        after = others or K.takes_joker_after(
                            codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3], codes[slot, 4], k,
                            False, flags[C_WRAP] != 0, flags[C_ADJACENT] != 0, flags[C_MORE] != 0)
                    scratch[HAND_AT + k] -= 1
                    ok = _can_end(zero, zero, zero, zero, out_, -1 if tk == k else tk, must, debt,
                                  turn_points, turn_melds, turn_run, after, flags, scratch, known)
                    scratch[HAND_AT + k] += 1
                if ok:  # once, though a run of 12 takes its missing rank at both ends
                    legal[n] = LAYOFF + NUM_CARDS * slot + k
                    n += 1
        if scratch[HAND_AT + JOKER]:  # the joker laid off: the one owed if any, else the one taken if any
            scratch[HAND_AT + JOKER] -= 1
            tk2 = -1 if tk == JOKER and not debt else tk
            for slot in range(slots):
                ks = scratch[joker_at + slot]
                while ks:
                    k = _lowest(ks)
                    ks &= ks - 1
                    if size == 1:
                        ok = no_discard
                    else:
                        ok = _can_end(zero, zero, zero, zero, out_, tk2, must,
                                      no, turn_points, turn_melds, turn_run, slots_joker, flags, scratch, known)
                    if ok:
                        legal[n] = LAYOFF_JOKER + NUM_CARDS * slot + k
                        n += 1
            scratch[HAND_AT + JOKER] += 1
        if not debt:
            for slot in range(slots):
                others = taking - (scratch[joker_at + slot] != 0) > 0
                ks = scratch[swap_at + slot] & held
                while ks:
                    k = _lowest(ks)
                    ks &= ks - 1
                    after = others or K.takes_joker_after(
                        codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3], codes[slot, 4], k, True,
                        flags[C_WRAP] != 0, flags[C_ADJACENT] != 0, flags[C_MORE] != 0)
                    scratch[HAND_AT + k] -= 1
                    scratch[HAND_AT + JOKER] += 1
                    ok = _can_end(zero, zero, zero, zero, out_, -1 if tk == k else tk, must, yes,
                                  turn_points, turn_melds, turn_run, after, flags, scratch, known)
                    scratch[HAND_AT + k] += 1
                    scratch[HAND_AT + JOKER] -= 1
                    if ok:
                        legal[n] = SWAP + NUM_CARDS * slot + k
                        n += 1
    return n


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
