"""Rommé's observation layout: the named slices of the ``flat`` vector, built once, the
scales its writers share (a table's totals' too), and the rows of the full state vector.

Why a module of its own: the observation is written in Python (``rummy_env.romme.encoding``)
and in one compiled call (``rummy_env.romme.encoding_jit``); each takes its offsets from
here, so none restates a number that could drift from the other, and so does the state
vector (``encoding.state_vector``). The positions are module-level ints (and tuples of
ints) because numba reads those at compile time as constants: the compiled writer costs
the same as with literal numbers. What each slice means: ``rummy_env.romme.encoding``.
"""

from __future__ import annotations

from typing import Sequence

from rummy_env.core.encoding import CardLayout
from rummy_env.romme.cards import MAX_PHYSICAL, NUM_DECKS, NUM_KINDS
from rummy_env.romme.game import MAX_TABLE_MELDS, Phase
from rummy_env.romme.rules import MAX_JOKERS, MAX_PLAYERS, MIN_PLAYERS, RommeRules

SEATS = range(MAX_PLAYERS)  # relative seats: 0 is the observing player
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
NUM_CARD_SLICES = len(CARD_SLICES)
LAYOUT = CardLayout(CARD_SLICES, SCALARS)
FLAT_SIZE = LAYOUT.flat_size
PLANES_SHAPE = LAYOUT.planes_shape
SCALARS_AT = LAYOUT.card_size  # where the scalars start in the flat vector: after the card slices

# card slices by number: slice s is the flat vector's entries 52 s .. 52 s + 51; a run of
# per-seat or per-slot slices is consecutive (relative seat k at TABLE_REL0 + k,
# KNOWN_REL1 + k - 1, DISCARDED_REL1 + k - 1; table slot s at SLOT_0 + s)
HAND, DISCARD_TOP, DISCARD_PILE, PUBLIC_STOCK, PENDING, PENDING_JOKER_AS, TABLE = map(CARD_SLICES.index, (
    "hand", "discard_top", "discard_pile", "public_stock", "pending", "pending_joker_as", "table"))
TABLE_REL0, KNOWN_REL1, DISCARDED_REL1, LAYOFF_TARGETS, SWAP_TARGETS, TAKEN, SLOT_0 = map(CARD_SLICES.index, (
    "table_rel0", "known_rel1", "discarded_rel1", "layoff_targets", "swap_targets", "taken", "slot_0"))

# scalars by their index among the scalars (the flat vector's SCALARS_AT + index); a
# one-hot or per-seat run is consecutive: phase p at PHASE + p, relative seat k at
# CAME_OUT_REL0 + k (and so on), n players at PLAYERS_2 + n - 2
PHASE, STOCK_SIZE, TURN, STOCK_PUBLIC, TURN_POINTS, PENDING_SIZE, MUST_MELD_TAKEN, JOKER_DEBT, \
    OUT_AT_TURN_START = map(SCALARS.index, (
        "phase_draw", "stock_size", "turn", "stock_public", "turn_points", "pending_size", "must_meld_taken",
        "joker_debt", "out_at_turn_start"))
CAME_OUT_REL0, HAND_SIZE_REL0, DEALER_REL0, PLAYERS_2, TOTAL_REL0, HANDS_PLAYED = map(SCALARS.index, (
    "came_out_rel0", "hand_size_rel0", "dealer_rel0", f"players_{MIN_PLAYERS}", "total_rel0", "hands_played"))
HAND_JOKERS, DISCARD_TOP_JOKER, DISCARD_PILE_JOKERS, PUBLIC_STOCK_JOKERS, PENDING_JOKERS, TABLE_JOKERS, \
    TABLE_JOKERS_REL0, KNOWN_JOKERS_REL1, DISCARDED_JOKERS_REL1, TAKEN_JOKER = map(SCALARS.index, (
        "hand_jokers", "discard_top_joker", "discard_pile_jokers", "public_stock_jokers", "pending_jokers",
        "table_jokers", "table_jokers_rel0", "known_jokers_rel1", "discarded_jokers_rel1", "taken_joker"))

# How a card slice holds its cards: a count of each natural kind divided by its scale and
# capped at 1 (2: a kind held twice at most, so one card is 0.5; 1: a 0/1 slice), and the
# scalar its jokers go to (an index among the scalars, -1 for none), divided by that
# scalar's scale (``MAX_JOKERS``; 1 for the top of the pile and the card taken, which are
# one card) and capped at 1.
_ONCE = {"discard_top", "pending", "pending_joker_as", "layoff_targets", "swap_targets", "taken",
         *[f"slot_{s}" for s in range(MAX_TABLE_MELDS)]}
JOKER_OF = {"hand": "hand_jokers", "discard_top": "discard_top_joker", "discard_pile": "discard_pile_jokers",
            "public_stock": "public_stock_jokers", "pending": "pending_jokers", "table": "table_jokers",
            **{f"table_rel{k}": f"table_jokers_rel{k}" for k in SEATS},
            **{f"known_rel{k}": f"known_jokers_rel{k}" for k in OTHERS},
            **{f"discarded_rel{k}": f"discarded_jokers_rel{k}" for k in OTHERS}, "taken": "taken_joker"}
COUNT_SCALE = tuple(1.0 if name in _ONCE else float(NUM_DECKS) for name in CARD_SLICES)  # per card slice
JOKER_SCALAR = tuple(SCALARS.index(JOKER_OF[name]) if name in JOKER_OF else -1 for name in CARD_SLICES)
JOKER_SCALE = tuple(1.0 if JOKER_OF.get(name) in ("discard_top_joker", "taken_joker") else float(MAX_JOKERS)
                    for name in CARD_SLICES)  # per card slice (where it has a joker scalar)

STOCK_SCALE = float(MAX_PHYSICAL)  # the stock size is divided by the cards of the largest pack
HAND_SIZE_SCALE = 14.0  # the most cards a hand holds (13 dealt, one drawn; 14 dealt to the first player)
PENDING_SCALE = 13.0  # the longest meld
TOTAL_SCALE = 500.0  # totals are divided by the loss limit, or by this (the usual limit) without one


def total_scale(rules: RommeRules) -> float:
    """What a table's totals are divided by in observations: ``loss_limit`` (so -1 ends the
    table), or ``TOTAL_SCALE`` (500) without a loss limit."""
    return float(rules.loss_limit) if rules.loss_limit > 0 else TOTAL_SCALE


def check_scores(scores: Sequence[int], num_players: int) -> None:
    """A table's totals hold one total per seat: else a ValueError saying so."""
    if len(scores) != num_players:
        raise ValueError(f"scores must hold one total per seat ({num_players}), got {len(scores)}")


# The full state vector (``encoding.state_vector``, absolute seats): rows of 53 kind counts
# (natural counts / 2, jokers / MAX_JOKERS), then the phase one-hot, then the seat to move.
STATE_ROWS = (*[f"hand_{s}" for s in SEATS], "stock", "discard_pile", "discard_top", "table", "pending")
STATE_PHASE = len(STATE_ROWS) * NUM_KINDS  # where the phase one-hot starts
STATE_TO_MOVE = STATE_PHASE + len(Phase)  # where the seat-to-move one-hot starts
STATE_SIZE = STATE_TO_MOVE + MAX_PLAYERS
