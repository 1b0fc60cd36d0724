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
an action's first question that holds.

It is ``RommeState._legal_actions`` (reference=False) line for line: the same
completions (per use of cards, the first of its most valuable readings), the same
questions, the same answers; tests compare the two in every position of random play
under the presets and the options that change melds or the turn. ``RommeState`` uses it
when the solver's kernels are in use (numba installed, not switched off with
``RUMMY_ENV_NO_NUMBA=1``) and it agrees with the Python mask on every position of a few
random hands (``game.LEGAL_KERNEL``, checked once per process); otherwise the Python mask.
"""

from __future__ import annotations

import numba
import numpy as np

from rummy_env.core.compiled import refresh_cache
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS
from rummy_env.romme import melds_jit as K
from rummy_env.romme.cards import FIRST_JOKER, JOKER, KINDS, NUM_KINDS, penalty_values
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, PICK, SWAP, TAKE_DISCARD, Phase, RommeState,
    _table_arrays,
)
from rummy_env.romme.rules import RommeRules

# The scratch, kept between calls in one int64 array (one argument to pass; no allocation
# per question): the call's stamp, the candidates' de-duplication (all -1 between calls),
# the completion rows, the state map and the table of the searches of hands of up to
# _TAB_ROWS states, the hands the questions ask about, the completions' keys.
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
SCRATCH_SIZE = KEPT_AT + _ROWS
# The solver's answers under one set of rules, kept between calls (a question comes back in
# later positions, as the Python mask's ``_QUERY_CACHE`` knows): an open-addressing table
# of (key, key, key, answer + 1) rows, row 0 counting those filled; emptied when half full.
_KNOWN_SLOTS = 1 << 16

# ``flags``: the rules' numbers the kernels read, one tuple
C_WRAP, C_ADJACENT, C_MORE, C_NO_DISCARD, C_POINTS, C_NEEDS_RUN = range(6)

_SCRATCH: list = []  # made on the first call
_RULES: dict = {}  # id(rules) -> (rules, flags, penalties, windows, the solver's answers so far)


def _scratch() -> np.ndarray:
    scratch = np.zeros(SCRATCH_SIZE, np.int64)
    scratch[WHERE_AT:ROWS_AT] = -1
    return scratch


def _rules_of(rules: RommeRules) -> tuple:
    """What the kernels read of ``rules``, and the solver's answers found under them."""
    got = _RULES.get(id(rules))  # by identity (no hashing), the rules held
    if got is None or got[0] is not rules:
        if len(_RULES) >= 8:  # many rule sets in one process (tests): start afresh
            _RULES.clear()
        flags = (int(rules.aces_around_the_corner), int(rules.adjacent_jokers),
                 int(rules.naturals_per_meld == "more_than_jokers"), int(rules.go_out_without_discard),
                 int(rules.come_out_points), int(rules.come_out_needs_run))
        wrap = rules.aces_around_the_corner
        windows = (K._WINDOWS_WRAP, K._RANK_WINDOWS_WRAP) if wrap else (K._WINDOWS_FLAT, K._RANK_WINDOWS_FLAT)
        got = _RULES[id(rules)] = (rules, flags, penalty_values(rules), windows,
                                   np.zeros((_KNOWN_SLOTS + 1, 4), np.int64))
    return got[1:]


def legal_actions(state: RommeState) -> list[int]:
    """``state._legal_actions(reference=False)``, compiled (the state is not changed)."""
    phase = state.phase
    if phase == Phase.OVER:
        return []
    if not _SCRATCH:
        _SCRATCH.append(_scratch())
    rules = state.rules
    flags, pen, windows, known = _rules_of(rules)
    p = state.current_player
    hand = state.hands[p]
    codes = _table_arrays(state._shown_table())[0]
    if phase == Phase.DRAW:
        pile = state.discard_pile
        must = not state.came_out[p] and rules.take_discard_before_out == "meld"
        out = _draw_kernel(bytes(hand), KINDS[pile[-1]] if pile else -1, len(state.stock) > 0, state.came_out[p],
                           must, codes, flags, pen, windows, _SCRATCH[0], known)
    else:
        taken, swapped, pending = state.taken_card, state.swapped_joker, state.pending
        turn = (state.came_out[p], KINDS[taken] if taken is not None and taken in hand else -1, state.must_meld_taken,
                swapped is not None and swapped in hand, state.turn_points, state.turn_melds, state.turn_run)
        out = _play_kernel(bytes(hand), bytes([k for c, k in pending if c < FIRST_JOKER]),
                           bytes([k for c, k in pending if c >= FIRST_JOKER]), turn, codes, flags, pen, windows,
                           _SCRATCH[0], known)
    return out.tolist()


# ----------------------------------------------------------------------------- the kernels


@numba.njit(cache=True)
def _counts(cards):
    """(53,) kind counts of physical card ids."""
    out = np.zeros(NUM_KINDS, np.int64)
    for c in cards:
        out[c % NUM_CARDS if c < FIRST_JOKER else JOKER] += 1
    return out


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
def _work(scratch, known):
    """The scratch array's parts, and the answers: (state map, table, de-duplication,
    completion rows, stamp, answers, three hands, keys, kept), what the kernels pass along."""
    return (scratch[SMAP_AT:TAB_AT].reshape((_TAB_ROWS, 2)),
            scratch[TAB_AT:RESTS_AT].reshape((_TAB_ROWS, _MAX_CONTEXTS, 4)), scratch[WHERE_AT:ROWS_AT],
            scratch[ROWS_AT:SMAP_AT].reshape((_ROWS, 8)), scratch[STAMP_AT:WHERE_AT], known,
            scratch[RESTS_AT:KEYS_AT].reshape((3, NUM_KINDS)), scratch[KEYS_AT:KEPT_AT], scratch[KEPT_AT:SCRATCH_SIZE])


@numba.njit(cache=True)
def _slot(low, high, meta):
    """Where a question's answer is looked for first among the answers kept (1 .. _KNOWN_SLOTS)."""
    h = (np.uint64(low) * np.uint64(0x9E3779B97F4A7C15)) ^ (np.uint64(high) * np.uint64(0xC2B2AE3D27D4EB4F)) \
        ^ (np.uint64(meta) * np.uint64(0x165667B19E3779F9))
    return np.int64(h >> np.uint64(48)) % _KNOWN_SLOTS + 1


@numba.njit(cache=True)
def _solves(rest, target, need_run, need, keep, flags, pen, work):
    """Whether melds from ``rest`` can be worth ``target`` (none if <= 0), hold a run if
    ``need_run``, use a card of kind ``need`` (-1: any) and leave ``keep`` cards
    (``melds.rest_can_come_out``): answered on the spot where no search is needed, else from
    the answers kept, else by the solver's search (most value per context)."""
    if target <= 0 and not need_run and need < 0:
        return rest.sum() >= keep
    if need >= 0 and rest[need] == 0:
        return False
    smap, tab, where, stamp, known = work[0], work[1], work[2], work[4], work[5]
    points = max(0, target)
    low = high = np.int64(0)  # the question as a key: two bits a kind, then the jokers and the numbers
    for k in range(NUM_CARDS // 2):
        low |= rest[k] << (2 * k)
        high |= rest[k + NUM_CARDS // 2] << (2 * k)
    meta = rest[JOKER] | (need + 1) << 3 | keep << 9 | (1 if need_run else 0) << 11 | points << 12
    slot = _slot(low, high, meta)
    while known[slot, 3] != 0:
        if known[slot, 0] == low and known[slot, 1] == high and known[slot, 2] == meta:
            return known[slot, 3] == 2
        slot = slot % _KNOWN_SLOTS + 1
    stamp[0] += 1  # the kept map's states stamped by earlier calls count as not seen
    sid = stamp[0]
    if K._space(rest) > smap.shape[0]:  # more states than the kept map holds: one of its own
        smap = np.zeros((K._space(rest), 2), np.int64)
        sid = 1
    got = K._hand(rest, flags[C_WRAP] != 0, flags[C_ADJACENT] != 0, flags[C_MORE] != 0, pen, points, need_run, need,
                  keep, True, sid, smap, tab, where)
    top, full, t = got[0], got[1], got[2]
    holds = t[top, full, K.T_CHOICE] != K.NONE and t[top, full, K.T_VAL] >= points
    if known[0, 0] >= _KNOWN_SLOTS // 2:  # half full: forget them all
        known[:] = 0
        slot = _slot(low, high, meta)
    known[slot, 0], known[slot, 1], known[slot, 2], known[slot, 3] = low, high, meta, 2 if holds else 1
    known[0, 0] += 1
    return holds


@numba.njit(cache=True)
def _completions(natm, jokm, nn, nj, hand, flags, windows, work):
    """The completions of the meld being built (``melds._completions``): the compiled rows,
    and the indices of those kept (per use of cards, the first of its most valuable
    readings). Returns (rows, kept), in the scratch where they fit."""
    rows, keys, kept = work[3], work[7], work[8]
    n = K._completion_rows(natm, jokm, nn, nj, hand, windows[0], K._POSITIONS, flags[C_ADJACENT] != 0,
                           flags[C_MORE] != 0, rows)
    if n > rows.shape[0]:
        rows = np.empty((n, 8), np.int64)
        keys = np.empty(n, np.int64)
        kept = np.empty(n, np.int64)
        n = K._completion_rows(natm, jokm, nn, nj, hand, windows[0], K._POSITIONS, flags[C_ADJACENT] != 0,
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
        order = np.argsort(keys, kind="mergesort")  # stable: a key's rows in their order
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
def _can_end(hand, natm, jokm, nn, nj, out, tk, must, debt, turn_points, turn_melds, turn_run, slots_joker, flags,
             pen, windows, work):
    """Whether the turn can still end (``RommeState._queries`` and ``_evaluate``): ``hand``
    the kind counts not in the meld being built (natural kinds ``natm``, jokers standing for
    ``jokm``, ``nn`` and ``nj`` of them); ``tk`` the kind of the card taken from the pile if
    it is in ``hand`` (-1 none), ``must`` it must be melded, ``debt`` a joker taken by a
    swap is in ``hand``; the questions asked in order, the first that holds answers."""
    keep_base = 0 if flags[C_NO_DISCARD] else 1
    need_run0 = flags[C_NEEDS_RUN] != 0 and not turn_run
    if natm == 0 and jokm == 0:
        if not debt and not (must and tk >= 0) and (out or turn_melds == 0):
            if hand.sum() - (1 if tk >= 0 else 0) >= 1:
                return True
        count = 1  # one plan: no meld to finish
        rows, kept = work[3], work[8]
    else:
        rows, kept = _completions(natm, jokm, nn, nj, hand, flags, windows, work)
        count = len(kept)
    row = rows[0]
    rests = work[6]  # the hand left after the plan; less the joker taken by a swap; less the card taken
    rest = rests[0]
    for c in range(count):
        rest[:] = hand
        if natm == 0 and jokm == 0:
            value, run, uses_joker, used = 0, False, False, np.int64(0)
            plan = False
        else:
            row = rows[kept[c]]
            extra = row[1]
            for k in range(NUM_CARDS):
                if (extra >> k) & 1:
                    rest[k] -= 1
            rest[JOKER] -= row[2]
            value, run, uses_joker, used = row[3], row[0] != 0, nj > 0 or row[2] > 0, natm | extra
            plan = True
        if out:
            target, need_run = 0, False
        else:
            target, need_run = flags[C_POINTS] - turn_points - value, need_run0 and not run
            if not plan and turn_melds == 0:
                target = max(target, 0)
        t = tk
        need = -1
        if t >= 0 and ((t < NUM_CARDS and (used >> t) & 1) or (t == JOKER and uses_joker)):
            t = -1  # the taken card went first into this meld
        elif t >= 0 and must:
            need = t
        for variant in range(2):
            rest_v, need_v = rest, need
            if not debt or uses_joker:  # no joker to pay back: one variant
                if variant == 1:
                    break
            elif variant == 0:  # the joker taken by a swap laid off on some meld
                if rest[JOKER] < 1 or not (slots_joker or (plan and _takes_joker(
                        row[0] != 0, row[4], row[5], row[6], row[7], flags))):
                    continue
                rest_v = rests[1]
                rest_v[:] = rest
                rest_v[JOKER] -= 1
            else:  # or melded
                if need >= 0:
                    break
                need_v = JOKER
            if t >= 0 and rest_v[t] >= 1:
                held = rest_v[t]
                if need_v != t:  # the taken card stays in hand: another card is discarded
                    ra = rests[2]
                    ra[:] = rest_v
                    ra[t] = 0
                    if need_v < 0 or ra[need_v] >= 1:
                        if _solves(ra, target, need_run, need_v, max(0, 2 - held), flags, pen, work):
                            return True
                if need_v < 0 or need_v == t:  # a card of its kind is melded (the taken one first)
                    if _solves(rest_v, target, need_run, t, keep_base, flags, pen, work):
                        return True
            elif _solves(rest_v, target, need_run, need_v, keep_base, flags, pen, work):
                return True
    return False


@numba.njit(cache=True)
def _accepts(codes, flags):
    """(4, slots): what each table slot accepts (``melds_jit.table_meld_accepts`` of its
    meld's numbers), one row per mask."""
    masks = np.empty((4, codes.shape[0]), np.int64)
    for slot in range(codes.shape[0]):
        masks[0, slot], masks[1, slot], masks[2, slot], masks[3, slot] = K.table_meld_accepts(
            codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3], codes[slot, 4], flags[C_WRAP] != 0,
            flags[C_ADJACENT] != 0, flags[C_MORE] != 0)
    return masks


@numba.njit(cache=True)
def _draw_kernel(cards, top, stock, came_out, must, codes, flags, pen, windows, scratch, known):
    """The legal draws (``RommeState._legal_actions`` in the draw phase, ``_can_take``)."""
    out = np.empty(2, np.int64)
    n = 0
    if stock:
        out[n] = DRAW_STOCK
        n += 1
    if top >= 0:
        masks = _accepts(codes, flags)
        hand = _counts(cards)
        hand[top] += 1
        slots_joker = False
        for slot in range(masks.shape[1]):
            slots_joker |= masks[2, slot] != 0
        if _can_end(hand, np.int64(0), np.int64(0), 0, 0, came_out, top, must, False, 0, 1 if must else 0, False,
                    slots_joker, flags, pen, windows, _work(scratch, known)):
            out[n] = TAKE_DISCARD
            n += 1
    return out[:n]


@numba.njit(cache=True)
def _play_kernel(cards, nat, jok, turn, codes, flags, pen, windows, scratch, known):
    """The legal actions of the play phase (``RommeState._legal_actions``), increasing.
    ``turn``: (came out, the kind of the card taken from the pile if in the hand or -1, it
    must be melded, a joker taken by a swap is in the hand, points, melds and a run laid
    this turn before coming out)."""
    out_, tk, must, debt, turn_points, turn_melds, turn_run = turn
    work = _work(scratch, known)
    masks = _accepts(codes, flags)
    hand = _counts(cards)
    natm = np.int64(0)
    jokm = np.int64(0)
    for k in nat:
        natm |= np.int64(1) << k
    for k in jok:
        jokm |= np.int64(1) << k
    nn, nj = len(nat), len(jok)
    pending = nn + nj > 0
    slots = masks.shape[1]
    slots_joker = False
    for slot in range(slots):
        slots_joker |= masks[2, slot] != 0
    no_discard = flags[C_NO_DISCARD] != 0
    size = hand.sum()
    legal = np.empty(4 + 3 * NUM_KINDS + 4 * NUM_CARDS * slots, np.int64)
    n = 0
    # commit: the pending meld's best reading
    if pending:
        rows, kept = _completions(natm, jokm, nn, nj, np.zeros(NUM_KINDS, np.int64), flags, windows, work)
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
                tk2 = -1 if tk >= 0 and ((tk < NUM_CARDS and (natm >> tk) & 1) or (tk == JOKER and nj > 0)) else tk
                takes = slots_joker or _takes_joker(run, rows[best, 4], rows[best, 5], rows[best, 6], rows[best, 7],
                                                    flags)
                if _can_end(hand, np.int64(0), np.int64(0), 0, 0, after_out, tk2, must and tk2 >= 0, debt and nj == 0,
                            0 if after_out else turn_points + value, turn_melds + 1, turn_run or run, takes, flags, pen,
                            windows, work):
                    legal[n] = COMMIT
                    n += 1
    # discard: a kind held other than the card taken from the pile
    if not pending and not debt and not (must and tk >= 0) and (out_ or turn_melds == 0):
        for k in range(NUM_KINDS):
            if hand[k] - (1 if k == tk else 0) > 0:
                legal[n] = DISCARD + k
                n += 1
    # cards into the meld being built, when the hand can come out at all
    can_meld = True
    if not out_ and not pending:
        can_meld = _can_end(hand, np.int64(0), np.int64(0), 0, 0, False, tk, must, False, turn_points,
                            max(turn_melds, 1), turn_run, slots_joker, flags, pen, windows, work)
    if can_meld:
        picks, jokers_as = np.int64(0), np.int64(0)
        if K._popcount(natm | jokm) == nn + nj:  # distinct kinds (else nothing finishes the meld)
            picks, jokers_as = K._next_cards(natm, jokm, nn, nj, hand, windows[1], flags[C_ADJACENT] != 0,
                                             flags[C_MORE] != 0)
        for k in range(NUM_CARDS):
            if (picks >> k) & 1:
                hand[k] -= 1
                if _can_end(hand, natm | (np.int64(1) << k), jokm, nn + 1, nj, out_, -1 if tk == k else tk, must,
                            debt, turn_points, turn_melds, turn_run, slots_joker, flags, pen, windows, work):
                    legal[n] = PICK + k
                    n += 1
                hand[k] += 1
        if jokers_as:
            hand[JOKER] -= 1
            for k in range(NUM_CARDS):
                if (jokers_as >> k) & 1:
                    if _can_end(hand, natm, jokm | (np.int64(1) << k), nn, nj + 1, out_, -1 if tk == JOKER else tk,
                                must, debt, turn_points, turn_melds, turn_run, slots_joker, flags, pen, windows, work):
                        legal[n] = JOKER_AS + k
                        n += 1
            hand[JOKER] += 1
    # lay-offs and swaps: once out, nothing pending (all lay-offs, then joker lay-offs, then
    # swaps: the action ids increase). A joker owed must still find a place after the move:
    # whether a table meld takes a joker is asked of the table as the move leaves it
    if out_ and not pending:
        taking = 0
        for slot in range(slots):
            taking += masks[2, slot] != 0
        for slot in range(slots):
            others = taking - (masks[2, slot] != 0) > 0
            for k in range(NUM_CARDS):
                if (masks[0, slot] >> k) & 1 and hand[k]:
                    hand[k] -= 1
                    if size == 1:  # the last card: it goes out without a discard, where the rules allow it
                        ok = no_discard
                    else:
                        after = slots_joker
                        if debt:
                            after = others or K.takes_joker_after(
                                codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3], codes[slot, 4], k,
                                False, flags[C_WRAP] != 0, flags[C_ADJACENT] != 0, flags[C_MORE] != 0)
                        ok = _can_end(hand, np.int64(0), np.int64(0), 0, 0, out_, -1 if tk == k else tk, must, debt,
                                      turn_points, turn_melds, turn_run, after, flags, pen, windows, work)
                    hand[k] += 1
                    if ok:  # once, though a run of 12 takes its missing rank at both ends
                        legal[n] = LAYOFF + NUM_CARDS * slot + k
                        n += 1
        if hand[JOKER]:
            hand[JOKER] -= 1
            for slot in range(slots):
                for k in range(NUM_CARDS):
                    if (masks[2, slot] >> k) & 1:
                        if size == 1:
                            ok = no_discard
                        else:
                            ok = _can_end(hand, np.int64(0), np.int64(0), 0, 0, out_, -1 if tk == JOKER else tk, must,
                                          False, turn_points, turn_melds, turn_run, slots_joker, flags, pen, windows,
                                          work)
                        if ok:
                            legal[n] = LAYOFF_JOKER + NUM_CARDS * slot + k
                            n += 1
            hand[JOKER] += 1
        if not debt:
            for slot in range(slots):
                others = taking - (masks[2, slot] != 0) > 0
                for k in range(NUM_CARDS):
                    if (masks[3, slot] >> k) & 1 and hand[k]:
                        hand[k] -= 1
                        hand[JOKER] += 1
                        after = others or K.takes_joker_after(
                            codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3], codes[slot, 4], k, True,
                            flags[C_WRAP] != 0, flags[C_ADJACENT] != 0, flags[C_MORE] != 0)
                        if _can_end(hand, np.int64(0), np.int64(0), 0, 0, out_, -1 if tk == k else tk, must, True,
                                    turn_points, turn_melds, turn_run, after, flags, pen, windows, work):
                            legal[n] = SWAP + NUM_CARDS * slot + k
                            n += 1
                        hand[k] += 1
                        hand[JOKER] -= 1
    return np.sort(legal[:n])


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
