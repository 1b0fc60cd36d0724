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
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.encoding import CardLayout, lookup, standard_encodings
from rummy_env.romme.cards import FIRST_JOKER, JOKER, MAX_JOKERS, MAX_PHYSICAL, NUM_KINDS
from rummy_env.romme.game import DISCARD, MAX_TABLE_MELDS, PICK, RommeInformationSet, RommeState, _accepts
from rummy_env.romme.match import total_bounds
from rummy_env.romme.rules import MAX_PLAYERS, MIN_PLAYERS, RommeRules

SEATS = range(MAX_PLAYERS)
OTHERS = range(1, MAX_PLAYERS)
CARD_SLICES = (
    "hand", "discard_top", "discard_pile", "public_stock", "pending", "pending_joker_as", "table",
    *[f"table_rel{k}" for k in SEATS], *[f"known_rel{k}" for k in OTHERS], *[f"discarded_rel{k}" for k in OTHERS],
    "layoff_targets", "swap_targets", "taken", *[f"slot_{s}" for s in range(MAX_TABLE_MELDS)],
)
JOKER_SCALARS = (
    "hand_jokers", "discard_top_joker", "discard_pile_jokers", "public_stock_jokers", "pending_jokers", "table_jokers",
    *[f"table_jokers_rel{k}" for k in SEATS], *[f"known_jokers_rel{k}" for k in OTHERS],
    *[f"discarded_jokers_rel{k}" for k in OTHERS], "taken_joker",
)
SCALARS = (
    "phase_draw", "phase_play", "phase_over", "stock_size", "turn", "stock_public", "turn_points", "pending_size",
    "must_meld_taken", "joker_debt", "out_at_turn_start",
    *[f"came_out_rel{k}" for k in SEATS], *[f"hand_size_rel{k}" for k in SEATS], *[f"dealer_rel{k}" for k in SEATS],
    *[f"players_{n}" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)],
    *JOKER_SCALARS,
    *[f"total_rel{k}" for k in SEATS], "hands_played",
)
LAYOUT = CardLayout(CARD_SLICES, SCALARS)
FLAT_SIZE = LAYOUT.flat_size
PLANES_SHAPE = LAYOUT.planes_shape
HAND_SIZE_SCALE = 14.0  # the most cards a hand holds (13 dealt, one drawn; 14 dealt to the first player)
PENDING_SCALE = 13.0  # the longest meld
STATE_SIZE = (MAX_PLAYERS + 5) * NUM_KINDS + 3 + MAX_PLAYERS
TOTAL_SCALE = 500.0  # totals are divided by the loss limit, or by this (the usual limit) without one

_CARD_AT = {name: i * NUM_CARDS for i, name in enumerate(CARD_SLICES)}
_SCALAR_AT = {name: LAYOUT.card_size + i for i, name in enumerate(SCALARS)}


def flat_slices() -> dict[str, slice]:
    """Where each named part lies in the flat vector."""
    return LAYOUT.slices()


def encode(info: RommeInformationSet, rules: RommeRules, encoding: str = "flat",
           scores: Optional[Sequence[int]] = None) -> np.ndarray:
    """The observation array of ``info`` in the named encoding (a key of ``ENCODINGS``)."""
    return lookup(ENCODINGS, encoding).encode(info, rules, scores)


def observation_shape(encoding: str) -> tuple[int, ...]:
    return lookup(ENCODINGS, encoding).shape()


def total_scale(rules: RommeRules) -> float:
    """What a table's totals are divided by in observations: ``loss_limit`` (so -1 ends the
    table), or ``TOTAL_SCALE`` (500) without a loss limit."""
    return float(rules.loss_limit) if rules.loss_limit > 0 else TOTAL_SCALE


def _counts(cards) -> np.ndarray:
    """(53,) kind counts of physical ``cards``."""
    out = np.zeros(NUM_KINDS, dtype=np.float32)
    for c in cards:
        out[c % NUM_CARDS if c < FIRST_JOKER else JOKER] += 1
    return out


# How the card slices are filled at once: every card adds 1 at (its slice's row, its kind)
# of a (slices, 53) count table, counted by one ``np.bincount``; a row's 52 natural counts
# are then divided by its scale (2: a kind twice at most; 1: 0/1 slices) and capped at 1,
# and its joker count (column 52) goes to the row's joker scalar, / 6 (0/1 for the top of
# the pile and the card taken). One pass of numpy instead of one per slice.
_ROW = {name: i for i, name in enumerate(CARD_SLICES)}
_ONCE = {"discard_top", "pending", "pending_joker_as", "layoff_targets", "swap_targets", "taken",
         *[f"slot_{s}" for s in range(MAX_TABLE_MELDS)]}
_SCALE = np.array([[1.0 if name in _ONCE else 2.0] for name in CARD_SLICES], dtype=np.float32)
_JOKER_OF = {"hand": "hand_jokers", "discard_top": "discard_top_joker", "discard_pile": "discard_pile_jokers",
             "public_stock": "public_stock_jokers", "pending": "pending_jokers", "table": "table_jokers",
             **{f"table_rel{k}": f"table_jokers_rel{k}" for k in SEATS},
             **{f"known_rel{k}": f"known_jokers_rel{k}" for k in OTHERS},
             **{f"discarded_rel{k}": f"discarded_jokers_rel{k}" for k in OTHERS}, "taken": "taken_joker"}
_JOKER_ROWS = np.array([_ROW[name] for name in _JOKER_OF], dtype=np.intp)
_JOKER_AT = np.array([_SCALAR_AT[j] for j in _JOKER_OF.values()], dtype=np.intp)
_JOKER_SCALE = np.array([1.0 if j in ("discard_top_joker", "taken_joker") else float(MAX_JOKERS)
                         for j in _JOKER_OF.values()], dtype=np.float32)
_BASE = {name: row * NUM_KINDS for name, row in _ROW.items()}


def _flat(info: RommeInformationSet, rules: RommeRules, scores: Optional[Sequence[int]] = None) -> np.ndarray:
    """The flat vector; ``scores``: the table's totals per seat (a ``TableScores`` also gives
    the hands played), None outside a table."""
    n, p = info.num_players, info.player
    rel = [(p + k) % n for k in range(n)]  # seats relative to the player, the player first
    out = np.zeros(FLAT_SIZE, dtype=np.float32)
    sc = _SCALAR_AT
    base = _BASE
    at: list[int] = []  # row * 53 + kind, once per card of each slice

    def put(name: str, kinds) -> None:
        b = base[name]
        at.extend([b + k for k in kinds])

    put("hand", info.hand)
    put("discard_top", info.discard_pile[-1:])
    put("discard_pile", info.discard_pile)
    put("public_stock", info.public_stock)
    for card, kind in info.pending:
        if card != JOKER:
            at.append(base["pending"] + kind)
        else:
            at.append(base["pending"] + JOKER)
            at.append(base["pending_joker_as"] + kind)
    for m in info.table:
        put("table", m.cards)
        put(f"table_rel{(m.owner - p) % n}", m.cards)
    for seat, action in info.public_history:
        if DISCARD <= action < PICK and seat != p:
            at.append(base[f"discarded_rel{(seat - p) % n}"] + action - DISCARD)
    for k, seat in enumerate(rel[1:], start=1):
        put(f"known_rel{k}", info.known[seat])
    for slot, m in enumerate(info.table):
        takes, _, swaps = _accepts(m.meld, rules)
        slot_base = base[f"slot_{slot}"]
        for kind, _ in takes:
            if kind != JOKER:
                at.append(slot_base + kind)
                at.append(base["layoff_targets"] + kind)
        at.extend([base["swap_targets"] + kind for kind in swaps])
    if info.taken_card is not None:
        put("taken", (info.taken_card,))
    counts = np.bincount(np.array(at, dtype=np.intp), minlength=len(CARD_SLICES) * NUM_KINDS)
    counts = counts.reshape(len(CARD_SLICES), NUM_KINDS).astype(np.float32)
    out[:LAYOUT.card_size] = np.minimum(counts[:, :NUM_CARDS] / _SCALE, 1.0).ravel()
    out[_JOKER_AT] = np.minimum(counts[_JOKER_ROWS, JOKER] / _JOKER_SCALE, 1.0)
    out[sc["phase_draw"] + int(info.phase)] = 1.0
    out[sc["stock_size"]] = info.stock_size / MAX_PHYSICAL
    out[sc["turn"]] = min(info.turn / rules.max_turns, 1.0)
    out[sc["stock_public"]] = float(bool(info.public_stock))
    out[sc["turn_points"]] = min(info.turn_points / max(1, rules.come_out_points), 1.0)
    out[sc["pending_size"]] = len(info.pending) / PENDING_SCALE
    out[sc["must_meld_taken"]] = float(info.must_meld_taken)
    out[sc["joker_debt"]] = float(info.joker_debt)
    out[sc["out_at_turn_start"]] = float(info.out_at_turn_start)
    for k, seat in enumerate(rel):
        out[sc[f"came_out_rel{k}"]] = float(info.came_out[seat])
        out[sc[f"hand_size_rel{k}"]] = min(info.hand_sizes[seat] / HAND_SIZE_SCALE, 1.0)
    out[sc[f"dealer_rel{(info.dealer - p) % n}"]] = 1.0
    out[sc[f"players_{n}"]] = 1.0
    if scores is not None:
        if len(scores) != n:
            raise ValueError(f"scores must hold one total per seat ({n}), got {len(scores)}")
        scale = total_scale(rules)
        for k, seat in enumerate(rel):
            out[sc[f"total_rel{k}"]] = scores[seat] / scale
        if rules.hands_per_table > 0:
            out[sc["hands_played"]] = getattr(scores, "hands_played", 0) / rules.hands_per_table
    return out


def _bounds(rules: RommeRules, which: int) -> np.ndarray:
    """Lower (``which`` 0) or upper (1) bounds of the flat vector: [0, 1] but for the
    totals, bounded by what a table under ``rules`` can reach (``total_bounds``)."""
    out = np.full(FLAT_SIZE, float(which), dtype=np.float32)
    bound = total_bounds(rules)[which] / total_scale(rules)
    for k in SEATS:
        out[_SCALAR_AT[f"total_rel{k}"]] = bound
    return out


def _high(rules: RommeRules) -> np.ndarray:
    """Upper bounds of the flat vector: 1, the totals' highest reachable / ``total_scale``."""
    return _bounds(rules, 1)


def _low(rules: RommeRules) -> np.ndarray:
    """Lower bounds of the flat vector: 0, the totals' lowest reachable / ``total_scale``."""
    return _bounds(rules, 0)


ENCODINGS = standard_encodings(LAYOUT, _flat, _high, _low)


def state_vector(state: RommeState) -> np.ndarray:
    """Full state for centralised critics (absolute seats), kind counts over 53 kinds
    (natural counts / 2, jokers / 6).

    Layout: hands of seats 0..5 (6 x 53; 0 for absent seats), stock (53), discard pile
    (53), discard top (53), table (53), pending meld (53), phase one-hot (3), seat to move
    one-hot (6): (592,).
    """
    scale = np.array([2.0] * NUM_CARDS + [float(MAX_JOKERS)], dtype=np.float32)
    parts = [_counts(h) for h in state.hands] + [np.zeros(NUM_KINDS, np.float32)] * (MAX_PLAYERS - state.num_players)
    parts += [_counts(state.stock), _counts(state.discard_pile), _counts(state.discard_pile[-1:]),
              _counts(c for m in state.table for c in m.cards), _counts(c for c, _ in state.pending)]
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    out[: (MAX_PLAYERS + 5) * NUM_KINDS] = np.minimum(np.concatenate(parts) / np.tile(scale, MAX_PLAYERS + 5), 1.0)
    out[(MAX_PLAYERS + 5) * NUM_KINDS + int(state.phase)] = 1.0
    out[(MAX_PLAYERS + 5) * NUM_KINDS + 3 + state.current_player] = 1.0
    return out
