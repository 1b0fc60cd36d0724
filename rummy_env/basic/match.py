"""A Basic Rummy match: hands added up until a player reaches the target score.

Only one player scores per hand (the one who went out), so there is never a tie.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from rummy_env.basic.game import BasicRummyState, RummyHandResult
from rummy_env.basic.rules import RummyRulesSpec, check_num_players, load_rummy_rules
from rummy_env.core.match import SeatTotals, TotalsResult


@dataclass(frozen=True)
class RummyMatchResult(TotalsResult):
    """Final totals of a match: ``winner`` reached the target (only one can: one scorer a
    hand). The totals decide it; Basic Rummy has no bonuses."""

    winner: int
    totals: tuple[int, ...]
    hands_won: tuple[int, ...]
    hands_played: int
    stalemates: int


@dataclass
class BasicRummyMatch(SeatTotals):
    """Running totals of a match to ``rules.target_score`` (``rules``: ``BasicRummyRules``;
    ``results``: each hand's ``RummyHandResult``); feed it each finished hand."""

    @classmethod
    def create(cls, num_players: int, rules: RummyRulesSpec = None, first_dealer: Optional[int] = None) -> "BasicRummyMatch":
        n = check_num_players(num_players)
        rules = load_rummy_rules(rules)
        if not rules.match:
            raise ValueError("a match needs Basic Rummy rules with target_score > 0")
        first_dealer = n - 1 if first_dealer is None else first_dealer
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < n:
            raise ValueError(f"first_dealer must be a seat 0..{n - 1}, got {first_dealer!r}")
        return cls(rules, n, first_dealer, [0] * n, [0] * n)

    @property
    def points(self) -> list[int]:
        """The running totals per seat."""
        return self.totals

    def new_hand(self, rng: np.random.Generator) -> BasicRummyState:
        if self.is_over:
            raise ValueError("the match is over")
        return BasicRummyState.new_hand(self.num_players, self.rules, rng, self.dealer)

    def record(self, result: RummyHandResult) -> None:
        if self.is_over:
            raise ValueError("the match is over; no more hands can be recorded")
        self.results.append(result)
        if result.winner is not None:
            self.totals[result.winner] += result.points
            self.hands_won[result.winner] += 1

    @property
    def is_over(self) -> bool:
        return max(self.totals) >= self.rules.target_score

    def result(self) -> RummyMatchResult:
        if not self.is_over:
            raise ValueError("the match is not over yet")
        return RummyMatchResult(
            winner=int(np.argmax(self.totals)),
            totals=tuple(self.totals),
            hands_won=tuple(self.hands_won),
            hands_played=len(self.results),
            stalemates=sum(r.winner is None for r in self.results),
        )
