"""Observation encoders: a player's information set -> arrays, from named slices.

Both encoders are built from ``InformationSet`` alone, so they cannot show a card the
player does not know. Card slices are 52 wide in card-id order (``suit * 13 + rank``).

Card slices (shared by both encodings):

| name               | meaning (1.0 where true)                                            |
|--------------------|---------------------------------------------------------------------|
| hand               | cards in the player's hand                                          |
| discard_top        | the top card of the discard pile                                    |
| discard_pile       | every card in the discard pile (top included)                       |
| opponent_known     | cards known to be in the opponent's hand (taken from the pile; all  |
|                    | of them once the showdown shows the hand)                           |
| opponent_discarded | cards the opponent discarded this hand                              |
| opponent_passed    | cards the opponent passed on (the upcard declined, or the top       |
|                    | discard when they drew from the stock instead)                      |
| unseen             | cards the player has not seen: in the stock or the opponent's hand  |
| taken              | the card the player to move took from the pile this turn (it may    |
|                    | not be discarded)                                                   |
| discard_deadwood   | holding 11 cards: per card, deadwood left if it goes, / 100         |

Scalars: phase one-hot (offer, draw, discard, over: 4), then stock size / 31, own
least deadwood / 100, knock limit / 100, turn / max_turns, 1 if the player dealt,
own and opponent match points / target score (0 outside a match): 11 values.

- ``flat``: float32 vector of the 9 card slices then the 11 scalars: shape (479,).
- ``planes``: float32 (20, 4, 13): the 9 card slices as 4 x 13 planes (suit rows,
  rank columns), then each of the 11 scalars as a constant plane.

``ENCODINGS`` maps these names to ``rummy_env.core.encoding`` objects; it is the dict the
game registers (``Game.add_encoding`` adds one more, usable by name in the env).
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, mask_to_cards
from rummy_env.core.encoding import (
    CompiledEncoder, lookup, random_positions, standard_encodings, write_card_bits,
)
from rummy_env.core.textview import text_encodings
from rummy_env.gin import textview
from rummy_env.gin.game import GinRummyState, InformationSet
from rummy_env.gin.layout import (
    CARD_SLICES, DEADWOOD, DISCARD_DEADWOOD, FLAT_SIZE, HAND, IS_DEALER, KNOCK_LIMIT, LAYOUT, PHASE, PLANES_SHAPE,
    POINTS_SCALE, SCALARS, SCALARS_AT, STATE_PHASE, STATE_SIZE, STATE_TO_MOVE, STOCK_AT_DEAL, STOCK_SIZE, TURN,
)
from rummy_env.gin.rules import Rules

__all__ = [  # the layout's names are re-exported: importable from here as they always were
    "CARD_SLICES", "ENCODINGS", "FLAT_SIZE", "LAYOUT", "PLANES_SHAPE", "SCALARS", "STATE_SIZE", "STOCK_AT_DEAL",
    "encode", "encode_batch", "flat_slices", "observation_high", "observation_shape", "state_vector",
]


def flat_slices() -> dict[str, slice]:
    """Where each named part lies in the flat vector."""
    return LAYOUT.slices()


def encode(info: InformationSet, rules: Rules, encoding: str = "flat", scores: Optional[Sequence[int]] = None) -> np.ndarray:
    """The observation array of ``info`` in the named encoding (a key of ``ENCODINGS``)."""
    return lookup(ENCODINGS, encoding).encode(info, rules, scores)


def observation_high(rules: Rules, encoding: str = "flat") -> np.ndarray:
    """Finite upper bounds of every observation entry under ``rules`` (lower bounds are 0)."""
    return lookup(ENCODINGS, encoding).high(rules)


def observation_shape(encoding: str) -> tuple[int, ...]:
    return lookup(ENCODINGS, encoding).shape()


def _check_cases():
    """Both seats' information sets at every decision of two random hands under two rule
    sets, with match scores: what the compiled encoder is checked on before it is used."""
    for aces, five in (("low", False), ("high", True)):
        rules = Rules(aces=aces, five_under_ten=five, target_score=100)
        for seed in range(2):
            hand = GinRummyState.new_hand(rules=rules, seed=seed, dealer=seed)
            for state in random_positions(hand, np.random.default_rng(seed)):
                for seat in (0, 1):
                    yield state.information_set(seat), rules, (seed, 40)


def _load_compiled():
    from rummy_env.gin import encoding_jit

    return encoding_jit.encode_flat


def _python_encode_flat(info: InformationSet, rules: Rules, scores: Optional[Sequence[int]]) -> np.ndarray:
    """The flat vector built in Python (the path without numba, and the compiled one's reference)."""
    p, q = info.player, info.opponent
    hand, pile = info.hand, info.discard_pile
    top = 1 << pile[-1] if pile else 0
    taken = 1 << info.taken_card if info.taken_card is not None else 0
    out = np.zeros(FLAT_SIZE, dtype=np.float32)
    write_card_bits(out, (hand, top, info.discard_mask, info.opponent_known, info.discarded[q], info.passed[q],
                          info.unseen, taken))  # the 0/1 card slices, in CARD_SLICES order
    aces_high, five_under_ten = rules.aces_high, rules.five_under_ten
    if hand.bit_count() == 11:
        after = melds.discard_deadwood(hand, aces_high=aces_high, five_under_ten=five_under_ten)
        for c in mask_to_cards(hand):  # 11 item writes beat converting the 52-tuple to an array
            out[DISCARD_DEADWOOD * NUM_CARDS + c] = after[c] / POINTS_SCALE
    own, theirs = (scores[p] / rules.target_score, scores[q] / rules.target_score) if scores and rules.match else (0.0, 0.0)
    out[SCALARS_AT + PHASE + int(info.phase)] = 1.0  # the phase one-hot
    out[SCALARS_AT + STOCK_SIZE :] = (  # the scalars from stock_size on, in SCALARS order
        info.stock_size / STOCK_AT_DEAL,
        melds.min_deadwood(hand, aces_high=aces_high, five_under_ten=five_under_ten) / POINTS_SCALE,
        info.knock_limit / POINTS_SCALE,
        info.turn / rules.max_turns,
        float(info.dealer == p),
        own,
        theirs,
    )
    return out


def _high_flat(rules: Rules) -> np.ndarray:
    """Upper bounds of the flat vector (lower bounds are 0). Deadwood entries stay below 1.1
    (at most 106 points in 11 cards: no three of a rank and no three in a row leaves eight
    ten-point cards and two 9s, plus one more 9). Match scores stay below the target plus
    the largest single hand score.
    """
    high = np.ones(FLAT_SIZE, dtype=np.float32)
    at = flat_slices()
    high[at["discard_deadwood"]] = 1.1
    high[at["deadwood"]] = 1.1
    high[at["knock_limit"]] = max(1.0, rules.knock_limit / POINTS_SCALE)
    best_hand = 110 + max(rules.gin_bonus, rules.big_gin_bonus, rules.knock_limit + rules.undercut_bonus)
    score_high = (rules.target_score + best_hand) / rules.target_score if rules.match else 1.0
    high[at["own_score"]] = high[at["opponent_score"]] = score_high
    return high


# the flat vector: one compiled call when ``rummy_env.gin.encoding_jit`` can be used
_encode_flat = CompiledEncoder(_python_encode_flat, _load_compiled, _check_cases, "observation encoder")
ENCODINGS = standard_encodings(LAYOUT, _encode_flat, _high_flat)
ENCODINGS.update(text_encodings("gin", textview.WORDS))  # text, json and their _no_moves views


def state_vector(state: GinRummyState) -> np.ndarray:
    """Full state for centralised critics: both hands, stock, pile, top, phase, seat to move.

    Layout (``layout.STATE_LAYOUT``): hand of player_0 (52), hand of player_1 (52), stock
    cards (52), discard pile (52), discard top (52), phase one-hot (4), player to move
    one-hot (2): (266,).
    """
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    stock = pile_mask = 0
    for c in state.stock:
        stock |= 1 << c
    for c in state.discard_pile:
        pile_mask |= 1 << c
    top = 1 << state.discard_pile[-1] if state.discard_pile else 0
    write_card_bits(out, [state.hands[0], state.hands[1], stock, pile_mask, top])
    out[STATE_PHASE + int(state.phase)] = 1.0
    out[STATE_TO_MOVE + state.current_player] = 1.0
    return out


def encode_batch(
    *,
    hand: np.ndarray,
    top: np.ndarray,
    pile: np.ndarray,
    opponent_known: np.ndarray,
    opponent_discarded: np.ndarray,
    opponent_passed: np.ndarray,
    taken: np.ndarray,
    after_discard: np.ndarray,
    deadwood: np.ndarray,
    phase: np.ndarray,
    stock_size: np.ndarray,
    knock_limit: np.ndarray,
    turn: np.ndarray,
    is_dealer: np.ndarray,
    rules: Rules,
) -> np.ndarray:
    """The batch twin of the ``flat`` encoder for the vector engine (tests keep the two equal).

    Card arguments are (N,) uint64 masks (``top``/``taken`` 0 when there is none);
    ``after_discard`` (N, 52) is ``melds.discard_deadwood`` for 11-card hands (-1 where
    not held; ignored for other hands); the rest are (N,) numbers. No match scores: the
    vector engine plays single hands.
    """
    n = hand.shape[0]
    unseen = np.uint64((1 << NUM_CARDS) - 1) & ~(hand | opponent_known | pile)
    masks = np.stack([hand, top, pile, opponent_known, opponent_discarded, opponent_passed, unseen, taken], axis=1)
    out = np.empty((n, FLAT_SIZE), dtype=np.float32)  # every entry is written below
    cards = out[:, :SCALARS_AT].reshape(n, len(CARD_SLICES), NUM_CARDS)
    bits = np.unpackbits(masks.astype("<u8")[..., None].view(np.uint8), axis=-1, bitorder="little")[..., :NUM_CARDS]
    cards[:, HAND:DISCARD_DEADWOOD] = bits  # the 0/1 card slices, in CARD_SLICES order
    eleven = np.bitwise_count(hand) == 11
    cards[:, DISCARD_DEADWOOD] = 0.0
    cards[eleven, DISCARD_DEADWOOD] = np.maximum(after_discard[eleven], 0) / POINTS_SCALE
    scalars = out[:, SCALARS_AT:]
    scalars[...] = 0.0  # the phase one-hot and the match scores (no matches here) are 0 but where set
    scalars[np.arange(n), PHASE + phase.astype(np.intp)] = 1.0
    scalars[:, STOCK_SIZE] = stock_size / STOCK_AT_DEAL
    scalars[:, DEADWOOD] = deadwood / POINTS_SCALE
    scalars[:, KNOCK_LIMIT] = knock_limit / POINTS_SCALE
    scalars[:, TURN] = turn / rules.max_turns
    scalars[:, IS_DEALER] = is_dealer
    return out
