"""Basic Rummy's observation layout: the named slices of the ``flat`` vector, built once,
and the scales its writers share.

Why a module of its own: the observation is written in Python (``rummy_env.basic.encoding``)
and in one compiled call (``rummy_env.basic.encoding_jit``), and read by the network
(``rummy_env.agents.basic.network``); each takes its offsets from here, so none restates a
number that could drift from the others. The positions are module-level ints because
numba reads those at compile time as constants: the compiled writer costs the same as
with literal numbers. What each slice means: ``rummy_env.basic.encoding``.
"""

from __future__ import annotations

from rummy_env.basic.rules import MAX_PLAYERS, MIN_PLAYERS
from rummy_env.core.encoding import CardLayout

SEATS = range(MAX_PLAYERS)  # relative seats: 0 is the observing player
OTHERS = range(1, MAX_PLAYERS)
CARD_SLICES = (
    "hand", "discard_top", "discard_pile", "public_stock", "layoff_targets", "taken", "unseen",
    *[f"played_rel{k}" for k in SEATS], *[f"known_rel{k}" for k in OTHERS], *[f"discarded_rel{k}" for k in OTHERS],
)
SCALARS = (
    "phase_draw", "phase_play", "phase_over", "stock_size", "turnovers", "turn", "rummy_possible",
    *[f"hand_size_rel{k}" for k in SEATS], *[f"melded_rel{k}" for k in SEATS], *[f"score_rel{k}" for k in SEATS],
    *[f"dealer_rel{k}" for k in SEATS], *[f"players_{n}" for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)],
)
NUM_CARD_SLICES = len(CARD_SLICES)
LAYOUT = CardLayout(CARD_SLICES, SCALARS)
FLAT_SIZE = LAYOUT.flat_size
PLANES_SHAPE = LAYOUT.planes_shape
SCALARS_AT = LAYOUT.card_size  # where the scalars start in the flat vector: after the card slices

# card slices by number: slice s is the flat vector's entries 52 s .. 52 s + 51; a run of
# per-seat slices is consecutive (relative seat k at PLAYED_REL0 + k, KNOWN_REL1 + k - 1, ...)
HAND, DISCARD_TOP, UNSEEN, PLAYED_REL0, KNOWN_REL1, DISCARDED_REL1 = map(CARD_SLICES.index, (
    "hand", "discard_top", "unseen", "played_rel0", "known_rel1", "discarded_rel1"))

# scalars by their index among the scalars (the flat vector's SCALARS_AT + index); a
# one-hot or per-seat run is consecutive: phase p at PHASE + p, relative seat k at
# HAND_SIZE_REL0 + k (and so on), n players at PLAYERS_2 + n - 2
PHASE, STOCK_SIZE, TURNOVERS, TURN, RUMMY_POSSIBLE = map(SCALARS.index, (
    "phase_draw", "stock_size", "turnovers", "turn", "rummy_possible"))
HAND_SIZE_REL0, MELDED_REL0, SCORE_REL0, DEALER_REL0, PLAYERS_2 = map(SCALARS.index, (
    "hand_size_rel0", "melded_rel0", "score_rel0", "dealer_rel0", f"players_{MIN_PLAYERS}"))

HAND_SIZE_SCALE = 11.0  # hand sizes are divided by this: the most cards a hand holds
MAX_HAND_POINTS = 100  # at most 10 cards are left in a losing hand: 100 points

# The full state vector (``encoding.state_vector``, for centralised critics; absolute
# seats, 0 for seats absent at the table): 0/1 card slices, then the phase one-hot (in
# ``game.Phase`` order) and the seat to move, one-hot.
STATE_LAYOUT = CardLayout((*[f"hand_{s}" for s in SEATS], "stock", "discard_pile", "discard_top", "table"),
                          ("phase_draw", "phase_play", "phase_over", *[f"to_move_{s}" for s in SEATS]))
STATE_SIZE = STATE_LAYOUT.flat_size
STATE_PHASE = STATE_LAYOUT.card_size + STATE_LAYOUT.scalars.index("phase_draw")  # phase p at STATE_PHASE + p
STATE_TO_MOVE = STATE_LAYOUT.card_size + STATE_LAYOUT.scalars.index("to_move_0")  # seat s at STATE_TO_MOVE + s
