"""``heuristic``: a fast scripted player, as strong as we could make one.

Per decision (about a quarter of a millisecond):
- Drawing: take the face-up card when the best deadwood after taking it (and discarding
  another card) beats the expected best deadwood after a stock draw, averaged over the
  cards this player has not seen (the stock and the opponent's hand), by ``take_margin``.
- Discarding: each candidate is scored by the deadwood it leaves, minus the deadwood the
  next stock draw is expected to remove (meld potential: live outs among unseen cards),
  plus a danger term for feeding the opponent: high when the card melds with cards the
  opponent is known to hold, raised for neighbours of those cards, lowered for cards
  near what the opponent discarded or passed on.
- Knocking: Big Gin and Gin whenever legal; otherwise knock when the deadwood is within
  the limit, except late in the hand (``late_turn`` turns or more) with more than
  ``late_knock_max`` deadwood, where the opponent has had time to get low and an
  undercut is likely; then keep playing (discarding as above).

``agents.heuristic_vector`` makes the same decisions as array operations over many games
of the vector engine (training opponents, search rollouts); tests hold the two equal.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from agents.base import Agent, information, legal_actions
from rummy_env import melds
from rummy_env.cards import NUM_RANKS, mask_to_cards
from rummy_env.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, InformationSet, Phase
from rummy_env.rules import Rules


# the settings' defaults, shared with the array version (``agents.heuristic_vector``)
DEFAULTS: dict[str, Any] = {"take_margin": 1.0, "danger_weight": 1.0, "late_turn": 14, "late_knock_max": 5}


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(
        self,
        seed: Optional[int] = None,
        take_margin: float = DEFAULTS["take_margin"],
        danger_weight: float = DEFAULTS["danger_weight"],
        late_turn: int = DEFAULTS["late_turn"],
        late_knock_max: int = DEFAULTS["late_knock_max"],
    ) -> None:
        super().__init__(seed)
        self.take_margin = take_margin
        self.danger_weight = danger_weight
        self.late_turn = late_turn
        self.late_knock_max = late_knock_max

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = information(info)
        return self.choose(infoset, rules, set(legal_actions(observation).tolist()))

    def choose(self, infoset: InformationSet, rules: Rules, legal: set[int]) -> int:
        """The move from an information set and the legal actions (what ``act`` plays; search
        agents call it directly in their rollouts)."""
        opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
        if infoset.phase in (Phase.OFFER, Phase.DRAW):
            if TAKE_DISCARD in legal and self._wants_top(infoset, opts):
                return TAKE_DISCARD
            return PASS if PASS in legal else DRAW_STOCK
        if BIG_GIN in legal:
            return BIG_GIN
        return self._discard_or_knock(infoset, rules, legal, opts)

    # ------------------------------------------------------------------ drawing

    def _wants_top(self, info: InformationSet, opts: dict) -> bool:
        top = info.discard_pile[-1]
        hand = info.hand
        after_take = min(v for c, v in enumerate(melds.discard_deadwood(hand | 1 << top, **opts)) if v >= 0 and c != top)
        unseen = mask_to_cards(info.unseen)
        if not unseen:
            return after_take < melds.min_deadwood(hand, **opts)
        draws = np.uint64(hand) | _bits(unseen)
        expected_stock = melds.best_discard_deadwood(draws, **opts).mean()
        return after_take + self.take_margin < expected_stock

    # ------------------------------------------------------------------ discarding

    def ranked_discards(self, info: InformationSet, rules: Rules, legal: set[int]) -> list[int]:
        """Discard actions from best to worst by this agent's score (for search agents)."""
        opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
        after = melds.discard_deadwood(info.hand, **opts)
        cards = [c for c in mask_to_cards(info.hand) if DISCARD + c in legal]
        scores = self._discard_scores(info.hand, cards, after, info, opts)
        return [DISCARD + c for c in sorted(cards, key=lambda c: scores[c])]

    def _discard_or_knock(self, info: InformationSet, rules: Rules, legal: set[int], opts: dict) -> int:
        hand = info.hand
        after = melds.discard_deadwood(hand, **opts)
        cards = [c for c in mask_to_cards(hand) if DISCARD + c in legal]
        knockable = [c for c in cards if KNOCK + c in legal]
        if knockable:
            best = min(after[c] for c in knockable)
            if best == 0 or self._should_knock(best, info):
                choices = [c for c in knockable if after[c] == best]
                facts = _danger_facts(info)
                return KNOCK + min(choices, key=lambda c: self._danger(c, info, rules.aces_high, facts))
        scores = self._discard_scores(hand, cards, after, info, opts)
        low = min(scores.values())
        return DISCARD + int(self.rng.choice([c for c, v in scores.items() if v <= low + 1e-9]))

    def _should_knock(self, deadwood: int, info: InformationSet) -> bool:
        return info.turn < self.late_turn or deadwood <= self.late_knock_max

    def _discard_scores(self, hand: int, cards: list[int], after, info: InformationSet, opts: dict) -> dict[int, float]:
        """Expected deadwood after the next stock draw, plus danger, per candidate discard."""
        unseen = mask_to_cards(info.unseen)
        scores = {}
        if unseen:
            kept = np.uint64(hand) & ~_bits(cards)
            draws = kept[:, None] | _bits(unseen)[None, :]  # (cards, unseen)
            expected = melds.best_discard_deadwood(draws, **opts).mean(axis=1)  # discarding the draw is one choice
        else:
            expected = np.array([after[c] for c in cards], dtype=np.float64)
        facts = _danger_facts(info)
        for i, c in enumerate(cards):
            scores[c] = float(expected[i]) + self.danger_weight * self._danger(c, info, opts["aces_high"], facts)
        return scores

    def _danger(self, card: int, info: InformationSet, aces_high: bool, facts: Optional[list] = None) -> float:
        """How likely ``card`` helps the opponent (0 = safe), from public facts only."""
        known = info.opponent_known
        rank, suit = card % NUM_RANKS, card // NUM_RANKS
        if known and melds.forms_meld(known, card, aces_high=aces_high):
            return 8.0
        danger = 0.0
        for r, s, weight in _danger_facts(info) if facts is None else facts:
            if r == rank or (s == suit and abs(r - rank) <= 2):
                danger += weight
        return max(danger, 0.0) * (0.5 + min(info.turn, 20) / 20)


def _danger_facts(info: InformationSet) -> list[tuple[int, int, float]]:
    """(rank, suit, weight) of the opponent's cards seen: +2 held, -1 thrown or passed on."""
    opp = info.opponent
    known = info.opponent_known
    thrown = info.discarded[opp] | info.passed[opp]
    return [(c % NUM_RANKS, c // NUM_RANKS, 2.0 if known >> c & 1 else -1.0) for c in mask_to_cards(known | thrown)]


_ONE = np.uint64(1)


def _bits(cards: list[int]) -> np.ndarray:
    """uint64 single-card masks of ``cards``."""
    return np.left_shift(_ONE, np.array(cards, dtype=np.uint64))
