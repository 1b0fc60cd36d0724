"""Gin Rummy's observation layout: the named slices of the ``flat`` vector, built once,
and the scales its writers share.

Why a module of its own: the observation is written in four places (the Python encoder
and its batch twin in ``rummy_env.gin.encoding``, the compiled single-hand writer in
``rummy_env.gin.encoding_jit``, the vector engine's compiled writer in
``rummy_env.gin.vector_jit``) and read by the ``ppo`` network
(``rummy_env.agents.gin.network``); each takes its offsets from here, so none restates a
number that could drift from the others. The positions are module-level ints because
numba reads those at compile time as constants: the compiled writers cost the same as
with literal numbers. What each slice means: ``rummy_env.gin.encoding``.
"""

from __future__ import annotations

from rummy_env.core.encoding import CardLayout

CARD_SLICES = (
    "hand",
    "discard_top",
    "discard_pile",
    "opponent_known",
    "opponent_discarded",
    "opponent_passed",
    "unseen",
    "taken",
    "discard_deadwood",
)
SCALARS = (
    "phase_offer",
    "phase_draw",
    "phase_discard",
    "phase_over",
    "stock_size",
    "deadwood",
    "knock_limit",
    "turn",
    "is_dealer",
    "own_score",
    "opponent_score",
)
LAYOUT = CardLayout(CARD_SLICES, SCALARS)
FLAT_SIZE = LAYOUT.flat_size
PLANES_SHAPE = LAYOUT.planes_shape
SCALARS_AT = LAYOUT.card_size  # where the scalars start in the flat vector: after the card slices

# card slices by number: slice s is the flat vector's entries 52 s .. 52 s + 51. The ones
# before DISCARD_DEADWOOD are 0/1, written from 52-bit masks; discard_deadwood holds numbers
(HAND, DISCARD_TOP, DISCARD_PILE, OPPONENT_KNOWN, OPPONENT_DISCARDED, OPPONENT_PASSED, UNSEEN, TAKEN,
 DISCARD_DEADWOOD) = map(CARD_SLICES.index, (
    "hand", "discard_top", "discard_pile", "opponent_known", "opponent_discarded", "opponent_passed", "unseen", "taken",
    "discard_deadwood"))

# scalars by their index among the scalars (the flat vector's SCALARS_AT + index); the
# phase one-hot is consecutive, phase p at PHASE + p, and comes before the others
PHASE, STOCK_SIZE, DEADWOOD, KNOCK_LIMIT, TURN, IS_DEALER, OWN_SCORE, OPPONENT_SCORE = map(SCALARS.index, (
    "phase_offer", "stock_size", "deadwood", "knock_limit", "turn", "is_dealer", "own_score", "opponent_score"))

STOCK_AT_DEAL = 31  # the stock size is divided by this: the cards left after the deal
POINTS_SCALE = 100.0  # deadwood counts and the knock limit are divided by this

# The full state vector (``encoding.state_vector``, for centralised critics; absolute
# seats): 0/1 card slices, then the phase one-hot (in ``game.Phase`` order) and the seat
# to move, one-hot.
STATE_LAYOUT = CardLayout(("hand_0", "hand_1", "stock", "discard_pile", "discard_top"),
                          ("phase_offer", "phase_draw", "phase_discard", "phase_over", "to_move_0", "to_move_1"))
STATE_SIZE = STATE_LAYOUT.flat_size
STATE_PHASE = STATE_LAYOUT.card_size + STATE_LAYOUT.scalars.index("phase_offer")  # phase p at STATE_PHASE + p
STATE_TO_MOVE = STATE_LAYOUT.card_size + STATE_LAYOUT.scalars.index("to_move_0")  # seat s at STATE_TO_MOVE + s
