"""Basic Rummy's vector engine as compiled loops over the games (numba).

Why: a Basic Rummy move in the pure game (``rummy_env.basic.game``) costs tens of
microseconds of Python; stepped here, a game's move, legal actions and observation cost
well under one. Each stage is one loop that visits every game once: ``deal_games``
(explicit deal orders, as ``BasicRummyState.from_deck`` deals them), ``apply_actions``
(draws, discards, melds, lay-offs, going out, the stock turned over, stalemates),
``legal_moves`` (the mask and the legal ids in increasing order) and ``observe_flat``
(the ``flat`` observation of any seat, every offset taken from ``rummy_env.basic.layout``).

The rules are the pure game's, line for line (its module docstring says them); the
engine (``rummy_env.basic.vector``) uses this module only where it plays a few hundred
moves exactly as the pure game does (its self-check, once per process), and tests play
the same deals through both and compare every player, mask, observation and result.

State is arrays over the games: hands, cards known to be in a hand, cards each seat put
on the table and discarded as 52-bit masks (``uint64``, one per seat); the stock and the
discard pile as card arrays (top last) with their lengths and masks; the table as up to
17 melds per game (cards, the cards that may be laid off onto it, run or set, owner).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from rummy_env.basic.game import DISCARD, DRAW_STOCK, LAYOFF, MELD, TAKE_DISCARD, Phase
from rummy_env.basic.layout import (
    CARD_SLICES, DEALER_REL0, DISCARD_TOP, DISCARDED_REL1, FLAT_SIZE, HAND, HAND_SIZE_REL0, HAND_SIZE_SCALE, KNOWN_REL1,
    MELDED_REL0, NUM_CARD_SLICES, PHASE, PLAYED_REL0, PLAYERS_2, RUMMY_POSSIBLE, SCALARS_AT, STOCK_SIZE, TURN,
    TURNOVERS, UNSEEN,
)
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, RANK_MASKS, card_value
from rummy_env.core.compiled import refresh_cache
from rummy_env.core.meld_table import NUM_SETS, RUN_SHAPES, meld_table

# the card slices the layout names only in CARD_SLICES (in the order the Python encoder writes them)
PILE, PUBLIC_STOCK, TARGETS, TAKEN = map(CARD_SLICES.index, ("discard_pile", "public_stock", "layoff_targets", "taken"))

# how a hand ended (``apply_actions``' ``outcome``; -1: it did not): the codes of ``rummy_env.basic.vector.OUTCOMES``
OUT, RUMMY, STALEMATE_STOCK, STALEMATE_TURNS = 0, 1, 2, 3

_DRAW, _PLAY = int(Phase.DRAW), int(Phase.PLAY)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_SUIT = np.uint64((1 << NUM_RANKS) - 1)
_FULL = np.uint64((1 << NUM_CARDS) - 1)
_RANK_MASKS = np.array(RANK_MASKS, dtype=np.uint64)
_VALUES = np.array([card_value(c) for c in range(NUM_CARDS)], dtype=np.int64)
_RUNS_PER_SUIT = len(RUN_SHAPES)
# the offset in RUN_SHAPES of the run of 3 from each start position (longer runs from there follow it)
_RUN_FROM = np.array([next(k for k, (s, _) in enumerate(RUN_SHAPES) if s == start)
                      for start in range(NUM_RANKS - 2)], dtype=np.int64)
# _BYTE_BITS[b, k]: bit k of byte b as 0.0 / 1.0 (observations are written 8 cards at a time)
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)


def meld_masks(aces_high: bool) -> np.ndarray:
    """The meld table's masks (``rummy_env.core.meld_table``) as the kernels take them."""
    return np.array(meld_table(aces_high).masks, dtype=np.uint64)


@numba.njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@numba.njit(cache=True, inline="always")
def _positions(field, aces_high):
    """A 13-bit suit field in run order (``rummy_env.core.cards.run_positions``)."""
    if aces_high:
        return (field >> _ONE) | ((field & _ONE) << np.uint64(12))
    return field


@numba.njit(cache=True, inline="always")
def _ranks(positions, aces_high):
    """The inverse of ``_positions`` (``rummy_env.core.cards.run_ranks``)."""
    if aces_high:
        return ((positions << _ONE) & _SUIT) | (positions >> np.uint64(12))
    return positions


@numba.njit(cache=True)
def _extension(cards, is_run, aces_high):
    """Cards that can be laid off onto a table meld of ``cards`` (``meld_table.extension``)."""
    low = trailing_zeros(cards)
    if not is_run:
        return _RANK_MASKS[low % NUM_RANKS] & ~cards
    shift = np.uint64((low // NUM_RANKS) * NUM_RANKS)
    pos = _positions((cards >> shift) & _SUIT, aces_high)
    first = trailing_zeros(pos)
    last = 63 - leading_zeros(pos)
    ext = _ZERO
    if first > 0:
        ext |= _bit(first - 1)
    if last < NUM_RANKS - 1:
        ext |= _bit(last + 1)
    return _ranks(ext, aces_high) << shift


@numba.njit(cache=True)
def _count(mask):
    n = 0
    while mask:
        mask &= mask - _ONE
        n += 1
    return n


@numba.njit(cache=True)
def _leaves_a_move(after, taken_bit, without_discard, exts, num_table, replaced, new_ext):
    """``BasicRummyState._leaves_a_move``: whether a play leaving ``after`` in hand leaves a
    way to finish the turn, the table's lay-off cards being ``exts[:num_table]`` with slot
    ``replaced`` (-1: none) taking ``new_ext`` instead, or ``new_ext`` added (a new meld)."""
    if after == _ZERO:
        return without_discard
    if taken_bit == _ZERO or after != taken_bit:
        return True
    if not without_discard:
        return False
    if new_ext & after:
        return True
    for s in range(num_table):
        if s != replaced and exts[s] & after:
            return True
    return False


@numba.njit(cache=True)
def deal_games(rows, decks, dealers, num_players, hand_size, hands, known, played, discarded, has_melded, stock,
               stock_len, stock_mask, pile, pile_len, pile_mask, num_table, dealer, current, phase, turn, turnovers,
               stock_public, taken, rummy_possible):
    """Deal game ``rows[j]`` from ``decks[j]`` with dealer ``dealers[j]``, as
    ``BasicRummyState.from_deck``: ``hand_size`` cards to each seat from the dealer's left,
    the dealer last; then the upcard; the rest is the stock, its top the deck's next card."""
    n, k = num_players, hand_size
    for j in range(rows.shape[0]):
        i = rows[j]
        d = dealers[j]
        for seat in range(n):
            hands[i, seat] = _ZERO
            known[i, seat] = _ZERO
            played[i, seat] = _ZERO
            discarded[i, seat] = _ZERO
            has_melded[i, seat] = False
        for s in range(n):
            seat = (d + 1 + s) % n
            h = _ZERO
            for c in decks[j, s * k : (s + 1) * k]:
                h |= _bit(c)
            hands[i, seat] = h
        up = decks[j, n * k]
        pile[i, 0] = up
        pile_len[i] = 1
        pile_mask[i] = _bit(up)
        size = NUM_CARDS - n * k - 1
        m = _ZERO
        for t in range(size):  # the stock's top is its last card: the deck's card after the upcard
            c = decks[j, NUM_CARDS - 1 - t]
            stock[i, t] = c
            m |= _bit(c)
        stock_len[i] = size
        stock_mask[i] = m
        num_table[i] = 0
        dealer[i] = d
        current[i] = (d + 1) % n
        phase[i] = _DRAW
        turn[i] = 0
        turnovers[i] = 0
        stock_public[i] = False
        taken[i] = -1
        rummy_possible[i] = True


@numba.njit(cache=True)
def legal_moves(hands, current, phase, taken, stock_len, pile_len, has_melded, table_cards, table_ext, table_run,
                num_table, melds, aces_high, needs_own_meld, without_discard, mask, num_legal, legal_ids):
    """Per game: the legal-action ``mask`` row (zeroed by the caller) and the legal ids in
    increasing order (``legal_ids[i, :num_legal[i]]``; ids past its width are not listed,
    the count says so), as ``BasicRummyState._compute_legal``. Written inline, not through
    helpers: a call taking arrays costs reference counting, more than the move it adds."""
    cap = legal_ids.shape[1]
    found = np.empty(NUM_SETS + 4 * _RUNS_PER_SUIT, np.int64)  # the melds held, in id order
    for i in range(hands.shape[0]):
        legal = 0
        row, ids = mask[i], legal_ids[i]  # written through rows: faster than item by item
        if phase[i] == _DRAW:
            if stock_len[i] > 0:
                row[DRAW_STOCK] = 1
                ids[legal] = DRAW_STOCK
                legal += 1
            if pile_len[i] > 0:
                row[TAKE_DISCARD] = 1
                ids[legal] = TAKE_DISCARD
                legal += 1
        elif phase[i] == _PLAY:
            p = current[i]
            h = hands[i, p]
            t = taken[i]
            taken_bit = _bit(t) if t >= 0 else _ZERO
            exts, num = table_ext[i], num_table[i]
            left = h
            while left:  # discards: any card but the one taken from the pile
                c = trailing_zeros(left)
                left &= left - _ONE
                if c != t:
                    row[DISCARD + c] = 1
                    if legal < cap:
                        ids[legal] = DISCARD + c
                    legal += 1
            held = 0
            f0, f1 = h & _SUIT, (h >> np.uint64(13)) & _SUIT
            f2, f3 = (h >> np.uint64(26)) & _SUIT, (h >> np.uint64(39)) & _SUIT
            ab, cd = f0 & f1, f2 & f3
            three = (ab & (f2 | f3)) | (cd & (f0 | f1))
            four = ab & cd
            while three:  # sets (ids 5 rank + the suit left out, 5 rank + 4 for all four)
                r = trailing_zeros(three)
                three &= three - _ONE
                if (four >> np.uint64(r)) & _ONE:
                    for s in range(5):
                        found[held] = 5 * r + s
                        held += 1
                else:
                    missing = 0
                    while (h >> np.uint64(missing * NUM_RANKS + r)) & _ONE:
                        missing += 1
                    found[held] = 5 * r + missing
                    held += 1
            for suit in range(4):  # runs, by start position then length (the meld ids' order)
                pos = _positions((h >> np.uint64(suit * NUM_RANKS)) & _SUIT, aces_high)
                if not pos & (pos >> _ONE) & (pos >> np.uint64(2)):
                    continue
                base = NUM_SETS + _RUNS_PER_SUIT * suit
                for start in range(NUM_RANKS - 2):
                    length = 0
                    while start + length < NUM_RANKS and (pos >> np.uint64(start + length)) & _ONE:
                        length += 1
                        if length >= 3:
                            found[held] = base + _RUN_FROM[start] + length - 3
                            held += 1
            for j in range(held):
                m = found[j]
                after = h & ~melds[m]
                if (after != _ZERO and after != taken_bit) or _leaves_a_move(
                        after, taken_bit, without_discard, exts, num, -1, _extension(melds[m], m >= NUM_SETS, aces_high)):
                    row[MELD + m] = 1
                    if legal < cap:
                        ids[legal] = MELD + m
                    legal += 1
            if has_melded[i, p] or not needs_own_meld:
                for slot in range(num):
                    fits = exts[slot] & h
                    while fits:
                        c = trailing_zeros(fits)
                        fits &= fits - _ONE
                        after = h & ~_bit(c)
                        if (after != _ZERO and after != taken_bit) or _leaves_a_move(
                                after, taken_bit, without_discard, exts, num, slot,
                                _extension(table_cards[i, slot] | _bit(c), table_run[i, slot], aces_high)):
                            row[LAYOFF + NUM_CARDS * slot + c] = 1
                            if legal < cap:
                                ids[legal] = LAYOFF + NUM_CARDS * slot + c
                            legal += 1
        num_legal[i] = legal


@numba.njit(cache=True)
def _go_out(i, p, num_players, hands, rummy_possible, multiplier, rewards, outcome):
    """The player ``p`` went out: the others pay their cards' values (doubled for rummy)."""
    mult = multiplier if rummy_possible[i] else 1
    points = 0
    for seat in range(num_players):
        if seat != p:
            pen = 0
            left = hands[i, seat]
            while left:
                pen += _VALUES[trailing_zeros(left)]
                left &= left - _ONE
            pen *= mult
            rewards[i, seat] = -pen
            points += pen
    rewards[i, p] = points
    outcome[i] = RUMMY if rummy_possible[i] else OUT


@numba.njit(cache=True)
def apply_actions(actions, num_players, hands, known, played, discarded, has_melded, stock, stock_len, stock_mask,
                  pile, pile_len, pile_mask, table_cards, table_ext, table_run, table_owner, num_table, current, phase,
                  turn, turnovers, stock_public, taken, rummy_possible, melds, aces_high, stock_turnovers, max_turns,
                  multiplier, rewards, terminated, outcome, with_discard):
    """Apply checked ``actions`` (-1: the game does not move) in place, as
    ``BasicRummyState.step``; a game that ends gets ``terminated``, its ``outcome`` code,
    ``with_discard`` (went out by discarding) and its ``rewards`` (the hand's, per seat)."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0:
            continue
        p = current[i]
        if a == DRAW_STOCK:
            stock_len[i] -= 1
            bit = _bit(stock[i, stock_len[i]])
            hands[i, p] |= bit
            stock_mask[i] &= ~bit
            if stock_public[i]:
                known[i, p] |= bit
            taken[i] = -1
            phase[i] = _PLAY
        elif a == TAKE_DISCARD:
            pile_len[i] -= 1
            card = pile[i, pile_len[i]]
            bit = _bit(card)
            pile_mask[i] &= ~bit
            hands[i, p] |= bit
            known[i, p] |= bit
            taken[i] = card
            phase[i] = _PLAY
        elif a < MELD:
            card = a - DISCARD
            bit = _bit(card)
            hands[i, p] &= ~bit
            known[i, p] &= ~bit
            discarded[i, p] |= bit
            pile[i, pile_len[i]] = card
            pile_len[i] += 1
            pile_mask[i] |= bit
            taken[i] = -1
            turn[i] += 1
            if hands[i, p] == _ZERO:
                _go_out(i, p, num_players, hands, rummy_possible, multiplier, rewards, outcome)
                with_discard[i] = True
                terminated[i] = True
                continue
            if stock_len[i] == 0:
                if turnovers[i] >= stock_turnovers:
                    outcome[i] = STALEMATE_STOCK
                    terminated[i] = True
                    continue
                # turned over: the first card discarded becomes the top of the stock
                size = pile_len[i] - 1
                for j in range(size):
                    stock[i, j] = pile[i, size - 1 - j]
                stock_len[i] = size
                stock_mask[i] = pile_mask[i] & ~bit
                pile[i, 0] = card
                pile_len[i] = 1
                pile_mask[i] = bit
                turnovers[i] += 1
                stock_public[i] = True
            if turn[i] >= max_turns:
                outcome[i] = STALEMATE_TURNS
                terminated[i] = True
                continue
            q = (p + 1) % num_players
            current[i] = q
            rummy_possible[i] = played[i, q] == _ZERO
            phase[i] = _DRAW
        else:
            if a < LAYOFF:
                m = a - MELD
                cards = melds[m]
                slot = num_table[i]
                table_cards[i, slot] = cards
                table_run[i, slot] = m >= NUM_SETS
                table_owner[i, slot] = p
                table_ext[i, slot] = _extension(cards, m >= NUM_SETS, aces_high)
                num_table[i] = slot + 1
                has_melded[i, p] = True
            else:
                slot = (a - LAYOFF) // NUM_CARDS
                cards = _bit((a - LAYOFF) % NUM_CARDS)
                table_cards[i, slot] |= cards
                table_ext[i, slot] = _extension(table_cards[i, slot], table_run[i, slot], aces_high)
            hands[i, p] &= ~cards
            known[i, p] &= ~cards
            played[i, p] |= cards
            if hands[i, p] == _ZERO:
                _go_out(i, p, num_players, hands, rummy_possible, multiplier, rewards, outcome)
                terminated[i] = True


@numba.njit(cache=True)
def observe_flat(players, num_players, hands, known, played, discarded, has_melded, stock_len, stock_mask,
                 stock_public, pile, pile_len, pile_mask, table_ext, num_table, dealer, phase, turn, turnovers, taken,
                 rummy_possible, stock_turnovers, max_turns, out):
    """The ``flat`` observation of seat ``players[i]`` in each game (every entry written),
    as ``rummy_env.basic.encoding`` writes it from that seat's information set (no match
    scores: the engine plays single hands)."""
    n = num_players
    masks = np.zeros(NUM_CARD_SLICES, np.uint64)
    for i in range(players.shape[0]):
        s = players[i]
        h = hands[i, s]
        public = stock_mask[i] if stock_public[i] else _ZERO
        targets = _ZERO
        for slot in range(num_table[i]):
            targets |= table_ext[i, slot]
        seen = h | pile_mask[i] | public
        for k in range(NUM_CARD_SLICES):
            masks[k] = _ZERO
        for k in range(n):
            seat = (s + k) % n
            seen |= played[i, seat]  # every card on the table was put there by some seat
            masks[PLAYED_REL0 + k] = played[i, seat]
            if k > 0:
                seen |= known[i, seat]
                masks[KNOWN_REL1 + k - 1] = known[i, seat]
                masks[DISCARDED_REL1 + k - 1] = discarded[i, seat]
        masks[HAND] = h
        masks[DISCARD_TOP] = _bit(pile[i, pile_len[i] - 1]) if pile_len[i] > 0 else _ZERO
        masks[PILE] = pile_mask[i]
        masks[PUBLIC_STOCK] = public
        masks[TARGETS] = targets
        masks[TAKEN] = _bit(taken[i]) if taken[i] >= 0 else _ZERO
        masks[UNSEEN] = _FULL & ~seen
        row = out[i]  # written through a row: twice as fast as out[i, ...] item by item
        for slot in range(NUM_CARD_SLICES):
            m = masks[slot]
            at = slot * NUM_CARDS
            for b in range(6):  # bytes 0..5: cards 0..47
                byte = (m >> np.uint64(8 * b)) & np.uint64(0xFF)
                for k in range(8):
                    row[at + 8 * b + k] = _BYTE_BITS[byte, k]
            byte = (m >> np.uint64(48)) & np.uint64(0xF)
            for k in range(4):  # cards 48..51
                row[at + 48 + k] = _BYTE_BITS[byte, k]
        sc = SCALARS_AT
        for k in range(FLAT_SIZE - SCALARS_AT):
            row[sc + k] = 0.0
        row[sc + PHASE + phase[i]] = 1.0
        row[sc + STOCK_SIZE] = np.float32(stock_len[i] / NUM_CARDS)
        row[sc + TURNOVERS] = np.float32(turnovers[i] / max(1, stock_turnovers))
        row[sc + TURN] = np.float32(turn[i] / max_turns)
        row[sc + RUMMY_POSSIBLE] = 1.0 if rummy_possible[i] else 0.0
        for k in range(n):
            seat = (s + k) % n
            row[sc + HAND_SIZE_REL0 + k] = np.float32(_count(hands[i, seat]) / HAND_SIZE_SCALE)
            row[sc + MELDED_REL0 + k] = 1.0 if has_melded[i, seat] else 0.0
        row[sc + DEALER_REL0 + (dealer[i] - s) % n] = 1.0
        row[sc + PLAYERS_2 + n - 2] = 1.0


@numba.njit(cache=True)
def random_legal(legal_ids, num_legal, u, out):
    """Per game, the legal action of rank floor(u * number legal) in id order."""
    for i in range(legal_ids.shape[0]):
        out[i] = legal_ids[i, int(u[i] * num_legal[i])]


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
