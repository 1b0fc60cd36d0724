"""Basic Rummy agents (``rummy_env.basic_rummy_v0``): ``random`` and ``heuristic``.

Same interface as the Gin Rummy agents (``act(observation, info) -> action``, taking
exactly what ``basic_rummy_v0``'s ``last()`` returns), registered under names that say which
game they play. Each checks that it was given Basic Rummy input and otherwise raises a
``TypeError`` naming what it got: an action id means nothing in the other game's layout.

``heuristic`` (scripted, tens of microseconds a move):
- Drawing: take the top discard when it makes a meld with cards in hand, or when it
  could be laid off on the table (and the player has melded, or lay-offs need no meld);
  otherwise draw from the stock.
- Playing: lay down the melds of the hand's least-deadwood arrangement (exact, from
  ``rummy_env.core.melds``), then lay off every card that fits the table, highest value
  first; cards on the table no longer count against the player.
- Discarding: the card that leaves the least deadwood, plus a penalty for breaking a
  partial meld (a pair, or two cards of a suit at most two ranks apart) and for
  feeding the others (a card that fits a table meld, or melds with cards known to be
  in another hand). Ties broken at random (seeded).

Both have array versions (``batch_policy``) that make the same moves over many hands at
once: tournaments play them thousands of hands at a time (``heuristic``'s:
``rummy_env.agents.basic.heuristic_vector``).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.random_policy import RandomAgentBase
from rummy_env.agents.tie_breaks import KeyedTieBreaks
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, card_value, mask_to_cards
from rummy_env.basic.game import DISCARD, LAYOFF, MELD, TAKE_DISCARD, Phase, RummyInformationSet
from rummy_env.core.game import BatchPolicy
from rummy_env.core.meld_table import meld_table
from rummy_env.basic.rules import BasicRummyRules

GAME = "basic"


class RummyRandomAgent(RandomAgentBase):
    """``random``: a uniformly random legal action, the ``floor(u * k)``-th of the k legal
    actions with ``u`` the counter-based draw of its key and decision index
    (``rummy_env.agents.draws``), so that its array policy picks the same in tournaments
    played many hands at once (``rummy_env.agents.random_policy``)."""

    game = GAME


class RummyHeuristicAgent(KeyedTieBreaks, Agent):
    """``heuristic``: scripted play (see the module docstring)."""

    name = "heuristic"
    game = GAME

    def __init__(self, seed: Optional[int] = None, partial_weight: float = 3.0, danger_weight: float = 5.0) -> None:
        super().__init__(seed)
        for key, value in (("partial_weight", partial_weight), ("danger_weight", danger_weight)):
            if not value >= 0:
                raise ValueError(f"{key} must be >= 0, got {value}")
        self.partial_weight = partial_weight
        self.danger_weight = danger_weight

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = game_input(self, observation, info)
        legal = legal_actions(observation).tolist()
        if infoset.phase == Phase.DRAW:
            return TAKE_DISCARD if TAKE_DISCARD in legal and self._wants_top(infoset, rules) else legal[0]
        legal_set = set(legal)
        meld = self._meld(infoset, rules, legal_set)
        if meld is not None:
            return meld
        layoffs = [a for a in legal if a >= LAYOFF]
        if layoffs:
            return max(layoffs, key=lambda a: (card_value((a - LAYOFF) % NUM_CARDS), -a))
        return self._discard(infoset, rules, [a for a in legal if DISCARD <= a < MELD])

    def batch_policy(self) -> Optional[BatchPolicy]:
        """The array version (``rummy_env.agents.basic.heuristic_vector``), with this agent's
        weights and, per game, the tie-breaks of its generator seeded as the game seeds it."""
        from rummy_env.agents.basic.heuristic_vector import HeuristicPolicy

        return HeuristicPolicy(partial_weight=self.partial_weight, danger_weight=self.danger_weight)

    def _wants_top(self, info: RummyInformationSet, rules: BasicRummyRules) -> bool:
        top = info.discard_pile[-1]
        if melds.forms_meld(info.hand, top, aces_high=rules.aces_high):
            return True
        may_lay_off = info.has_melded[info.player] or not rules.layoff_needs_own_meld
        return may_lay_off and bool(info.layoff_targets >> top & 1)

    def _meld(self, info: RummyInformationSet, rules: BasicRummyRules, legal: set[int]) -> Optional[int]:
        if not any(MELD <= a < LAYOFF for a in legal):
            return None
        index = meld_table(rules.aces_high).index
        best = melds.best_arrangement(info.hand, aces_high=rules.aces_high)
        wanted = [MELD + index[m.cards] for m in best.melds]
        for action in wanted:
            if action in legal:
                return action
        return None  # the best arrangement's melds are not legal now (the taken card): keep them

    def _discard(self, info: RummyInformationSet, rules: BasicRummyRules, discards: list[int]) -> int:
        hand = info.hand
        after = melds.discard_deadwood(hand, aces_high=rules.aces_high)
        others = 0
        for seat, known in enumerate(info.known):
            if seat != info.player:
                others |= known
        scores = {}
        for action in discards:
            c = action - DISCARD
            rest = hand & ~(1 << c)
            score = float(after[c]) + self.partial_weight * _partners(rest, c)
            if info.layoff_targets >> c & 1:
                score += self.danger_weight
            if others and melds.forms_meld(others, c, aces_high=rules.aces_high):
                score += self.danger_weight
            scores[action] = score
        low = min(scores.values())
        return int(self.rng.choice([a for a, v in scores.items() if v <= low + 1e-9]))


def _partners(hand: int, card: int) -> int:
    """Cards of ``hand`` that make a partial meld with ``card`` (same rank, or same suit
    within two ranks), capped at 2."""
    rank, suit = card % NUM_RANKS, card // NUM_RANKS
    count = 0
    for other in mask_to_cards(hand):
        r, s = other % NUM_RANKS, other // NUM_RANKS
        if r == rank or (s == suit and abs(r - rank) <= 2):
            count += 1
    return min(count, 2)
