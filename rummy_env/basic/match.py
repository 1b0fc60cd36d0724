"""A Basic Rummy match: hands added up until a player reaches the target score.

Only one player scores per hand (the one who went out), so there is never a tie.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from rummy_env.basic.game import BasicRummyState, RummyHandResult
from rummy_env.basic.rules import BasicRummyRules, RummyRulesSpec, check_num_players, load_rummy_rules


@dataclass(frozen=True)
class RummyMatchResult:
    """Final totals of a match: ``winner`` reached the target (only one can: one scorer a hand)."""

    winner: int
    totals: tuple[int, ...]
    hands_won: tuple[int, ...]
    hands_played: int
    stalemates: int

    @property
    def scores(self) -> tuple[int, ...]:
        """What decides the match, per seat: the totals."""
        return self.totals

    @property
    def bonus_rewards(self) -> tuple[int, ...]:
        """No bonuses in Basic Rummy: zeros."""
        return (0,) * len(self.totals)

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass
class BasicRummyMatch:
    """Running totals of a match to ``rules.target_score``; feed it each finished hand."""

    rules: BasicRummyRules
    num_players: int
    first_dealer: int
    totals: list[int] = field(default_factory=list)
    hands_won: list[int] = field(default_factory=list)
    results: list[RummyHandResult] = field(default_factory=list)

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

    @property
    def dealer(self) -> int:
        """Dealer of the next hand: the deal passes to the left every hand."""
        return (self.first_dealer + len(self.results)) % self.num_players

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
