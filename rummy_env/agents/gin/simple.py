"""``simple``: the behaviour of the EAAI-2021 competition's ``SimpleGinRummyPlayer``.

The standard baseline of published Gin Rummy AI work, re-implemented from its
description:
- take the face-up card (the upcard offer, or the top discard) only if it makes a meld
  with cards in hand (any set or run, ``melds.forms_meld``); otherwise pass / draw from
  the stock;
- discard at random among the cards that leave the least deadwood, never the card just
  taken from the pile where the rules forbid it (the card of largest counter-based noise,
  ``rummy_env.agents.draws``, so the array version, ``simple_vector``, picks the same);
- knock as soon as it may (with that card face down; Gin when it leaves 0).
Additions for rules the competition did not have: declare Big Gin when it is legal; at
the wall (``wall_knock``) take the discard whenever that is legal, which is to knock.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents import draws
from rummy_env.agents.gin.policies import SimplePolicy
from rummy_env.agents.gin.simple_vector import simple_actions
from rummy_env.core import melds
from rummy_env.core.game import BatchPolicy
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, Phase

# the array version lives a floor below (``simple_vector``), under the array policies; importable from here too
__all__ = ["SimpleAgent", "least_deadwood_discards", "simple_actions"]


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
        return SimplePolicy()
