"""The heuristic's evaluation of a position as network inputs ("advice" features).

Why: a network reading only the ``flat`` observation has to rediscover what the
``heuristic`` player computes (the deadwood expected after the next draw, the danger of
feeding the opponent, whether the upcard beats a stock draw) before it can do better.
The first PPO agent, warm-started by imitating the heuristic, copied 85% of its moves and
still lost 6 points a hand to it. Given these figures as inputs, a policy can match the
heuristic from the start and learn where to depart from it.

Everything here is computed from what the player to move knows (``Positions``), so it
leaks nothing. ``advice_of_env`` (training, all games at once on the vector engine) and
``advice_of_infoset`` (the ``ppo`` agent, one information set) give identical arrays
for the same position (tested).

Layout (float32, ``ADVICE_SIZE`` = 4 x 52 + 5), card slices in card-id order:

| name              | meaning                                                              |
|-------------------|----------------------------------------------------------------------|
| expected_deadwood | discard phase: deadwood expected after discarding the card and the   |
|                   | next stock draw (``heuristic_terms.expected_deadwood``) / 100        |
| danger            | discard phase: the heuristic's danger of discarding the card / 8     |
| score_gap         | discard phase: (the card's discard score - the best score) / 10,     |
|                   | capped at 1; 1 for cards that may not be discarded                   |
| heuristic_card    | 1 on the card the heuristic plays (its knock card, or every discard  |
|                   | tied for its best score)                                             |

Scalars: ``take`` (1 if the heuristic takes the upcard), ``after_take`` (least deadwood
after taking it / 100), ``stock_expected`` (expected least deadwood after a stock draw /
100), ``take_gain`` (their difference / 100), ``knock`` (1 if the heuristic knocks).
Each is 0 where it does not apply (the draw figures in the discard phase and back).
"""

from __future__ import annotations

from typing import Iterable, Optional

import numpy as np

from rummy_env.agents.gin.heuristic_vector import Analysis, Positions, analyse, positions_of
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.encoding import CardLayout
from rummy_env.gin.game import NUM_ACTIONS, InformationSet, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy

ADVICE_CARD_SLICES = ("expected_deadwood", "danger", "score_gap", "heuristic_card")
ADVICE_SCALARS = ("take", "after_take", "stock_expected", "take_gain", "knock")
ADVICE_LAYOUT = CardLayout(ADVICE_CARD_SLICES, ADVICE_SCALARS)
ADVICE_SIZE = ADVICE_LAYOUT.flat_size
# card slices by number (entries 52 s .. 52 s + 51), scalars by index among the scalars
_EXPECTED, _DANGER, _GAP, _PICK = map(ADVICE_CARD_SLICES.index, (
    "expected_deadwood", "danger", "score_gap", "heuristic_card"))
_TAKE, _AFTER_TAKE, _STOCK_EXPECTED, _TAKE_GAIN, _KNOCK = map(ADVICE_SCALARS.index, (
    "take", "after_take", "stock_expected", "take_gain", "knock"))


def advice(pos: Positions, rules: Rules, analysis: Optional[Analysis] = None) -> np.ndarray:
    """(n, ADVICE_SIZE) float32 features of the positions ``pos`` (layout: module docstring);
    ``analysis``: ``analyse(pos, rules)`` when the caller already has it."""
    a: Analysis = analyse(pos, rules) if analysis is None else analysis
    if a.take.shape[0] != pos.hands.size:
        raise ValueError(f"the analysis has {a.take.shape[0]} positions, pos has {pos.hands.size}")
    n = pos.hands.size
    out = np.zeros((n, ADVICE_SIZE), dtype=np.float32)
    cards = out[:, : ADVICE_LAYOUT.card_size].reshape(n, len(ADVICE_CARD_SLICES), NUM_CARDS)
    legal = np.isfinite(a.scores)
    cards[:, _EXPECTED] = np.where(legal, a.expected, 0.0) / 100
    cards[:, _DANGER] = a.risk / 8
    best = np.where(legal.any(axis=1), np.where(legal, a.scores, np.inf).min(axis=1), 0.0)
    gap = np.where(legal, (a.scores - best[:, None]) / 10, 1.0)
    cards[:, _GAP] = np.minimum(gap, 1.0)
    rows = np.arange(n)
    pick = legal & (a.scores <= best[:, None] + 1e-9) & ~a.knock[:, None]
    pick[rows[a.knock], a.knock_card[a.knock]] = True
    cards[:, _PICK] = pick
    scalars = out[:, ADVICE_LAYOUT.card_size :]
    drawing = ~np.isnan(a.after_take)
    scalars[:, _TAKE] = a.take
    scalars[:, _AFTER_TAKE] = np.where(drawing, a.after_take, 0.0) / 100
    scalars[:, _STOCK_EXPECTED] = np.where(drawing, a.stock_expected, 0.0) / 100
    scalars[:, _TAKE_GAIN] = np.where(drawing, a.stock_expected - a.after_take, 0.0) / 100
    scalars[:, _KNOCK] = a.knock
    return out


def advice_of_env(env: VectorGinRummy, rows: np.ndarray) -> np.ndarray:
    """Advice for the players to move in games ``rows`` of the vector engine."""
    rows = np.asarray(rows, dtype=np.intp)
    if rows.size == 0:
        return np.zeros((0, ADVICE_SIZE), dtype=np.float32)
    return advice(positions_of(env, rows), env.rules)


def positions_from_infoset(info: InformationSet, rules: Rules, legal: Iterable[int]) -> Positions:
    """One information set (with its legal actions) as a one-row ``Positions``."""
    mask = np.zeros((1, NUM_ACTIONS), dtype=np.int8)
    mask[0, np.fromiter(legal, dtype=np.intp)] = 1
    hand = np.array([info.hand], dtype=np.uint64)
    if info.phase == Phase.DISCARD:
        after = melds.discard_deadwood(hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
    else:
        after = np.full((1, NUM_CARDS), -1, dtype=np.int16)
    opp = info.opponent
    return Positions(
        phase=np.array([int(info.phase)]), mask=mask, hands=hand,
        opponent_known=np.array([info.opponent_known], dtype=np.uint64),
        opponent_thrown=np.array([info.discarded[opp] | info.passed[opp]], dtype=np.uint64),
        pile=np.array([info.discard_mask], dtype=np.uint64),
        top=np.array([info.discard_pile[-1] if info.discard_pile else -1], dtype=np.intp),
        turn=np.array([info.turn]), after=after, knock_limit=np.array([info.knock_limit]),
    )


def advice_of_infoset(info: InformationSet, rules: Rules, legal: Iterable[int]) -> np.ndarray:
    """(ADVICE_SIZE,) advice for one player's information set and legal actions."""
    return advice(positions_from_infoset(info, rules, legal), rules)[0]
