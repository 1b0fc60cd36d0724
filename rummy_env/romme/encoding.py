"""Rommé observation encoders: a player's information set -> arrays, from named slices.

Built from ``RommeInformationSet`` alone, so they cannot show a card the player does not
know. The layout is the same for 2 to 6 players (one network can play every table size):
seats are *relative* (``rel0`` = the observing player, ``rel1`` = the next player to the
left, who moves after them, ...) and slices of seats absent at the table are 0.

Rommé plays with two decks and jokers, so a card slice is 52 wide over the natural
*kinds* in card-id order (``suit * 13 + rank``) and holds a count scaled to 0..1: 0.5 for
one card of the kind, 1.0 for both (``count / 2``; a slice that can hold a kind at most
once is 0/1). Jokers have no place in a 4 x 13 plane: each slice that can hold jokers has
a scalar ``..._jokers`` with the number of jokers / 6 (flags: 0/1).

| card slice              | meaning                                                              |
|-------------------------|----------------------------------------------------------------------|
| hand                    | the player's hand (count / 2)                                        |
| discard_top             | the top card of the discard pile (0/1)                               |
| discard_pile            | every card in the discard pile, top included (count / 2)             |
| public_stock            | cards of a stock whose order is public (after a ``flip`` turnover)   |
| pending                 | natural cards of the meld being built this turn (0/1)                |
| pending_joker_as        | the kinds the jokers of the pending meld stand for (0/1)             |
| table                   | natural cards in every table meld (count / 2)                        |
| table_rel0..rel5        | natural cards in the table melds laid by each relative seat          |
| known_rel1..rel5        | cards known to be in each other seat's hand: taken from the pile or  |
|                         | by a swap, or drawn from a public stock (all cards once shown)       |
| discarded_rel1..rel5    | cards each other seat discarded this hand (count / 2, at most 1)     |
| layoff_targets          | kinds a natural card of which some table meld takes now (0/1)        |
| swap_targets            | kinds that would free a joker of some table meld by a swap (0/1)     |
| taken                   | the card the player to move took from the pile this turn (0/1)       |
| slot_0..slot_35         | for each table slot (``LAYOFF`` actions name slots), the natural     |
|                         | kinds that meld takes now (0/1; 0 for an empty slot)                 |

| scalar                          | meaning                                                      |
|---------------------------------|--------------------------------------------------------------|
| phase_draw, phase_play, phase_over | the phase, one-hot                                        |
| stock_size                      | cards in the stock / 110                                     |
| turn                            | turns played / ``max_turns``                                 |
| stock_public                    | 1 when the stock's order is public (a ``flip`` turnover)     |
| turn_points                     | points committed this turn before coming out / ``come_out_points`` (at most 1) |
| pending_size                    | cards in the pending meld / 13                               |
| must_meld_taken                 | 1 when the card taken from the pile must still be melded     |
| joker_debt                      | 1 when the player to move holds a joker taken by a swap      |
| out_at_turn_start               | 1 when the player to move had come out before this turn      |
| came_out_rel0..rel5             | 1 per relative seat that has come out                        |
| hand_size_rel0..rel5            | cards in each relative seat's hand / 14                      |
| dealer_rel0..rel5               | the dealer, one-hot by relative seat                         |
| players_2..players_6            | the number of players, one-hot                               |
| hand_jokers, discard_top_joker, discard_pile_jokers, public_stock_jokers, pending_jokers, table_jokers, table_jokers_rel0..rel5, known_jokers_rel1..rel5, discarded_jokers_rel1..rel5, taken_joker | the jokers of the card slice of that name / 6 (``discard_top_joker`` and ``taken_joker``: 0/1) |
| total_rel0..rel5                | each relative seat's running total at the table / ``total_scale`` (signed; 0 outside a table) |
| hands_played                    | hands finished at the table / ``hands_per_table`` (0 outside a table or with ``hands_per_table`` 0) |

- ``flat``: float32 vector of the 62 card slices then the 64 scalars: shape (3288,).
- ``planes``: float32 (126, 4, 13): the card slices as 4 x 13 planes (suit rows, rank
  columns), then each scalar as a constant plane.

The table (``episode="match"``, ``rummy_env.romme.match``): the encoders read the totals
per seat from ``scores`` (the table's ``points``, a ``TableScores`` that also carries the
hands played; a plain sequence of totals counts as 0 hands played; None outside a table).
``total_scale`` is ``loss_limit`` when the rules have one, so -1 is the total that ends
the table, else 500 (``TOTAL_SCALE``, the usual limit). Totals are the only entries that
can be negative or above 1: an env's observation space bounds them by the most a table
under its rules can reach (``low``, ``high``; ``rummy_env.romme.match.total_bounds``).
Every other entry is in [0, 1].

The names, positions and scales are ``rummy_env.romme.layout``'s (re-exported here); the
flat vector is written by one compiled call where numba is in use
(``rummy_env.romme.encoding_jit``, checked against the Python writer here when first
used), else in Python.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.encoding import CompiledEncoder, lookup, random_positions, standard_encodings
from rummy_env.core.textview import text_encodings
from rummy_env.romme import textview
from rummy_env.romme.cards import FIRST_JOKER, JOKER, MAX_JOKERS, NUM_KINDS
from rummy_env.romme.game import RommeInformationSet, RommeState, _accepts
from rummy_env.romme.layout import (
    CAME_OUT_REL0, CARD_SLICES, COUNT_SCALE, DEALER_REL0, DISCARD_PILE, DISCARD_TOP, DISCARDED_REL1, FLAT_SIZE, HAND,
    HAND_SIZE_REL0, HAND_SIZE_SCALE, HANDS_PLAYED, JOKER_DEBT, JOKER_SCALAR, JOKER_SCALARS, JOKER_SCALE, KNOWN_REL1,
    LAYOFF_TARGETS, LAYOUT, MUST_MELD_TAKEN, NUM_CARD_SLICES, OTHERS, OUT_AT_TURN_START, PENDING, PENDING_JOKER_AS,
    PENDING_SCALE, PENDING_SIZE, PHASE, PLANES_SHAPE, PLAYERS_2, PUBLIC_STOCK, SCALARS, SCALARS_AT, SEATS, SLOT_0,
    STATE_PHASE, STATE_ROWS, STATE_SIZE, STATE_TO_MOVE, STOCK_PUBLIC, STOCK_SCALE, STOCK_SIZE, SWAP_TARGETS, TABLE,
    TABLE_REL0, TAKEN, TOTAL_REL0, TOTAL_SCALE, TURN, TURN_POINTS, check_scores, total_scale,
)
from rummy_env.romme.match import total_bounds
from rummy_env.romme.rules import MAX_PLAYERS, RommeRules

__all__ = [  # the layout's names are re-exported: importable from here as they always were
    "CARD_SLICES", "ENCODINGS", "FLAT_SIZE", "HAND_SIZE_SCALE", "JOKER_SCALARS", "LAYOUT", "OTHERS", "PENDING_SCALE",
    "PLANES_SHAPE", "SCALARS", "SEATS", "STATE_SIZE", "TOTAL_SCALE", "encode", "flat_slices", "observation_shape",
    "state_vector", "total_scale",
]


def flat_slices() -> dict[str, slice]:
    """Where each named part lies in the flat vector."""
    return LAYOUT.slices()


def encode(info: RommeInformationSet, rules: RommeRules, encoding: str = "flat",
           scores: Optional[Sequence[int]] = None) -> np.ndarray:
    """The observation array of ``info`` in the named encoding (a key of ``ENCODINGS``)."""
    return lookup(ENCODINGS, encoding).encode(info, rules, scores)


def observation_shape(encoding: str) -> tuple[int, ...]:
    return lookup(ENCODINGS, encoding).shape()


def _counts(cards) -> np.ndarray:
    """(53,) kind counts of physical ``cards``."""
    out = np.zeros(NUM_KINDS, dtype=np.float32)
    for c in cards:
        out[c % NUM_CARDS if c < FIRST_JOKER else JOKER] += 1
    return out


# How the card slices are filled at once: every card adds 1 at (its slice's number, its
# kind) of a (slices, 53) count table, counted by one ``np.bincount``; a slice's 52 natural
# counts are then divided by its ``COUNT_SCALE`` and capped at 1, and its joker count
# (column 52) goes to its ``JOKER_SCALAR``, divided by its ``JOKER_SCALE`` and capped at 1
# (the layout's). One pass of numpy instead of one per slice.
_SCALE = np.array(COUNT_SCALE, dtype=np.float32)[:, None]
_JOKER_ROWS = np.array([s for s in range(NUM_CARD_SLICES) if JOKER_SCALAR[s] >= 0], dtype=np.intp)
_JOKER_AT = np.array([SCALARS_AT + JOKER_SCALAR[s] for s in _JOKER_ROWS], dtype=np.intp)
_JOKER_SCALE = np.array([JOKER_SCALE[s] for s in _JOKER_ROWS], dtype=np.float32)


def _python_encode_flat(info: RommeInformationSet, rules: RommeRules,
                        scores: Optional[Sequence[int]] = None) -> np.ndarray:
    """The flat vector built in Python (the path without numba, and the compiled one's
    reference); ``scores``: the table's totals per seat (a ``TableScores`` also gives the
    hands played), None outside a table."""
    n, p = info.num_players, info.player
    rel = [(p + k) % n for k in range(n)]  # seats relative to the player, the player first
    out = np.zeros(FLAT_SIZE, dtype=np.float32)
    at: list[int] = []  # slice number * 53 + kind, once per card of each slice

    def put(slot: int, kinds) -> None:
        b = slot * NUM_KINDS
        at.extend([b + k for k in kinds])

    put(HAND, info.hand)
    put(DISCARD_TOP, info.discard_pile[-1:])
    put(DISCARD_PILE, info.discard_pile)
    put(PUBLIC_STOCK, info.public_stock)
    for card, kind in info.pending:
        if card != JOKER:
            at.append(PENDING * NUM_KINDS + kind)
        else:
            at.append(PENDING * NUM_KINDS + JOKER)
            at.append(PENDING_JOKER_AS * NUM_KINDS + kind)
    for m in info.table:
        put(TABLE, m.cards)
        put(TABLE_REL0 + (m.owner - p) % n, m.cards)
    for k, seat in enumerate(rel[1:], start=1):
        put(KNOWN_REL1 + k - 1, info.known[seat])
        put(DISCARDED_REL1 + k - 1, info.discarded[seat])
    for slot, m in enumerate(info.table):
        takes, _, swaps = _accepts(m.meld, rules)
        for kind, _ in takes:
            if kind != JOKER:
                at.append((SLOT_0 + slot) * NUM_KINDS + kind)
                at.append(LAYOFF_TARGETS * NUM_KINDS + kind)
        put(SWAP_TARGETS, swaps)
    if info.taken_card is not None:
        put(TAKEN, (info.taken_card,))
    counts = np.bincount(np.array(at, dtype=np.intp), minlength=NUM_CARD_SLICES * NUM_KINDS)
    counts = counts.reshape(NUM_CARD_SLICES, NUM_KINDS).astype(np.float32)
    out[:SCALARS_AT] = np.minimum(counts[:, :NUM_CARDS] / _SCALE, 1.0).ravel()
    out[_JOKER_AT] = np.minimum(counts[_JOKER_ROWS, JOKER] / _JOKER_SCALE, 1.0)
    sc = SCALARS_AT
    out[sc + PHASE + int(info.phase)] = 1.0
    out[sc + STOCK_SIZE] = info.stock_size / STOCK_SCALE
    out[sc + TURN] = min(info.turn / rules.max_turns, 1.0)
    out[sc + STOCK_PUBLIC] = float(bool(info.public_stock))
    out[sc + TURN_POINTS] = min(info.turn_points / max(1, rules.come_out_points), 1.0)
    out[sc + PENDING_SIZE] = len(info.pending) / PENDING_SCALE
    out[sc + MUST_MELD_TAKEN] = float(info.must_meld_taken)
    out[sc + JOKER_DEBT] = float(info.joker_debt)
    out[sc + OUT_AT_TURN_START] = float(info.out_at_turn_start)
    for k, seat in enumerate(rel):
        out[sc + CAME_OUT_REL0 + k] = float(info.came_out[seat])
        out[sc + HAND_SIZE_REL0 + k] = min(info.hand_sizes[seat] / HAND_SIZE_SCALE, 1.0)
    out[sc + DEALER_REL0 + (info.dealer - p) % n] = 1.0
    out[sc + PLAYERS_2 + n - 2] = 1.0
    if scores is not None:
        check_scores(scores, n)
        scale = total_scale(rules)
        for k, seat in enumerate(rel):
            out[sc + TOTAL_REL0 + k] = scores[seat] / scale
        if rules.hands_per_table > 0:
            out[sc + HANDS_PLAYED] = getattr(scores, "hands_played", 0) / rules.hands_per_table
    return out


def _bounds(rules: RommeRules, which: int) -> np.ndarray:
    """Lower (``which`` 0) or upper (1) bounds of the flat vector: [0, 1] but for the
    totals, bounded by what a table under ``rules`` can reach (``total_bounds``)."""
    out = np.full(FLAT_SIZE, float(which), dtype=np.float32)
    bound = total_bounds(rules)[which] / total_scale(rules)
    for k in SEATS:
        out[SCALARS_AT + TOTAL_REL0 + k] = bound
    return out


def _high(rules: RommeRules) -> np.ndarray:
    """Upper bounds of the flat vector: 1, the totals' highest reachable / ``total_scale``."""
    return _bounds(rules, 1)


def _low(rules: RommeRules) -> np.ndarray:
    """Lower bounds of the flat vector: 0, the totals' lowest reachable / ``total_scale``."""
    return _bounds(rules, 0)


def _check_cases():
    """Two seats' information sets at every decision of a random hand (60 turns at most) at
    2, 3 and 6 players, under rules that turn the stock over face up and at a table's
    totals with hands played: what the compiled encoder is checked on before it is used."""
    from rummy_env.romme.match import TableScores

    for n, rules, scores in ((2, RommeRules(turnover="flip", max_turns=60), None),
                             (3, RommeRules(loss_limit=300, max_turns=60), TableScores((-40, 75, 12), 3)),
                             (MAX_PLAYERS, RommeRules(max_turns=60), tuple(range(MAX_PLAYERS)))):
        hand = RommeState.new_hand(n, rules=rules, seed=n)
        for state in random_positions(hand, np.random.default_rng(n)):
            for seat in {state.current_player, (state.current_player + 1) % n}:
                yield state.information_set(seat), rules, scores


def _load_compiled():
    from rummy_env.romme import encoding_jit

    return encoding_jit.encode_flat


# the flat vector: one compiled call when ``rummy_env.romme.encoding_jit`` can be used
_flat = CompiledEncoder(_python_encode_flat, _load_compiled, _check_cases, "Rommé observation encoder")


ENCODINGS = standard_encodings(LAYOUT, _flat, _high, _low)
ENCODINGS.update(text_encodings("romme", textview.WORDS))  # text, json and their _no_moves views


def state_vector(state: RommeState) -> np.ndarray:
    """Full state for centralised critics (absolute seats), kind counts over 53 kinds
    (natural counts / 2, jokers / 6).

    Layout (``layout.STATE_ROWS``, then the one-hots): hands of seats 0..5 (6 x 53; 0 for
    absent seats), stock (53), discard pile (53), discard top (53), table (53), pending meld
    (53), phase one-hot (3), seat to move one-hot (6): (592,).
    """
    scale = np.array([2.0] * NUM_CARDS + [float(MAX_JOKERS)], dtype=np.float32)
    parts = [_counts(h) for h in state.hands] + [np.zeros(NUM_KINDS, np.float32)] * (MAX_PLAYERS - state.num_players)
    parts += [_counts(state.stock), _counts(state.discard_pile), _counts(state.discard_pile[-1:]),
              _counts(c for m in state.table for c in m.cards), _counts(c for c, _ in state.pending)]
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    out[:STATE_PHASE] = np.minimum(np.concatenate(parts) / np.tile(scale, len(STATE_ROWS)), 1.0)
    out[STATE_PHASE + int(state.phase)] = 1.0
    out[STATE_TO_MOVE + state.current_player] = 1.0
    return out
