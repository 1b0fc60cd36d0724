"""``simple``: the behaviour of the EAAI-2021 competition's ``SimpleGinRummyPlayer``.

The standard baseline of published Gin Rummy AI work, re-implemented from its
description:
- take the face-up card (the upcard offer, or the top discard) only if it makes a meld
  with cards in hand (any set or run, ``melds.forms_meld``); otherwise pass / draw from
  the stock;
- discard at random among the cards that leave the least deadwood, never the card just
  taken from the pile where the rules forbid it (the card of largest counter-based noise,
  ``rummy_env.agents.draws``, so the array version picks the same);
- knock as soon as it may (with that card face down; Gin when it leaves 0).
Additions for rules the competition did not have: declare Big Gin when it is legal; at
the wall (``wall_knock``) take the discard whenever that is legal, which is to knock.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents import draws
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.game import BatchPolicy
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, Phase
from rummy_env.gin.vector import VectorGinRummy


def least_deadwood_discards(hand: int, taken: int | None, rules) -> tuple[list[int], int]:
    """Cards (never ``taken``: give None where the rules let it go) whose discard leaves the
    least deadwood, and that deadwood."""
    after = melds.discard_deadwood(hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
    options = [(v, c) for c, v in enumerate(after) if v >= 0 and c != taken]
    best = min(v for v, _ in options)
    return [c for v, c in options if v == best], best


class SimpleAgent(Agent):
    name = "simple"
    game = "gin"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = set(legal_actions(observation).tolist())
        infoset, rules = game_input(self, observation, info)
        decision = self.next_decision()
        if infoset.phase == Phase.DRAW and PASS in legal:  # the wall: taking the discard is knocking
            return TAKE_DISCARD if TAKE_DISCARD in legal else PASS
        if infoset.phase in (Phase.OFFER, Phase.DRAW):
            top = infoset.discard_pile[-1] if infoset.discard_pile else None
            wants = top is not None and melds.forms_meld(infoset.hand, top, aces_high=rules.aces_high)
            if wants and TAKE_DISCARD in legal:
                return TAKE_DISCARD
            return PASS if PASS in legal else DRAW_STOCK
        if BIG_GIN in legal:
            return BIG_GIN
        cards, _ = least_deadwood_discards(infoset.hand, None if rules.discard_taken_card else infoset.taken_card, rules)
        card = cards[0] if len(cards) == 1 else max(cards, key=lambda c: draws.noise(self.key, decision, c))
        return KNOCK + card if KNOCK + card in legal else DISCARD + card

    def batch_policy(self) -> Optional[BatchPolicy]:
        from rummy_env.agents.gin.policies import SimplePolicy

        return SimplePolicy()


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
