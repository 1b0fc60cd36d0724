"""The vector engine's step as compiled loops over the games (numba): optional speed.

Why: ``VectorGinRummy``'s array operations cost about 60 numpy calls a step, each with
its own pass over the batch and its temporaries; at a thousand games that overhead, not
the arithmetic, is most of the step. Here one loop per stage visits each game once:
``apply_actions`` (the moves, draws at the wall, ``max_turns`` and the rules' other guards
against endless hands; showdowns are listed
for the engine, which scores them with the same solver and ``score_showdown`` as the
array path), ``legal_moves`` (the mask, each discard's deadwood and the mover's least
deadwood, from one pass over the hand's set choices) and ``observe_flat`` (the ``flat``
observation of the player to move). Dealing stays in numpy, so a seed deals the same
games on both paths.

The rules are those of ``rummy_env.gin.vector``'s array path, line for line; tests play
the same games through both engines and compare every array. ``VectorGinRummy`` uses
this module unless numba is missing, ``RUMMY_ENV_NO_NUMBA=1`` is set, or the kernels
fail to compile or to agree with the array path (``self_check``, once per process, with
one warning saying why); the array path is then the engine.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros  # the CPU's count-trailing-zeros: the lowest card held

from rummy_env.core.compiled import refresh_cache
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.melds_jit import solve_hand
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, HAND_SIZE, KNOCK, PASS, TAKE_DISCARD, Phase
from rummy_env.gin.layout import (
    DEADWOOD, DISCARD_DEADWOOD, DISCARD_PILE, DISCARD_TOP, FLAT_SIZE, HAND, IS_DEALER, KNOCK_LIMIT, OPPONENT_DISCARDED,
    OPPONENT_KNOWN, OPPONENT_PASSED, PHASE, POINTS_SCALE, SCALARS_AT, STOCK_AT_DEAL, STOCK_SIZE, TAKEN, TURN, UNSEEN,
)
from rummy_env.gin.scoring import Outcome

_SUIT = np.uint64(0x1FFF)
_ONE = np.uint64(1)
_FULL = np.uint64((1 << NUM_CARDS) - 1)
_OFFER, _DRAW, _DISCARD = int(Phase.OFFER), int(Phase.DRAW), int(Phase.DISCARD)
_OUTCOME_DRAW = int(Outcome.DRAW)
_WALL = 2  # a discard that leaves this many stock cards or fewer draws the hand, or (wall_knock) starts the wall
# _BYTE_BITS[b, k]: bit k of byte b as 0.0 / 1.0 (observations are written 8 cards at a time)
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)


@numba.njit(cache=True)
def apply_actions(actions, hands, known, discarded, passed, pile, pile_len, pile_mask, taken, took, phase, current,
                  passes, must_draw, decks, stock_next, turn, repeated, upcard_draws, max_turns, wall_knock,
                  max_upcard_draws, after, hand_deadwood, terminated, outcome, showdowns):
    """Apply checked ``actions`` (-1: the game does not move) in place. Knocks and Big Gin
    are not applied: their games are written to ``showdowns``, and their number returned.
    A discard keeps ``hand_deadwood`` (each seat's least deadwood) up to date from
    ``after`` (the discard deadwood of the position the actions were legal in)."""
    count = 0
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0:
            continue
        p = current[i]
        wall = wall_knock and phase[i] == _DRAW and NUM_CARDS - stock_next[i] <= _WALL
        if a == TAKE_DISCARD and max_upcard_draws > 0 and phase[i] == _DRAW and not wall:
            upcard_draws[i] += 1
            if upcard_draws[i] >= max_upcard_draws:  # the hand is drawn; the card stays on the pile
                terminated[i] = True
                outcome[i] = _OUTCOME_DRAW
                continue
        if a == PASS and wall:  # a pass at the wall draws the hand
            passed[i, p] |= _ONE << np.uint64(pile[i, pile_len[i] - 1])
            terminated[i] = True
            outcome[i] = _OUTCOME_DRAW
        elif a == TAKE_DISCARD:
            top = pile[i, pile_len[i] - 1]
            bit = _ONE << np.uint64(top)
            hands[i, p] |= bit
            known[i, p] |= bit
            pile_len[i] -= 1
            pile_mask[i] &= ~bit
            taken[i] = top
            took[i, p] = top
            phase[i] = _DISCARD
        elif a == PASS:
            passed[i, p] |= _ONE << np.uint64(pile[i, pile_len[i] - 1])
            passes[i] += 1
            current[i] = 1 - p
            if passes[i] == 2:  # both passed: the non-dealer must draw from the stock
                phase[i] = _DRAW
                must_draw[i] = True
        elif a == DRAW_STOCK:
            if pile_len[i] > 0 and not must_draw[i]:
                passed[i, p] |= _ONE << np.uint64(pile[i, pile_len[i] - 1])
            hands[i, p] |= _ONE << np.uint64(decks[i, stock_next[i]])
            stock_next[i] += 1
            must_draw[i] = False
            taken[i] = -1
            took[i, p] = -1
            phase[i] = _DISCARD
        elif a < KNOCK:
            card = a - DISCARD
            bit = _ONE << np.uint64(card)
            hands[i, p] &= ~bit
            known[i, p] &= ~bit
            discarded[i, p] |= bit
            pile[i, pile_len[i]] = card
            pile_len[i] += 1
            pile_mask[i] |= bit
            thrown_back = card == taken[i]  # only with discard_taken_card
            taken[i] = -1
            hand_deadwood[i, p] = after[i, card]
            turn[i] += 1
            again = thrown_back and repeated[i]
            repeated[i] = thrown_back
            at_wall = NUM_CARDS - stock_next[i] <= _WALL
            # the checks in the pure game's order: a second throw-back, the wall, max_turns
            if again or (at_wall and not wall_knock) or (not at_wall and turn[i] >= max_turns):
                terminated[i] = True
                outcome[i] = _OUTCOME_DRAW
            else:
                current[i] = 1 - p
                phase[i] = _DRAW
        else:
            showdowns[count] = i
            count += 1
    return count


@numba.njit(cache=True)
def deal_games(rows, new_decks, dealers, upcard_limits, first_phase, decks, dealer, hands, stock_next, pile, pile_len,
               pile_mask, current, phase, turn, passes, must_draw, taken, took, knock_limit, known, discarded, passed,
               repeated, upcard_draws, dead, dead_minus, opt4, opt3, hand_deadwood):
    """Deal ``new_decks`` (one per game of ``rows``; ``dealers`` deal) as the array path's
    ``_deal`` does, and solve both hands' least deadwood."""
    best = np.empty(NUM_CARDS, np.int64)
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    fields = np.empty(4, np.int64)
    for j in range(rows.shape[0]):
        g = rows[j]
        d = dealers[j]
        first = np.uint64(0)
        second = np.uint64(0)
        for k in range(NUM_CARDS):
            decks[g, k] = new_decks[j, k]
        for k in range(HAND_SIZE):  # the non-dealer's hand first, then the dealer's, then the upcard
            first |= _ONE << np.uint64(new_decks[j, k])
            second |= _ONE << np.uint64(new_decks[j, HAND_SIZE + k])
        dealer[g] = d
        hands[g, 1 - d] = first
        hands[g, d] = second
        stock_next[g] = 2 * HAND_SIZE + 1
        upcard = new_decks[j, 2 * HAND_SIZE]
        pile[g, 0] = upcard
        pile_len[g] = 1
        pile_mask[g] = _ONE << np.uint64(upcard)
        current[g] = 1 - d
        phase[g] = first_phase
        turn[g] = 0
        passes[g] = 0
        must_draw[g] = False
        taken[g] = -1
        repeated[g] = False
        upcard_draws[g] = 0
        knock_limit[g] = upcard_limits[upcard % 13]
        for seat in range(2):
            took[g, seat] = -1
            known[g, seat] = 0
            discarded[g, seat] = 0
            passed[g, seat] = 0
            hand_deadwood[g, seat] = solve_hand(hands[g, seat], dead, dead_minus, opt4, opt3, best, False, ranks,
                                                    options, counter, fields)


@numba.njit(cache=True)
def legal_moves(hands, current, phase, must_draw, pile, pile_len, taken, stock_next, knock_limit, big_gin, wall_knock,
                discard_taken_card, dead, dead_minus, opt4, opt3, hand_deadwood, mask, after, deadwood, num_legal,
                legal_ids):
    """Per game: the legal-action ``mask`` row (zeroed by the caller), ``after`` (each held
    card's discard deadwood in the discard phase; -1 elsewhere, set by the caller) and the
    mover's least ``deadwood``: solved for the 11 cards of a discard, read from
    ``hand_deadwood`` otherwise (a hand of 10 was solved when it was dealt or discarded to);
    and the legal action ids in increasing order (``legal_ids[i, :num_legal[i]]``). At the
    wall (``wall_knock``) the hand with the top discard is solved to see whether taking
    it allows a knock."""
    best = np.empty(NUM_CARDS, np.int64)
    ranks = np.empty(4, np.int64)
    options = np.empty(4, np.int64)
    counter = np.zeros(4, np.int64)
    fields = np.empty(4, np.int64)
    knock_ids = np.empty(NUM_CARDS, np.int64)
    for i in range(hands.shape[0]):
        h = hands[i, current[i]]
        ph = phase[i]
        discarding = ph == _DISCARD
        if discarding:
            least = solve_hand(h, dead, dead_minus, opt4, opt3, best, True, ranks, options, counter, fields)
        else:
            least = hand_deadwood[i, current[i]]
        deadwood[i] = least
        legal = 0
        if ph == _OFFER:
            mask[i, TAKE_DISCARD] = 1
            mask[i, PASS] = 1
            legal_ids[i, 0] = TAKE_DISCARD
            legal_ids[i, 1] = PASS
            legal = 2
        elif ph == _DRAW and wall_knock and NUM_CARDS - stock_next[i] <= _WALL:
            top = pile[i, pile_len[i] - 1]
            solve_hand(h | (_ONE << np.uint64(top)), dead, dead_minus, opt4, opt3, best, True, ranks, options, counter,
                       fields)
            left = h | (_ONE << np.uint64(top))
            knocks = 0
            while left:
                c = trailing_zeros(left)
                left &= left - _ONE
                if best[c] <= knock_limit[i] and (c != top or discard_taken_card):
                    knocks += 1
            if knocks:
                mask[i, TAKE_DISCARD] = 1
                legal_ids[i, legal] = TAKE_DISCARD
                legal += 1
            mask[i, PASS] = 1
            legal_ids[i, legal] = PASS
            legal += 1
        elif ph == _DRAW:
            mask[i, DRAW_STOCK] = 1
            legal_ids[i, 0] = DRAW_STOCK
            legal = 1
            if not must_draw[i] and pile_len[i] > 0:
                mask[i, TAKE_DISCARD] = 1
                legal_ids[i, 1] = TAKE_DISCARD
                legal = 2
        elif discarding:
            knocks = 0
            zero = False
            # having taken the discard at the wall: knocks only
            wall_take = wall_knock and taken[i] >= 0 and NUM_CARDS - stock_next[i] <= _WALL
            left = h
            while left:  # the cards held
                c = trailing_zeros(left)
                left &= left - _ONE
                v = best[c]
                after[i, c] = v
                zero = zero or v == 0
                if c != taken[i] or discard_taken_card:
                    if not wall_take:
                        mask[i, DISCARD + c] = 1
                        legal_ids[i, legal] = DISCARD + c
                        legal += 1
                    if v <= knock_limit[i]:
                        mask[i, KNOCK + c] = 1
                        knock_ids[knocks] = KNOCK + c
                        knocks += 1
            for k in range(knocks):  # the knocks after the discards, in id order
                legal_ids[i, legal] = knock_ids[k]
                legal += 1
            # 11 cards never split into 3-card melds only, so Big Gin leaves some discard at 0.
            if big_gin and zero and least == 0:
                mask[i, BIG_GIN] = 1
                legal_ids[i, legal] = BIG_GIN
                legal += 1
        num_legal[i] = legal


@numba.njit(cache=True)
def observe_flat(hands, current, pile, pile_len, pile_mask, known, discarded, passed, taken, after, deadwood, phase,
                 stock_next, knock_limit, turn, dealer, max_turns, out):
    """The ``flat`` observation of the player to move in each game (every entry written),
    as ``rummy_env.gin.encoding.encode_batch`` computes it."""
    masks = np.empty(DISCARD_DEADWOOD, np.uint64)  # the 0/1 card slices: the ones before discard_deadwood
    for i in range(hands.shape[0]):
        p = current[i]
        q = 1 - p
        h = hands[i, p]
        masks[HAND] = h
        masks[DISCARD_TOP] = _ONE << np.uint64(pile[i, pile_len[i] - 1]) if pile_len[i] > 0 else np.uint64(0)
        masks[DISCARD_PILE] = pile_mask[i]
        masks[OPPONENT_KNOWN] = known[i, q]
        masks[OPPONENT_DISCARDED] = discarded[i, q]
        masks[OPPONENT_PASSED] = passed[i, q]
        masks[UNSEEN] = _FULL & ~(h | known[i, q] | pile_mask[i])
        masks[TAKEN] = _ONE << np.uint64(taken[i]) if taken[i] >= 0 else np.uint64(0)
        for s in range(DISCARD_DEADWOOD):
            m = masks[s]
            at = s * NUM_CARDS
            for b in range(6):  # bytes 0..5: cards 0..47
                byte = (m >> np.uint64(8 * b)) & np.uint64(0xFF)
                for k in range(8):
                    out[i, at + 8 * b + k] = _BYTE_BITS[byte, k]
            byte = (m >> np.uint64(48)) & np.uint64(0xF)
            for k in range(4):  # cards 48..51
                out[i, at + 48 + k] = _BYTE_BITS[byte, k]
        held = 0
        x = h
        while x:
            x &= x - _ONE
            held += 1
        base = DISCARD_DEADWOOD * NUM_CARDS
        for c in range(NUM_CARDS):
            out[i, base + c] = 0.0
        if held == 11:
            for c in range(NUM_CARDS):
                v = after[i, c]
                if v > 0:
                    out[i, base + c] = np.float32(v / POINTS_SCALE)
        base = SCALARS_AT
        for k in range(FLAT_SIZE - SCALARS_AT):
            out[i, base + k] = 0.0
        out[i, base + PHASE + phase[i]] = 1.0
        out[i, base + STOCK_SIZE] = np.float32((NUM_CARDS - stock_next[i]) / STOCK_AT_DEAL)
        out[i, base + DEADWOOD] = np.float32(deadwood[i] / POINTS_SCALE)
        out[i, base + KNOCK_LIMIT] = np.float32(knock_limit[i] / POINTS_SCALE)
        out[i, base + TURN] = np.float32(turn[i] / max_turns)
        out[i, base + IS_DEALER] = 1.0 if dealer[i] == p else 0.0
        # own_score and opponent_score stay 0: the vector engine plays single hands


@numba.njit(cache=True)
def random_legal(legal_ids, num_legal, u, out):
    """Per game, the legal action of rank floor(u * number legal) in id order."""
    for i in range(legal_ids.shape[0]):
        out[i] = legal_ids[i, int(u[i] * num_legal[i])]


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
