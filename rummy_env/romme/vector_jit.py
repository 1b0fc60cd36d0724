"""Rommé's vector engine as compiled loops over the games (numba).

Why: a Rommé move in the pure game (``rummy_env.romme.game``) costs a good part of a
millisecond of Python around its compiled mask; here every stage is one loop that visits
every game once: ``deal_games`` (explicit deal orders, as ``RommeState.from_deck`` deals
them), ``apply_actions`` (draws, the pending meld card by card, commits, lay-offs, joker
swaps, discards, going out, the stock turned over, stalemates), ``legal_moves`` (the mask
and the legal ids in increasing order) and ``observe_flat`` (the ``flat`` observation of
any seat). The legal actions are the game's own compiled kernels
(``rummy_env.romme.legal_jit``'s ``_draw_into`` and ``_play_into``, which read the hand's
kind counts from the mask's scratch, so the engine writes them there from its own counts),
called per game; the meld being committed is read by the solver's ``_completions`` as the
game reads it. The observation's card slices are written straight from the engine's
counts (the game's writer takes the information set's cards one by one: spreading the
counts into cards and adding them back was 40% of an observation), the rest by the game's
own writer (``rummy_env.romme.encoding_jit._encode_public``). The mask and the
observation arrays are made uninitialised and each game's row is zeroed just before it
is written (then in cache), not the whole array first.

Kinds, not physical cards. Two copies of a card are the same to every rule and to every
player (the pure game shows kinds only), so the engine keeps kind counts: per seat the
hand, the cards known to be in it and the cards it discarded. What the pure game decides
by physical identity is kept as flags: the card taken from the pile (its kind, whether it
is still held, whether it went into the pending meld) and whether the joker taken by a
swap is still held. A card of a kind leaves a hand as ``RommeState._take`` and
``_forget`` say: the swapped joker first, then the card taken from the pile, else
another copy, which takes a known copy of its kind out of ``known`` unless the only ones
known are the card taken this turn.

State is arrays over the games: ``st`` (N, ``NUM_FIELDS``) int64 the turn's numbers (the
columns below), per seat kind counts (``hands``, ``known``, ``discarded``), came-out
flags and hand sizes; the stock and the discard pile as kinds (top last); the table as
up to 36 melds each read as the five numbers the game's kernels take (``_meld_code``:
a set (0, rank, suits mask, jokers, 0), a run (1, suit, start, length, joker offsets
mask)) with its owner; per seat the kinds it let go by (``passed``, what the heuristic
reads of the public history, ``rummy_env.romme.vector.passes``). The turnover's shuffle is the pure game's generator (seeded by
the hand's deal order): ``apply_actions`` lays the pile below its top as the stock in
pile order and flags the game (``shuffle``); the engine then orders it in Python.
"""

from __future__ import annotations

import numba
import numpy as np

from rummy_env.core.cards import NUM_CARDS, NUM_RANKS
from rummy_env.core.compiled import refresh_cache
from rummy_env.romme import legal_jit as L
from rummy_env.romme.cards import FIRST_JOKER, JOKER, NUM_KINDS
from rummy_env.romme.encoding_jit import _ADD, _add_cards, _encode_public
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, MAX_TABLE_MELDS, PICK, SWAP, TAKE_DISCARD, Phase,
)
from rummy_env.romme.layout import (
    DISCARD_PILE, DISCARD_TOP, DISCARDED_REL1, HAND, KNOWN_REL1, NUM_CARD_SLICES, PUBLIC_STOCK,
)
from rummy_env.romme.melds_jit import _popcount, _run_legal

# the columns of ``st``: the player to move, the dealer, the phase, turns played, turnovers,
# whether the stock's order is public, points / melds / a run committed this turn before
# coming out, whether the player to move had come out at the turn's start, the kind of the
# card taken from the pile this turn (-1: none), whether it is still held, whether it went
# into the pending meld, whether it must still be melded, whether a joker taken by a swap
# is held, the pending meld (natural kinds and the kinds its jokers stand for, as masks),
# the stock's and the pile's lengths, the melds on the table, whether the upcard still lies at
# the bottom of the pile (never taken, never turned over into the stock)
(CUR, DEALER, PHASE, TURN, TURNOVERS, PUBLIC, POINTS, MELDS, RUN, OUT_START, TAKEN, HELD, IN_PENDING, MUST, DEBT,
 NATM, JOKM, STOCK_LEN, PILE_LEN, NUM_TABLE, UP_STAYS) = range(21)
NUM_FIELDS = 21
# ``passed[i, seat]``: the kinds the seat let go by, as ``rummy_env.romme.vector.passes`` gives them
# (bits 0..52), and the bit after the kinds' (``vector.PASSED_UPCARD``) for the upcard let go by
PASSED_UPCARD = NUM_KINDS

# how a hand ended (``apply_actions``' ``outcome``; -1: it did not): rummy_env.romme.vector.OUTCOMES
OUT, HAND_RUMMY, STALEMATE_STOCK, STALEMATE_TURNS = 0, 1, 2, 3
# ``_take``: which card of a kind left the hand
_PLAIN, _THE_TAKEN, _THE_SWAPPED = 0, 1, 2

# the numbers of the rules ``apply_actions`` reads besides the kernels' flags (``game_rules``)
G_TAKE_MELD, G_FLIP, G_MAX_TURNS, G_MULTIPLIER, G_NEVER_OUT_DOUBLE, G_EXTRA_CARD, G_CARDS = range(7)

_DRAW, _PLAY, _OVER = int(Phase.DRAW), int(Phase.PLAY), int(Phase.OVER)
_NO_TOTALS = np.zeros(0, np.float64)


@numba.njit(cache=True)
def deal_games(rows, decks, dealers, num_players, game_rules, st, hands, known, discarded, came_out, sizes, stock,
               pile, passed):
    """Deal game ``rows[j]`` from ``decks[j]`` (physical ids) with dealer ``dealers[j]``,
    as ``RommeState.from_deck``: 14 cards (13 without ``deal_extra_card``) to the player
    left of the dealer, then 13 to each next seat, the dealer last; the upcard; the rest is
    the stock, its top the deck's next card."""
    n = num_players
    size = game_rules[G_CARDS]
    for j in range(rows.shape[0]):
        i = rows[j]
        d = dealers[j]
        hands[i] = 0
        known[i] = 0
        discarded[i] = 0
        came_out[i] = 0
        passed[i] = 0
        st[i] = 0
        st[i, UP_STAYS] = 1
        at = 0
        for s in range(n):
            seat = (d + 1 + s) % n
            k = 13 + (1 if s == 0 and game_rules[G_EXTRA_CARD] else 0)
            for c in decks[j, at:at + k]:
                hands[i, seat, c % NUM_CARDS if c < FIRST_JOKER else JOKER] += 1
            sizes[i, seat] = k
            at += k
        c = decks[j, at]
        pile[i, 0] = c % NUM_CARDS if c < FIRST_JOKER else JOKER
        rest = size - at - 1
        for t in range(rest):  # the stock's top is its last card: the deck's card after the upcard
            c = decks[j, size - 1 - t]
            stock[i, t] = c % NUM_CARDS if c < FIRST_JOKER else JOKER
        st[i, STOCK_LEN] = rest
        st[i, PILE_LEN] = 1
        st[i, DEALER] = d
        st[i, CUR] = (d + 1) % n
        st[i, PHASE] = _PLAY if game_rules[G_EXTRA_CARD] else _DRAW
        st[i, TAKEN] = -1


@numba.njit(cache=True)
def _pending_kinds(natm, jokm, nat, jok):
    """The pending meld's natural kinds and the kinds its jokers stand for, increasing, into
    ``nat`` and ``jok``; returns how many of each."""
    nn = nj = 0
    for k in range(NUM_CARDS):
        if (natm >> k) & 1:
            nat[nn] = k
            nn += 1
        if (jokm >> k) & 1:
            jok[nj] = k
            nj += 1
    return nn, nj


@numba.njit(cache=True)
def _set_pen(pen, scratch):
    """The penalties into the scratch where the mask's kernels read them (``legal_jit.PEN_AT``)."""
    for k in range(NUM_KINDS):
        scratch[L.PEN_AT + k] = pen[k]


@numba.njit(cache=True)
def _set_hand(counts, scratch):
    """A hand's kind counts into the scratch where the mask's kernels read them (``legal_jit.HAND_AT``)."""
    for k in range(NUM_KINDS):
        scratch[L.HAND_AT + k] = counts[k]


@numba.njit(cache=True)
def _can_take(i, p, st, hands, came_out, pile, take_meld, flags, scratch, answers, legal):
    """Whether seat ``p`` (drawing) may take the top discard (``RommeState._can_take``); the
    penalties already in the scratch."""
    if st[i, PILE_LEN] == 0:
        return False
    out = came_out[i, p] != 0
    _set_hand(hands[i, p], scratch)
    return L._draw_into(np.int64(pile[i, st[i, PILE_LEN] - 1]), False, out, take_meld and not out, flags, scratch,
                        answers, legal) > 0


@numba.njit(cache=True)
def legal_moves(st, hands, came_out, pile, codes, take_meld, flags, pen, scratch, answers, mask, num_legal, legal_ids):
    """Per game: the legal-action ``mask`` row (zeroed here, a row at a time: the row is then
    in cache for the ids written into it) and the legal ids in increasing order
    (``legal_ids[i, :num_legal[i]]``; ids past its width are not listed, the count says so),
    from the game's compiled mask (``legal_jit``: its kernels read the hand from the scratch)."""
    cap = legal_ids.shape[1]
    legal = np.empty(4 + 3 * NUM_KINDS + 4 * NUM_CARDS * MAX_TABLE_MELDS, np.int64)
    _set_pen(pen, scratch)
    width = mask.shape[1]
    for i in range(st.shape[0]):
        p = st[i, CUR]
        _set_hand(hands[i, p], scratch)
        out = came_out[i, p] != 0
        table = codes[i, :st[i, NUM_TABLE]]
        if st[i, PHASE] == _DRAW:
            top = np.int64(pile[i, st[i, PILE_LEN] - 1]) if st[i, PILE_LEN] > 0 else np.int64(-1)
            n = L._draw_into(top, st[i, STOCK_LEN] > 0, out, take_meld and not out, flags, scratch, answers, legal)
        else:
            turn = (out, st[i, TAKEN] if st[i, HELD] else np.int64(-1), st[i, MUST] != 0, st[i, DEBT] != 0,
                    st[i, POINTS], st[i, MELDS], st[i, RUN] != 0)
            natm, jokm = st[i, NATM], st[i, JOKM]
            n = L._play_into(natm, jokm, _popcount(natm), _popcount(jokm), turn, table, flags, scratch, answers,
                             legal)
        for a in range(width):
            mask[i, a] = 0
        for j in range(n):
            mask[i, legal[j]] = 1
            if j < cap:
                legal_ids[i, j] = legal[j]
        num_legal[i] = n


@numba.njit(cache=True)
def _take(i, p, kind, st, hands, known, sizes):
    """A card of ``kind`` leaves seat ``p``'s hand into a meld (``RommeState._take`` and
    ``_forget``): the joker taken by a swap first, then the card taken from the pile, else
    another copy (a known copy of the kind is then forgotten, the card taken this turn
    excepted). Returns which (``_PLAIN``, ``_THE_TAKEN``, ``_THE_SWAPPED``)."""
    hands[i, p, kind] -= 1
    sizes[i, p] -= 1
    if kind == JOKER and st[i, DEBT]:
        st[i, DEBT] = 0
        known[i, p, kind] -= 1
        return _THE_SWAPPED
    if st[i, HELD] and st[i, TAKEN] == kind:
        st[i, HELD] = 0
        known[i, p, kind] -= 1
        return _THE_TAKEN
    _forget(i, p, kind, st, known)
    return _PLAIN


@numba.njit(cache=True, inline="always")
def _forget(i, p, kind, st, known):
    """A copy of ``kind`` other than the card taken this turn left ``p``'s hand: a known one
    of that kind is no longer known, unless the only one known is the card taken."""
    if known[i, p, kind] - (1 if st[i, HELD] and st[i, TAKEN] == kind else 0) > 0:
        known[i, p, kind] -= 1


@numba.njit(cache=True)
def _best_reading(natm, jokm, flags, scratch, nat, jok):
    """The pending meld's reading as the game lays it (``RommeState._commit``: the most
    valuable, a set first among equals): (run, value, the reading's four numbers)."""
    nn, nj = _pending_kinds(natm, jokm, nat, jok)
    rows, kept = L._completions(natm, jokm, nn, nj, np.zeros(NUM_KINDS, np.int64), flags, scratch)
    best = kept[0]
    for j in kept[1:]:
        if rows[j, 3] > rows[best, 3] or (rows[j, 3] == rows[best, 3] and rows[j, 0] < rows[best, 0]):
            best = j
    return rows[best, 0], rows[best, 3], rows[best, 4], rows[best, 5], rows[best, 6], rows[best, 7]


@numba.njit(cache=True)
def _lay_off(code, kind, joker, wrap, adjacent, more):
    """A table meld's numbers (``code``, changed in place) after a card of ``kind`` is laid
    off (``joker``: a joker standing for ``kind``), as ``game._layoff_meld`` reads it: on a
    set another suit or another joker; on a run the place before its first, if that is the
    kind and the run it makes is legal, else the place after its last."""
    if code[0] == 0:
        if joker:
            code[3] += 1
        else:
            code[2] |= np.int64(1) << (kind // NUM_RANKS)
        return
    suit, start, length, places = code[1], code[2], code[3], code[4]
    if start > 0 or wrap:
        front = (start + NUM_RANKS - 1) % NUM_RANKS
        moved = (places << 1) | (1 if joker else 0)
        if suit * NUM_RANKS + front == kind and _run_legal(front, length + 1, moved, wrap, adjacent, more):
            code[2], code[3], code[4] = front, length + 1, moved
            return
    code[3] = length + 1
    if joker:
        code[4] = places | (np.int64(1) << length)


@numba.njit(cache=True)
def _swap(code, kind):
    """A table meld's numbers after natural ``kind`` takes the place of its joker standing
    for it (``melds.joker_swaps``): a set holds that suit and one joker fewer; in a run
    the joker's place holds the natural card."""
    if code[0] == 0:
        code[2] |= np.int64(1) << (kind // NUM_RANKS)
        code[3] -= 1
    else:
        code[4] &= ~(np.int64(1) << ((kind % NUM_RANKS - code[2]) % NUM_RANKS))


@numba.njit(cache=True)
def _go_out(i, p, num_players, st, hands, came_out, pen, game_rules, rewards, outcome):
    """Seat ``p`` went out: each other seat pays its cards' penalties (doubled if it never
    came out and the rules say so), times the hand-rummy multiplier if ``p`` had not come
    out at the turn's start; ``p`` wins the sum."""
    rummy = st[i, OUT_START] == 0
    mult = game_rules[G_MULTIPLIER] if rummy else 1
    points = 0
    for seat in range(num_players):
        if seat != p:
            value = 0
            for k in range(NUM_KINDS):
                value += pen[k] * hands[i, seat, k]
            if game_rules[G_NEVER_OUT_DOUBLE] and not came_out[i, seat]:
                value *= 2
            value *= mult
            rewards[i, seat] = -value
            points += value
    rewards[i, p] = points
    outcome[i] = HAND_RUMMY if rummy else OUT
    st[i, PHASE] = _OVER


@numba.njit(cache=True)
def apply_actions(actions, num_players, st, hands, known, discarded, came_out, sizes, stock, pile, codes, owners,
                  game_rules, flags, pen, scratch, answers, rewards, terminated, outcome, with_discard, shuffle, passed):
    """Apply checked ``actions`` (-1: the game does not move) in place, as
    ``RommeState.step``; a game that ends gets ``terminated``, its ``outcome`` code,
    ``with_discard`` (went out by discarding) and its ``rewards`` (the hand's, per seat);
    a game whose pile was turned over into a stock to be shuffled gets ``shuffle``. A draw
    from the stock marks the pile's top as let go by in ``passed``."""
    wrap, adjacent, more = flags[L.C_WRAP] != 0, flags[L.C_ADJACENT] != 0, flags[L.C_MORE] != 0
    take_meld = game_rules[G_TAKE_MELD] != 0
    legal = np.empty(4, np.int64)  # the draws ``_can_take`` finds legal
    _set_pen(pen, scratch)
    nat = np.empty(NUM_CARDS, np.uint8)
    jok = np.empty(NUM_CARDS, np.uint8)
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0:
            continue
        p = st[i, CUR]
        if a == DRAW_STOCK:
            if st[i, PILE_LEN] > 0:
                if st[i, UP_STAYS] and st[i, PILE_LEN] == 1:
                    passed[i, p] |= np.int64(1) << PASSED_UPCARD
                else:
                    passed[i, p] |= np.int64(1) << np.int64(pile[i, st[i, PILE_LEN] - 1])
            st[i, STOCK_LEN] -= 1
            k = stock[i, st[i, STOCK_LEN]]
            hands[i, p, k] += 1
            sizes[i, p] += 1
            if st[i, PUBLIC]:
                known[i, p, k] += 1
            st[i, TAKEN] = -1
            st[i, HELD] = 0
            st[i, PHASE] = _PLAY
        elif a == TAKE_DISCARD:
            st[i, PILE_LEN] -= 1
            if st[i, PILE_LEN] == 0:  # the bottom card taken: the upcard, if it lay there, is gone
                st[i, UP_STAYS] = 0
            k = pile[i, st[i, PILE_LEN]]
            hands[i, p, k] += 1
            sizes[i, p] += 1
            known[i, p, k] += 1
            st[i, TAKEN] = k
            st[i, HELD] = 1
            st[i, MUST] = 1 if take_meld and not came_out[i, p] else 0
            st[i, PHASE] = _PLAY
        elif a == COMMIT:
            run, value, ra, rb, rc, rd = _best_reading(st[i, NATM], st[i, JOKM], flags, scratch, nat, jok)
            slot = st[i, NUM_TABLE]
            codes[i, slot, 0], codes[i, slot, 1], codes[i, slot, 2] = run, ra, rb
            codes[i, slot, 3], codes[i, slot, 4] = rc, rd
            owners[i, slot] = p
            st[i, NUM_TABLE] = slot + 1
            if st[i, IN_PENDING]:
                st[i, MUST] = 0
                st[i, IN_PENDING] = 0
            st[i, NATM] = 0
            st[i, JOKM] = 0
            if not came_out[i, p]:
                st[i, POINTS] += value
                st[i, MELDS] += 1
                if run:
                    st[i, RUN] = 1
                if st[i, POINTS] >= flags[L.C_POINTS] and (flags[L.C_NEEDS_RUN] == 0 or st[i, RUN]):
                    came_out[i, p] = 1
            if sizes[i, p] == 0:
                _go_out(i, p, num_players, st, hands, came_out, pen, game_rules, rewards, outcome)
                terminated[i] = True
        elif a < PICK:  # a discard: any copy of the kind but the card taken from the pile
            k = a - DISCARD
            hands[i, p, k] -= 1
            sizes[i, p] -= 1
            _forget(i, p, k, st, known)
            if discarded[i, p, k] < 255:
                discarded[i, p, k] += 1
            pile[i, st[i, PILE_LEN]] = k
            st[i, PILE_LEN] += 1
            st[i, TURN] += 1
            if sizes[i, p] == 0:
                _go_out(i, p, num_players, st, hands, came_out, pen, game_rules, rewards, outcome)
                with_discard[i] = True
                terminated[i] = True
                continue
            _end_turn(i, p, num_players, st, hands, came_out, stock, pile, codes, game_rules, flags, scratch, answers,
                      legal, outcome, terminated, shuffle)
        elif a < JOKER_AS:
            k = a - PICK
            if _take(i, p, k, st, hands, known, sizes) == _THE_TAKEN:
                st[i, IN_PENDING] = 1
            st[i, NATM] |= np.int64(1) << k
        elif a < LAYOFF:
            if _take(i, p, JOKER, st, hands, known, sizes) == _THE_TAKEN:
                st[i, IN_PENDING] = 1
            st[i, JOKM] |= np.int64(1) << (a - JOKER_AS)
        else:
            joker = LAYOFF_JOKER <= a < SWAP
            base = SWAP if a >= SWAP else (LAYOFF_JOKER if joker else LAYOFF)
            slot, k = (a - base) // NUM_CARDS, (a - base) % NUM_CARDS
            if _take(i, p, JOKER if joker else k, st, hands, known, sizes) == _THE_TAKEN:
                st[i, MUST] = 0  # the card taken from the pile is on the table
            if a >= SWAP:
                _swap(codes[i, slot], k)
                hands[i, p, JOKER] += 1
                sizes[i, p] += 1
                known[i, p, JOKER] += 1
                st[i, DEBT] = 1
            else:
                _lay_off(codes[i, slot], k, joker, wrap, adjacent, more)
                if sizes[i, p] == 0:
                    _go_out(i, p, num_players, st, hands, came_out, pen, game_rules, rewards, outcome)
                    terminated[i] = True


@numba.njit(cache=True)
def _end_turn(i, p, num_players, st, hands, came_out, stock, pile, codes, game_rules, flags, scratch, answers, legal,
              outcome, terminated, shuffle):
    """``RommeState._end_turn``: the turn's marks cleared; an empty stock refilled from the
    pile below its top (flipped, or left in pile order and flagged to be shuffled); a
    stalemate at ``max_turns``; else the next player draws, unless they can neither draw
    nor take the discard (a stalemate)."""
    st[i, TAKEN] = -1
    for f in (HELD, IN_PENDING, MUST, DEBT, POINTS, MELDS, RUN):
        st[i, f] = 0
    if st[i, STOCK_LEN] == 0 and st[i, PILE_LEN] > 1:
        below = st[i, PILE_LEN] - 1
        if game_rules[G_FLIP]:
            for j in range(below):  # turned over: the first card discarded on top
                stock[i, j] = pile[i, below - 1 - j]
            st[i, PUBLIC] = 1
        else:
            stock[i, :below] = pile[i, :below]
            st[i, PUBLIC] = 0
            shuffle[i] = True
        pile[i, 0] = pile[i, below]
        st[i, PILE_LEN] = 1
        st[i, STOCK_LEN] = below
        st[i, TURNOVERS] += 1
        st[i, UP_STAYS] = 0
    if st[i, TURN] >= game_rules[G_MAX_TURNS]:
        outcome[i] = STALEMATE_TURNS
        st[i, PHASE] = _OVER
        terminated[i] = True
        return
    q = (p + 1) % num_players
    st[i, CUR] = q
    st[i, OUT_START] = came_out[i, q]
    st[i, PHASE] = _DRAW
    if st[i, STOCK_LEN] == 0 and not _can_take(i, q, st, hands, came_out, pile, game_rules[G_TAKE_MELD] != 0,
                                               flags, scratch, answers, legal):
        outcome[i] = STALEMATE_STOCK
        st[i, PHASE] = _OVER
        terminated[i] = True


@numba.njit(cache=True, inline="always")
def _add_counts(out, jokers, s, counts):
    """The cards of the kind counts ``counts`` into card slice ``s`` of ``out`` (zeros there), as
    ``encoding_jit._add_cards`` adds them one by one: a natural kind's entry is its count /
    the slice's scale, capped at 1 (exact: the scales are 1 and 2), its jokers counted.
    Inlined where it is called (seven times an observation at 4 players): as a call, passing
    its arrays cost about as much as its loop, a third of the observation in all."""
    add = _ADD[s]
    at = s * NUM_CARDS
    for k in range(NUM_CARDS):
        c = counts[k]
        if c:
            out[at + k] = min(c * add, 1.0)
    jokers[s] += counts[JOKER]


@numba.njit(cache=True)
def observe_flat(players, num_players, st, hands, known, discarded, came_out, sizes, stock, pile, codes, owners,
                 rules_numbers, out):
    """The ``flat`` observation of seat ``players[i]`` in each game into ``out`` (any values),
    as the game's compiled writer (``encoding_jit._encode_kernel``) writes that seat's
    information set (single hands: no table totals): the card slices straight from the
    engine's kind counts and kinds, then the rest by the writer's own ``_encode_public``."""
    n = num_players
    jokers = np.zeros(NUM_CARD_SLICES, np.int64)
    pending = np.empty(4 * NUM_CARDS, np.uint8)
    width = out.shape[1]
    for i in range(players.shape[0]):
        row = out[i]
        for a in range(width):  # zeroed here, a row at a time: the row is then in cache for the writer
            row[a] = 0.0
        jokers[:] = 0
        q = players[i]
        _add_counts(row, jokers, HAND, hands[i, q])
        pl = st[i, PILE_LEN]
        _add_cards(row, jokers, DISCARD_PILE, pile[i], 0, pl)
        if pl:
            top = pile[i, pl - 1]
            if top == JOKER:
                jokers[DISCARD_TOP] += 1
            else:
                row[DISCARD_TOP * NUM_CARDS + top] = 1.0
        public = st[i, PUBLIC] != 0 and st[i, STOCK_LEN] > 0
        if public:
            _add_cards(row, jokers, PUBLIC_STOCK, stock[i], 0, st[i, STOCK_LEN])
        for seat in range(n):
            k = (seat - q) % n
            if k > 0:
                _add_counts(row, jokers, KNOWN_REL1 + k - 1, known[i, seat])
                _add_counts(row, jokers, DISCARDED_REL1 + k - 1, discarded[i, seat])
        npend = 0
        natm, jokm = st[i, NATM], st[i, JOKM]
        for k in range(NUM_CARDS):
            if (natm >> k) & 1:
                pending[npend], pending[npend + 1] = k, k
                npend += 2
            if (jokm >> k) & 1:
                pending[npend], pending[npend + 1] = JOKER, k
                npend += 2
        num = st[i, NUM_TABLE]
        position = (np.int64(q), np.int64(n), st[i, DEALER], st[i, PHASE], st[i, TAKEN], st[i, STOCK_LEN], st[i, TURN],
                    st[i, POINTS], st[i, MUST] != 0, st[i, DEBT] != 0, st[i, OUT_START] != 0)
        _encode_public(row, jokers, position, rules_numbers, public, pending[:npend], owners[i, :num],
                       codes[i, :num], came_out[i, :n], sizes[i, :n], _NO_TOTALS, -1.0)


@numba.njit(cache=True)
def random_legal(legal_ids, num_legal, mask, u, out):
    """Per game, the legal action of rank floor(u * number legal) in id order (read from the
    mask where the ids overflowed their row)."""
    cap = legal_ids.shape[1]
    for i in range(legal_ids.shape[0]):
        rank = int(u[i] * num_legal[i])
        if num_legal[i] <= cap:
            out[i] = legal_ids[i, rank]
            continue
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if rank == 0:
                    out[i] = a
                    break
                rank -= 1


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
