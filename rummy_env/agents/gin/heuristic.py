"""``heuristic``: a fast scripted player, as strong as we could make one.

Cheap where it cannot knock, dearer where it may (the knock estimate below); its cost a
move and its strength are in docs/agents.md:
- Drawing: take the face-up card when the best deadwood after taking it (and discarding
  another card) beats the expected best deadwood after a stock draw, averaged over the
  cards this player has not seen (the stock and the opponent's hand), by ``take_margin``.
- Discarding: each candidate is scored by the deadwood it leaves, minus the deadwood the
  next stock draw is expected to remove (meld potential: live outs among unseen cards),
  plus a danger term for feeding the opponent: high when the card melds with cards the
  opponent is known to hold, raised for neighbours of those cards, lowered for cards
  near what the opponent discarded or passed on.
- Knocking: Big Gin and Gin whenever legal. Otherwise, with the deadwood within the
  limit, it estimates what a knock would score: it samples ``knock_worlds`` hands the
  opponent may hold from the opponent model of ``rummy_env.agents.gin.belief`` (weighted by what the
  opponent took, passed on and threw, so they are as good as a sensible player's hand
  by then), lays them off against the knocking hand as the showdown would, and averages
  the points (an undercut costs the difference plus the undercut bonus). It knocks when
  that mean is at least ``knock_value`` points, the price of giving up the chance of Gin
  or a better knock by playing on; else it keeps playing (discarding as above). On the
  last turn (a discard would end the hand drawn) any knock expected to score is taken.
  Early, the opponent's hand is still poor and nearly any knock pays; late, a knock with
  much deadwood is likely undercut.
- At the wall (``wall_knock``: the discard that left 2 cards in the stock may be taken
  only to knock): it takes the discard when it would knock with it, by the same rule as
  on its last turn (Gin always; else the knock it would make after taking, the least
  deadwood with the least dangerous card face down, if expected to score), else passes.
  Having taken it, it knocks (only knocks are legal then).

  ``knock=turn`` is the earlier, cheaper rule: knock whenever the deadwood is within the
  limit, except from turn ``late_turn`` on with more than ``late_knock_max`` deadwood
  (the turn as the proxy for how far the opponent has got). The estimate beats it, and
  beats ``simple`` by more than it does, in matches (docs/findings/knock-rule.md: the
  figures and the other values tried): it knocks less and wins fewer hands but more
  points, since against players who knock as soon as they may, the hands it plays on
  end in Gin or an undercut.

``rummy_env.agents.gin.heuristic_vector`` makes these decisions as array operations over many games
of the vector engine (training opponents, search rollouts, PPO's advice, tournaments:
``batch_policy``), for either knock rule (``heuristic_actions(..., knock="estimate")``
for the default, whose sampling and scoring ``rummy_env.agents.gin.knock_vector`` does for
all the games that may knock at once); tests hold the two equal move for move. ``act``
draws its random numbers as counter-based draws (``rummy_env.agents.draws``: functions of
the agent's key and decision index): the noise that breaks ties between equally scored
discards, and the knock estimate's samples (``belief.ChainDraws.of_decision``), so the
array version, given each game's key and decision index, draws the same numbers.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Optional

import numpy as np

from rummy_env.agents import draws
from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.gin.belief import ChainDraws, sample_opponent_hands
from rummy_env.agents.gin.heuristic_params import DEFAULTS, KNOCK_RULES, KNOCK_VALUE, KNOCK_WORLDS, knock_points, last_turn
from rummy_env.agents.gin.policies import HeuristicPolicy
from rummy_env.core import melds
from rummy_env.core.game import BatchPolicy
from rummy_env.core.cards import NUM_RANKS, mask_to_cards
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, InformationSet, Phase
from rummy_env.gin.rules import Rules

# the settings and the knock's scoring live a floor below (``heuristic_params``), read by the
# array versions too; importable from here as ever
__all__ = ["DEFAULTS", "KNOCK_RULES", "KNOCK_VALUE", "KNOCK_WORLDS", "HeuristicAgent", "estimate_knock", "knock_points",
           "last_turn"]


class HeuristicAgent(Agent):
    name = "heuristic"
    game = "gin"
    budgets = MappingProxyType({"knock_worlds": 0.0001})  # the default 48 hands: about 5 ms a knock decision

    def __init__(
        self,
        seed: Optional[int] = None,
        take_margin: float = DEFAULTS["take_margin"],
        danger_weight: float = DEFAULTS["danger_weight"],
        late_turn: int = DEFAULTS["late_turn"],
        late_knock_max: int = DEFAULTS["late_knock_max"],
        knock: str = "estimate",
        knock_value: float = KNOCK_VALUE,
        knock_worlds: int = KNOCK_WORLDS,
    ) -> None:
        super().__init__(seed)
        if knock not in KNOCK_RULES:
            raise ValueError(f"knock must be one of {', '.join(KNOCK_RULES)}, got {knock!r}")
        # settings of the other knock rule would be silently ignored: refuse them
        if knock == "estimate" and (late_turn, late_knock_max) != (DEFAULTS["late_turn"], DEFAULTS["late_knock_max"]):
            raise ValueError("late_turn and late_knock_max belong to the turn rule: add knock=turn (the default "
                             "knock estimate is set by knock_value and knock_worlds)")
        if knock == "turn" and (knock_value, knock_worlds) != (KNOCK_VALUE, KNOCK_WORLDS):
            raise ValueError("knock_value and knock_worlds set the knock estimate (knock=estimate), not knock=turn")
        if not np.isfinite(knock_value):
            raise ValueError(f"knock_value must be a finite number of points, got {knock_value}")
        if knock_worlds < 1:
            raise ValueError(f"knock_worlds must be >= 1 sampled hands, got {knock_worlds}")
        if not np.isfinite(take_margin):
            raise ValueError(f"take_margin must be a finite number of deadwood points, got {take_margin}")
        if not danger_weight >= 0:
            raise ValueError(f"danger_weight must be >= 0, got {danger_weight}")
        if late_turn < 0:
            raise ValueError(f"late_turn must be >= 0 turns, got {late_turn}")
        if late_knock_max < 0:
            raise ValueError(f"late_knock_max must be >= 0 deadwood points, got {late_knock_max}")
        self.take_margin = take_margin
        self.danger_weight = danger_weight
        self.late_turn = late_turn
        self.late_knock_max = late_knock_max
        self.knock, self.knock_value, self.knock_worlds = knock, knock_value, knock_worlds

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = game_input(self, observation, info)
        legal = set(legal_actions(observation).tolist())
        return self.choose(infoset, rules, legal, decision=self.next_decision())

    def tie_break(self, decision: int) -> Callable[[int], float]:
        """The key of each card among equally scored discards at decision ``decision`` (the
        largest is played): the counter-based noise of this agent's key, the array
        version's ``noise`` (``rummy_env.agents.gin.policies``)."""
        key = self.key
        return lambda card: draws.noise(key, decision, card)

    def choose(self, infoset: InformationSet, rules: Rules, legal: set[int], decision: Optional[int] = None) -> int:
        """The move from an information set and the legal actions (what ``act`` plays; search
        agents call it directly). With the index ``decision`` of the agent's decision, its
        random numbers are counter-based draws of the agent's key and that index (among
        equally scored discards, the card with the largest ``tie_break(decision)(card)``;
        the knock estimate's samples, ``ChainDraws.of_decision``), as the array version's
        are; without one, they come from the agent's generator."""
        opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
        if infoset.phase == Phase.DRAW and PASS in legal:  # the wall: take the discard only to knock
            return TAKE_DISCARD if TAKE_DISCARD in legal and self._knocks_at_wall(infoset, rules, opts, decision) else PASS
        if infoset.phase in (Phase.OFFER, Phase.DRAW):
            if TAKE_DISCARD in legal and self._wants_top(infoset, opts):
                return TAKE_DISCARD
            return PASS if PASS in legal else DRAW_STOCK
        if BIG_GIN in legal:
            return BIG_GIN
        return self._discard_or_knock(infoset, rules, legal, opts, decision)

    def batch_policy(self) -> Optional[BatchPolicy]:
        """The array version, for either knock rule (the estimate's sampling as
        ``rummy_env.agents.gin.knock_vector`` does it for many games at once, from the same
        counter-based draws)."""
        return HeuristicPolicy(take_margin=self.take_margin, danger_weight=self.danger_weight,
                               late_turn=self.late_turn, late_knock_max=self.late_knock_max, knock=self.knock,
                               knock_value=self.knock_value, knock_worlds=self.knock_worlds)

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

    def _knocks_at_wall(self, info: InformationSet, rules: Rules, opts: dict, decision: Optional[int] = None) -> bool:
        """Whether it would knock having taken the discard at the wall (the rule of
        ``_discard_or_knock``, on the last turn: the estimate is asked from this position,
        which holds the same facts as the one after the take)."""
        top = info.discard_pile[-1]
        hand = info.hand | 1 << top
        after = melds.discard_deadwood(hand, **opts)
        knockable = [c for c in mask_to_cards(hand)
                     if after[c] <= info.knock_limit and (c != top or rules.discard_taken_card)]
        best = min(after[c] for c in knockable)
        if best == 0:
            return True
        facts = _danger_facts(info)
        card = min((c for c in knockable if after[c] == best), key=lambda c: self._danger(c, info, rules.aces_high, facts))
        return self._should_knock(best, info, rules, hand & ~(1 << card), decision)

    # ------------------------------------------------------------------ discarding

    def ranked_discards(self, info: InformationSet, rules: Rules, legal: set[int]) -> list[int]:
        """Discard actions from best to worst by this agent's score (for search agents)."""
        opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
        after = melds.discard_deadwood(info.hand, **opts)
        cards = [c for c in mask_to_cards(info.hand) if DISCARD + c in legal]
        scores = self._discard_scores(info.hand, cards, after, info, opts)
        return [DISCARD + c for c in sorted(cards, key=lambda c: scores[c])]

    def _discard_or_knock(self, info: InformationSet, rules: Rules, legal: set[int], opts: dict,
                          decision: Optional[int] = None) -> int:
        hand = info.hand
        after = melds.discard_deadwood(hand, **opts)
        cards = [c for c in mask_to_cards(hand) if DISCARD + c in legal]
        knockable = [c for c in mask_to_cards(hand) if KNOCK + c in legal]
        facts = _danger_facts(info)
        if knockable:
            best = min(after[c] for c in knockable)
            choices = [c for c in knockable if after[c] == best]
            card = min(choices, key=lambda c: self._danger(c, info, rules.aces_high, facts))
            # no face-up discard legal (the discard taken at the wall): knock
            if best == 0 or not cards or self._should_knock(best, info, rules, hand & ~(1 << card), decision):
                return KNOCK + card
        scores = self._discard_scores(hand, cards, after, info, opts, facts)
        low = min(scores.values())
        ties = [c for c, v in scores.items() if v <= low + 1e-9]  # in card order
        if decision is None:
            return DISCARD + int(self.rng.choice(ties))
        return DISCARD + (ties[0] if len(ties) == 1 else max(ties, key=self.tie_break(decision)))

    def _should_knock(self, deadwood: int, info: InformationSet, rules: Rules, kept: int,
                      decision: Optional[int] = None) -> bool:
        """Knock with the ``kept`` hand (``deadwood`` > 0), or play on? (module docstring)"""
        if self.knock == "turn":
            return info.turn < self.late_turn or deadwood <= self.late_knock_max
        if decision is None:
            return estimate_knock(info, rules, kept, self.rng, self.knock_worlds, self.knock_value)[0]
        chain_draws = ChainDraws.of_decision(self.key, decision, self.knock_worlds)
        return estimate_knock(info, rules, kept, None, self.knock_worlds, self.knock_value, chain_draws)[0]

    def _discard_scores(self, hand: int, cards: list[int], after, info: InformationSet, opts: dict,
                        facts: Optional[list] = None) -> dict[int, float]:
        """Expected deadwood after the next stock draw, plus danger, per candidate discard."""
        unseen = mask_to_cards(info.unseen)
        scores = {}
        if unseen:
            kept = np.uint64(hand) & ~_bits(cards)
            draws = kept[:, None] | _bits(unseen)[None, :]  # (cards, unseen)
            expected = melds.best_discard_deadwood(draws, **opts).mean(axis=1)  # discarding the draw is one choice
        else:
            expected = np.array([after[c] for c in cards], dtype=np.float64)
        facts = _danger_facts(info) if facts is None else facts
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


def estimate_knock(info: InformationSet, rules: Rules, kept: int, rng: Optional[np.random.Generator],
                   worlds: int = KNOCK_WORLDS, value: float = KNOCK_VALUE,
                   draws: Optional[ChainDraws] = None) -> tuple[bool, float]:
    """The knock estimate of one position: (knock?, mean points) of knocking with the ``kept``
    hand (10 cards, more than 0 deadwood) from the information set ``info`` of the player
    to move, over ``worlds`` opponent hands sampled with ``rng`` (or from ``draws``, a
    ``belief.ChainDraws``: how ``rummy_env.agents.gin.knock_vector``, the same over many games
    at once, is checked against this). Knocks when the mean is at least ``value``, or above
    0 on the last turn (a discard then ends the hand drawn: playing on is worth nothing)."""
    opponents = sample_opponent_hands(info, rules, rng, worlds, draws)
    mean = float(knock_points(kept, opponents, rules).mean())
    if last_turn(info.stock_size, info.turn, rules):
        return mean > 0, mean  # a discard now ends the hand drawn: playing on is worth nothing
    return mean >= value, mean


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
