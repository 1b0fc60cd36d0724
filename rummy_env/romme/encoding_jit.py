"""The ``flat`` Rommé observation of one information set as one compiled (numba) call.

Why: the observation is 62 card slices and 64 scalars with seats taken relative to the
observer; in Python it is a few hundred small operations (every card of every slice, the
table's slots), the largest part of a step of ``romme_v0.raw_env()``. Here one loop writes
the same numbers: the information set's cards go in as bytes (kinds are below 256: those
the state made while building the set, ``game._info_bytes``, so a step does not turn the
set's tuples into bytes again), the table's melds as the numbers ``game._table_arrays``
keeps per table (read by ``_encode_public``, which the vector engine calls too), and every
offset comes from ``rummy_env.romme.layout`` (compile-time constants).
``rummy_env.romme.encoding`` uses it when numba is in use (not switched off with
``RUMMY_ENV_NO_NUMBA=1``) and it agrees with the Python encoder on every position of a few
random hands (``core.encoding.CompiledEncoder``); otherwise it keeps the Python encoder.
Tests compare the two over many positions, table sizes and rule options.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from rummy_env.core.compiled import refresh_cache
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS
from rummy_env.romme.cards import JOKER
from rummy_env.romme.game import RommeInformationSet, _info_bytes, _table_arrays
from rummy_env.romme.layout import (
    CAME_OUT_REL0, COUNT_SCALE, DEALER_REL0, DISCARD_PILE, DISCARD_TOP, DISCARDED_REL1, FLAT_SIZE, HAND,
    HAND_SIZE_REL0, HAND_SIZE_SCALE, HANDS_PLAYED, JOKER_DEBT, JOKER_SCALAR, JOKER_SCALE, KNOWN_REL1, LAYOFF_TARGETS,
    MUST_MELD_TAKEN, NUM_CARD_SLICES, OUT_AT_TURN_START, PENDING, PENDING_JOKER_AS, PENDING_SCALE, PENDING_SIZE, PHASE,
    PLAYERS_2, PUBLIC_STOCK, SCALARS_AT, SLOT_0, STOCK_PUBLIC, STOCK_SCALE, STOCK_SIZE, SWAP_TARGETS, TABLE,
    TABLE_REL0, TAKEN, TOTAL_REL0, TURN, TURN_POINTS, check_scores, total_scale,
)
from rummy_env.romme.melds_jit import table_meld_accepts
from rummy_env.romme.rules import RommeRules

_NO_TOTALS = np.zeros(0, np.float64)
_RULES: dict = {}  # id(rules) -> (rules, the numbers of them the kernel reads): by identity, no hashing


def _rules_numbers(rules: RommeRules) -> tuple[int, int, int, int, int]:
    """(aces around the corner, adjacent jokers, more naturals than jokers, max_turns,
    come_out_points): what the kernel reads of ``rules``."""
    got = _RULES.get(id(rules))
    if got is None or got[0] is not rules:
        if len(_RULES) >= 64:
            _RULES.clear()
        got = _RULES[id(rules)] = (rules, (int(rules.aces_around_the_corner), int(rules.adjacent_jokers),
                                           int(rules.naturals_per_meld == "more_than_jokers"), rules.max_turns,
                                           rules.come_out_points))
    return got[1]


# the layout's per-slice tuples as arrays: numba indexes a global array in place, where it
# would copy a whole global tuple for each index not known at compile time
_ADD = np.array([1.0 / x for x in COUNT_SCALE], np.float64)  # what one card adds to a slice's entry
_JOKER_SCALAR = np.array(JOKER_SCALAR, np.int64)
_JOKER_SCALE = np.array(JOKER_SCALE, np.float32)


def encode_flat(info: RommeInformationSet, rules: RommeRules, scores: Optional[Sequence[int]]) -> np.ndarray:
    """``rummy_env.romme.encoding``'s flat vector of ``info`` (the same numbers, float32):
    its cards as bytes (``game._info_bytes``, made by the state with the set), its table as
    ``game._table_arrays`` keeps it, and its numbers, in one compiled call of few arguments
    (each argument costs the call about a tenth of a microsecond)."""
    totals, hands_played = _NO_TOTALS, -1.0
    if scores is not None:
        check_scores(scores, info.num_players)
        scale = total_scale(rules)
        totals = np.array([x / scale for x in scores], np.float64)
        if rules.hands_per_table > 0:
            hands_played = getattr(scores, "hands_played", 0) / rules.hands_per_table
    taken = info.taken_card
    cards, lens, rest = _info_bytes(info)
    codes, table = _table_arrays(info.table)
    out = np.zeros(FLAT_SIZE, np.float32)
    _encode_info(out, (info.player, info.num_players, info.dealer, int(info.phase), -1 if taken is None else taken,
                       info.stock_size, info.turn, info.turn_points, info.must_meld_taken, info.joker_debt,
                       info.out_at_turn_start),
                 _rules_numbers(rules), cards, lens, rest, codes, table, totals, hands_played)
    return out


@numba.njit(cache=True)
def _encode_info(out, position, rules, cards, lens, rest, codes, table, totals, hands_played):
    """``_encode_kernel`` of an information set as ``encode_flat`` passes it: ``rest`` the
    pending meld's pairs, then each seat's came-out flag, then each seat's hand size
    (``game._info_bytes``); ``table`` each slot's size, each slot's owner, then the kinds of
    every meld (``game._table_arrays``: the kernel reads the owners, the melds from ``codes``)."""
    n = position[1]
    end = len(rest)
    slots = codes.shape[0]
    _encode_kernel(out, position, rules, cards, lens, rest[:end - 2 * n], table[slots:2 * slots], codes,
                   rest[end - 2 * n:end - n], rest[end - n:], totals, hands_played)


@numba.njit(cache=True)
def _put_mask(out, s, mask):
    """The kinds of a 52-bit mask into the 0/1 card slice ``s``."""
    while mask:
        k = trailing_zeros(np.uint64(mask))
        out[s * NUM_CARDS + k] = 1.0
        mask &= mask - 1


@numba.njit(cache=True, inline="always")
def _add(out, s, kind, add):
    """One card of natural ``kind`` into card slice ``s``: ``add`` (1 / the slice's scale)
    added to its entry, capped at 1."""
    at = s * NUM_CARDS + kind
    out[at] = min(out[at] + add, 1.0)


@numba.njit(cache=True, inline="always")
def _add_cards(out, jokers, s, cards, start, stop):
    """The cards ``cards[start:stop]`` (kinds) into card slice ``s``: each adds 1 / the
    slice's scale to its kind's entry, capped at 1 (``_add``); a joker counts for the
    slice's joker scalar (``jokers[s]``). Inlined where it is called: a call passing arrays
    costs about as much as a run of cards (its arrays' reference counts)."""
    add = _ADD[s]
    for i in range(start, stop):
        kind = cards[i]
        if kind == JOKER:
            jokers[s] += 1
        else:
            _add(out, s, kind, add)


@numba.njit(cache=True)
def _add_runs(out, jokers, cards, runs, count):
    """The cards of each run ``runs[r] = (slice, start, stop)`` (r < ``count``) of
    ``cards`` (kinds) into its card slice (``_add_cards``)."""
    for r in range(count):
        _add_cards(out, jokers, runs[r, 0], cards, runs[r, 1], runs[r, 2])


@numba.njit(cache=True)
def _encode_kernel(out, position, rules, cards, lens, pending, table_owners, codes, came_out, hand_sizes, totals,
                   hands_played):
    """Write the flat vector into ``out`` (zeros): ``position`` (player, players, dealer,
    phase, the card taken or -1, stock size, turn, turn points, must meld the card taken,
    joker debt, out at the turn's start), ``rules`` (``_rules_numbers``), the cards as kinds
    (hand, pile, public stock, then each seat's known cards and discards: ``lens`` long),
    the pending meld's (card, kind) pairs, each table meld's owner and numbers
    (``game._table_arrays``' codes), each seat's came-out flag and hand size, the totals /
    scale (none outside a table) and the hands played / hands per table (-1: not written).
    The card slices here; the rest, which the vector engine writes the same way from its
    own arrays, in ``_encode_public``."""
    p, n = position[0], position[1]
    jokers = np.zeros(NUM_CARD_SLICES, np.int64)
    runs = np.empty((4 + 2 * n, 3), np.int64)  # (slice, start, stop) of the cards' runs
    # hand, pile, public stock, then the known cards and the discards of each seat (absolute)
    hand, pile, public = lens[0], lens[1], lens[2]
    runs[0, 0], runs[0, 1], runs[0, 2] = HAND, 0, hand
    runs[1, 0], runs[1, 1], runs[1, 2] = DISCARD_PILE, hand, hand + pile
    runs[2, 0], runs[2, 1], runs[2, 2] = PUBLIC_STOCK, hand + pile, hand + pile + public
    count = 3
    if pile:
        runs[3, 0], runs[3, 1], runs[3, 2] = DISCARD_TOP, hand + pile - 1, hand + pile
        count = 4
    at = hand + pile + public
    for seat in range(n):
        k = (seat - p) % n
        if k > 0:
            runs[count, 0], runs[count, 1], runs[count, 2] = KNOWN_REL1 + k - 1, at, at + lens[3 + seat]
            count += 1
        at += lens[3 + seat]
    for seat in range(n):
        k = (seat - p) % n
        if k > 0:
            runs[count, 0], runs[count, 1], runs[count, 2] = DISCARDED_REL1 + k - 1, at, at + lens[3 + n + seat]
            count += 1
        at += lens[3 + n + seat]
    _add_runs(out, jokers, cards, runs, count)
    _encode_public(out, jokers, position, rules, public > 0, pending, table_owners, codes, came_out, hand_sizes,
                   totals, hands_played)


@numba.njit(cache=True)
def _encode_public(out, jokers, position, rules, public, pending, table_owners, codes, came_out, hand_sizes, totals,
                   hands_played):
    """What ``_encode_kernel`` writes after the card slices (``jokers``: the jokers counted
    per card slice so far; ``public``: the stock's order is public): the pending meld, the
    table (each meld's cards into ``table`` and its owner's relative ``table_rel``, read
    from its numbers, ``melds_jit``'s codes; what each slot accepts), the card taken, the
    joker scalars and the other scalars."""
    p, n, dealer, phase, taken, stock_size, turn, turn_points, must, debt, out_start = position
    wrap, adjacent, more, max_turns, come_out_points = rules
    # the pending meld: (card, kind it stands for) pairs (a natural card is its kind); the
    # kind a joker stands for goes to pending_joker_as
    for i in range(0, len(pending), 2):
        if pending[i] == JOKER:
            jokers[PENDING] += 1
            out[PENDING_JOKER_AS * NUM_CARDS + pending[i + 1]] = 1.0
        else:
            out[PENDING * NUM_CARDS + pending[i]] = 1.0
    # the table: each meld's cards, and what each slot accepts
    lay = np.int64(0)
    swap = np.int64(0)
    add = _ADD[TABLE]  # (the table_rel slices' too)
    for slot in range(codes.shape[0]):
        rel = TABLE_REL0 + (table_owners[slot] - p) % n
        c0, c1, c2, c3, c4 = codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3], codes[slot, 4]
        if c0 == 0:  # a set: rank c1, suits mask c2, c3 jokers
            suits = c2
            while suits:
                kind = trailing_zeros(np.uint64(suits)) * NUM_RANKS + c1
                _add(out, TABLE, kind, add)
                _add(out, rel, kind, add)
                suits &= suits - 1
            jokers[TABLE] += c3
            jokers[rel] += c3
        else:  # a run: suit c1, start c2, length c3, joker offsets mask c4
            for t in range(c3):
                if (c4 >> t) & 1:
                    jokers[TABLE] += 1
                    jokers[rel] += 1
                else:
                    kind = c1 * NUM_RANKS + (c2 + t) % NUM_RANKS
                    _add(out, TABLE, kind, add)
                    _add(out, rel, kind, add)
        takes, _, _, swaps = table_meld_accepts(c0, c1, c2, c3, c4, wrap != 0, adjacent != 0, more != 0)
        _put_mask(out, SLOT_0 + slot, takes)
        lay |= takes
        swap |= swaps
    _put_mask(out, LAYOFF_TARGETS, lay)
    _put_mask(out, SWAP_TARGETS, swap)
    if taken == JOKER:
        jokers[TAKEN] += 1
    elif taken >= 0:
        out[TAKEN * NUM_CARDS + taken] = 1.0
    for s in range(NUM_CARD_SLICES):
        if jokers[s] > 0 and _JOKER_SCALAR[s] >= 0:
            out[SCALARS_AT + _JOKER_SCALAR[s]] = min(np.float32(jokers[s]) / _JOKER_SCALE[s], 1.0)
    sc = SCALARS_AT
    out[sc + PHASE + phase] = 1.0
    out[sc + STOCK_SIZE] = stock_size / STOCK_SCALE
    out[sc + TURN] = min(turn / max_turns, 1.0)
    out[sc + STOCK_PUBLIC] = 1.0 if public else 0.0
    out[sc + TURN_POINTS] = min(turn_points / max(1, come_out_points), 1.0)
    out[sc + PENDING_SIZE] = len(pending) // 2 / PENDING_SCALE
    out[sc + MUST_MELD_TAKEN] = must
    out[sc + JOKER_DEBT] = debt
    out[sc + OUT_AT_TURN_START] = out_start
    for k in range(n):
        seat = (p + k) % n
        out[sc + CAME_OUT_REL0 + k] = came_out[seat]
        out[sc + HAND_SIZE_REL0 + k] = min(hand_sizes[seat] / HAND_SIZE_SCALE, 1.0)
        if len(totals) > 0:
            out[sc + TOTAL_REL0 + k] = totals[seat]
    out[sc + DEALER_REL0 + (dealer - p) % n] = 1.0
    out[sc + PLAYERS_2 + n - 2] = 1.0
    if hands_played >= 0:
        out[sc + HANDS_PLAYED] = hands_played


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
