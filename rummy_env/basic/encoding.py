"""Basic Rummy observation encoders: a player's information set -> arrays, from named slices.

Built from ``RummyInformationSet`` alone, so they cannot show a card the player does not
know. The layout is the same for 2, 3 and 4 players (one network can play every table
size): seats are *relative* (``rel0`` = the observing player, ``rel1`` = the next player
to the left, who moves after them, ...) and slices of seats absent at the table are 0.
Card slices are 52 wide in card-id order (``suit * 13 + rank``).

| card slice            | meaning (1.0 where true)                                        |
|-----------------------|-----------------------------------------------------------------|
| hand                  | cards in the player's hand                                      |
| discard_top           | the top card of the discard pile                                |
| discard_pile          | every card in the discard pile (top included)                   |
| public_stock          | cards of a turned-over stock (its order is public; 0 before)    |
| layoff_targets        | cards that could be laid off onto some table meld now           |
| taken                 | the card the player to move took from the pile this turn        |
| unseen                | cards the player cannot place: stock or others' hands, unknown  |
| played_rel0..rel3     | cards each seat has put on the table (melds and lay-offs)       |
| known_rel1..rel3      | cards known to be in each other seat's hand (taken from the     |
|                       | pile or drawn from a public stock; all cards once shown)        |
| discarded_rel1..rel3  | cards each other seat discarded this hand                       |

Scalars (26): phase one-hot (draw, play, over: 3); stock size / 52; turnovers /
max(1, stock_turnovers); turn / max_turns; 1 if the player to move may still go
rummy; hand size / 11 per relative seat (4); 1 per relative seat that has melded (4);
match points / target score per relative seat (4; 0 outside a match); dealer one-hot
by relative seat (4); number of players one-hot (2, 3, 4: 3).

- ``flat``: float32 vector of the 17 card slices then the 26 scalars: shape (910,).
- ``planes``: float32 (43, 4, 13): the card slices as 4 x 13 planes (suit rows, rank
  columns), then each scalar as a constant plane.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from rummy_env.basic import textview
from rummy_env.basic.game import BasicRummyState, RummyInformationSet
from rummy_env.basic.layout import (
    CARD_SLICES, DEALER_REL0, FLAT_SIZE, HAND_SIZE_REL0, HAND_SIZE_SCALE, LAYOUT, MAX_HAND_POINTS, MELDED_REL0,
    NUM_CARD_SLICES, PLANES_SHAPE, PLAYERS_2, RUMMY_POSSIBLE, SCALARS, SCALARS_AT, SCORE_REL0, STATE_PHASE, STATE_SIZE,
    STATE_TO_MOVE, STOCK_SIZE, TURN, TURNOVERS,
)
from rummy_env.basic.rules import MAX_PLAYERS, BasicRummyRules
from rummy_env.core.cards import NUM_CARDS, distinct_cards_mask
from rummy_env.core.encoding import (
    CompiledEncoder, lookup, random_positions, standard_encodings, write_card_bits,
)
from rummy_env.core.textview import text_encodings

__all__ = [  # the layout's names are re-exported: importable from here as they always were
    "CARD_SLICES", "ENCODINGS", "FLAT_SIZE", "HAND_SIZE_SCALE", "LAYOUT", "MAX_HAND_POINTS", "NUM_CARD_SLICES",
    "PLANES_SHAPE", "SCALARS", "STATE_SIZE", "encode", "flat_slices", "observation_high", "observation_shape",
    "state_vector",
]


def flat_slices() -> dict[str, slice]:
    """Where each named part lies in the flat vector."""
    return LAYOUT.slices()


def encode(
    info: RummyInformationSet, rules: BasicRummyRules, encoding: str = "flat", scores: Optional[Sequence[int]] = None
) -> np.ndarray:
    """The observation array of ``info`` in the named encoding (a key of ``ENCODINGS``)."""
    return lookup(ENCODINGS, encoding).encode(info, rules, scores)


def observation_high(rules: BasicRummyRules, encoding: str = "flat") -> np.ndarray:
    """Finite upper bounds of every observation entry under ``rules`` (lower bounds are 0)."""
    return lookup(ENCODINGS, encoding).high(rules)


def observation_shape(encoding: str) -> tuple[int, ...]:
    return lookup(ENCODINGS, encoding).shape()


def _check_cases():
    """Every seat's information set at every decision of a random hand at each table size,
    with match scores: what the compiled encoder is checked on before it is used."""
    rules = BasicRummyRules(target_score=100)
    for n in range(2, MAX_PLAYERS + 1):
        scores = tuple(range(10, 10 + 7 * n, 7))
        for state in random_positions(BasicRummyState.new_hand(n, rules=rules, seed=n), np.random.default_rng(n)):
            for seat in range(n):
                yield state.information_set(seat), rules, scores


def _load_compiled():
    from rummy_env.basic import encoding_jit

    return encoding_jit.encode_flat


def _python_encode_flat(info: RummyInformationSet, rules: BasicRummyRules, scores: Optional[Sequence[int]]) -> np.ndarray:
    """The flat vector built in Python (the path without numba, and the compiled one's reference)."""
    n, p = info.num_players, info.player
    rel = [(p + k) % n for k in range(n)]  # seats relative to the player, the player first
    pad = [0] * (MAX_PLAYERS - n)
    others = rel[1:]
    pile = info.discard_pile
    masks = [
        info.hand,
        1 << pile[-1] if pile else 0,
        info.discard_mask,
        distinct_cards_mask(info.public_stock),
        info.layoff_targets,
        1 << info.taken_card if info.taken_card is not None else 0,
        info.unseen,
        *[info.played[s] for s in rel], *pad,
        *[info.known[s] for s in others], *pad,
        *[info.discarded[s] for s in others], *pad,
    ]
    out = np.zeros(FLAT_SIZE, dtype=np.float32)
    write_card_bits(out, masks)  # the masks above are in CARD_SLICES order
    sc = [0.0] * len(SCALARS)  # written into the array at once: faster than item by item
    sc[int(info.phase)] = 1.0  # the phase one-hot comes first
    sc[STOCK_SIZE] = info.stock_size / NUM_CARDS
    sc[TURNOVERS] = info.turnovers / max(1, rules.stock_turnovers)
    sc[TURN] = info.turn / rules.max_turns
    sc[RUMMY_POSSIBLE] = float(info.rummy_possible)
    for k, seat in enumerate(rel):
        sc[HAND_SIZE_REL0 + k] = info.hand_sizes[seat] / HAND_SIZE_SCALE
        sc[MELDED_REL0 + k] = float(info.has_melded[seat])
        if scores is not None and rules.match:
            sc[SCORE_REL0 + k] = scores[seat] / rules.target_score
    sc[DEALER_REL0 + (info.dealer - p) % n] = 1.0
    sc[PLAYERS_2 + n - 2] = 1.0
    out[SCALARS_AT:] = sc
    return out


def _high_flat(rules: BasicRummyRules) -> np.ndarray:
    """Upper bounds of the flat vector (lower bounds are 0). Match points stay below the
    target plus the largest hand score: three losing hands of at most 10 cards (100 points
    each) times the rummy multiplier."""
    high = np.ones(FLAT_SIZE, dtype=np.float32)
    if rules.match:
        best_hand = (MAX_PLAYERS - 1) * MAX_HAND_POINTS * rules.rummy_multiplier
        at = flat_slices()
        for k in range(MAX_PLAYERS):
            high[at[f"score_rel{k}"]] = (rules.target_score + best_hand) / rules.target_score
    return high


# the flat vector: one compiled call when ``rummy_env.basic.encoding_jit`` can be used
_encode_flat = CompiledEncoder(_python_encode_flat, _load_compiled, _check_cases, "Basic Rummy observation encoder")
ENCODINGS = standard_encodings(LAYOUT, _encode_flat, _high_flat)
ENCODINGS.update(text_encodings("basic", textview.WORDS))  # text, json and their _no_moves views


def state_vector(state: BasicRummyState) -> np.ndarray:
    """Full state for centralised critics (absolute seats).

    Layout (``layout.STATE_LAYOUT``): hands of seats 0..3 (4 x 52; 0 for absent seats),
    stock cards (52), discard pile (52), discard top (52), table cards (52), phase one-hot
    (3), seat to move one-hot (4): (423,).
    """
    hands = list(state.hands) + [0] * (MAX_PLAYERS - state.num_players)
    stock = pile = 0
    for c in state.stock:
        stock |= 1 << c
    for c in state.discard_pile:
        pile |= 1 << c
    top = 1 << state.discard_pile[-1] if state.discard_pile else 0
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    write_card_bits(out, hands + [stock, pile, top, state.table_mask])
    out[STATE_PHASE + int(state.phase)] = 1.0
    out[STATE_TO_MOVE + state.current_player] = 1.0
    return out
