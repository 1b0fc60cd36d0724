"""The ``simple`` agent's moves as array operations over many games of the vector engine
(``simple_actions``: training opponents, search rollouts, tournaments).

Why its own floor: the array policies (``rummy_env.agents.gin.policies``) play these
moves, and the agent (``rummy_env.agents.gin.simple``, whose docstring says what the
rules are) hands out that policy, so the moves sit below both; the agent one game at a
time and these agree move for move (tests compare them).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, Phase
from rummy_env.gin.vector import VectorGinRummy


def simple_actions(env: VectorGinRummy, rows: np.ndarray, rng: Optional[np.random.Generator] = None,
                   noise: Optional[np.ndarray] = None) -> np.ndarray:
    """The ``simple`` agent's moves in games ``rows`` of the vector engine ``env``, as array
    operations over all of them (for training opponents, search rollouts, tournaments).

    Take the face-up card only if it makes a meld with the hand (at the wall: whenever
    legal); discard at random among the cards leaving the least deadwood (never the card
    just taken, where the rules forbid it); knock as soon as that discard allows; Big Gin
    when legal. The random pick among equal discards goes to
    the card with the largest of ``noise`` (len(rows), 52) when given (the per-game
    agent's counter-based draws: ``rummy_env.agents.gin.policies``), else of uniform
    draws from ``rng``.
    """
    if noise is None and rng is None:
        raise ValueError("simple_actions needs rng or noise to break ties between discards")
    if noise is not None and np.shape(noise) != (np.size(rows), NUM_CARDS):
        raise ValueError(f"noise must have shape ({np.size(rows)}, {NUM_CARDS}), got {np.shape(noise)}")
    mask = env.action_mask()[rows]
    out = np.full(rows.size, DRAW_STOCK, dtype=np.int64)
    phase = env.phase[rows]
    p = env.current[rows].astype(np.intp)
    hands = env.hands[rows, p]
    drawing = np.flatnonzero(phase != Phase.DISCARD)
    if drawing.size:
        g = rows[drawing]
        has_top = env.pile_len[g] > 0
        top = env.pile[g, np.maximum(env.pile_len[g] - 1, 0)]
        wants = has_top & melds.forms_meld_batch(hands[drawing], top, aces_high=env.rules.aces_high)
        can_take = mask[drawing, TAKE_DISCARD] == 1
        wall = (phase[drawing] == Phase.DRAW) & (mask[drawing, PASS] == 1)
        out[drawing] = np.where((wants | wall) & can_take, TAKE_DISCARD,
                                np.where(mask[drawing, PASS] == 1, PASS, DRAW_STOCK))
    discarding = np.flatnonzero(phase == Phase.DISCARD)
    if discarding.size:
        after = env.discard_deadwood()[rows[discarding]].astype(np.float64)
        taken = env.taken[rows[discarding]]
        after[after < 0] = np.inf
        has_taken = (taken >= 0) & (not env.rules.discard_taken_card)
        after[np.flatnonzero(has_taken), taken[has_taken]] = np.inf
        best = after == after.min(axis=1, keepdims=True)
        keys = rng.random(best.shape) if noise is None else noise[discarding]
        card = np.argmax(np.where(best, keys + 1.0, 0.0), axis=1)
        k = mask[discarding, KNOCK + card] == 1
        action = np.where(k, KNOCK + card, DISCARD + card)
        out[discarding] = np.where(mask[discarding, BIG_GIN] == 1, BIG_GIN, action)
    return out
