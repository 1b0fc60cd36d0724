"""A match: hands added up to the target score, then game, line and shutout bonuses.

Kept apart from the hand (``rummy_env.gin.game``) because search and most training work on
single hands; the env and the tournament use this to play whole matches. The dealer
alternates every hand, drawn hands included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from rummy_env.core.match import MatchResultBase
from rummy_env.gin.game import GinRummyState, HandResult
from rummy_env.gin.rules import Rules, RulesSpec, load_rules


@dataclass(frozen=True)
class MatchResult(MatchResultBase):
    """Final totals. ``winner`` has the higher grand total (None on an exact tie)."""

    winner: Optional[int]
    target_reached_by: int
    hand_points: tuple[int, int]
    hands_won: tuple[int, int]
    shutout: bool
    game_bonus: tuple[int, int]
    line_bonus: tuple[int, int]
    shutout_extra: tuple[int, int]
    grand_total: tuple[int, int]

    @property
    def scores(self) -> tuple[int, int]:
        """What decides the match, per seat: the grand totals."""
        return self.grand_total

    @property
    def bonus_rewards(self) -> tuple[int, int]:
        """Per seat, the bonuses (game, line, shutout) net of the other's: added to the last
        hand's rewards, each player's return is its grand total minus the opponent's."""
        bonus = [self.grand_total[p] - self.hand_points[p] for p in (0, 1)]
        return (bonus[0] - bonus[1], bonus[1] - bonus[0])


@dataclass
class Match:
    """Running totals of a match; feed it each finished hand with ``record``."""

    rules: Rules
    first_dealer: int = 1
    hand_points: list[int] = field(default_factory=lambda: [0, 0])
    hands_won: list[int] = field(default_factory=lambda: [0, 0])
    hands_played: int = 0
    results: list[HandResult] = field(default_factory=list)

    @classmethod
    def create(cls, rules: RulesSpec = None, first_dealer: int = 1) -> "Match":
        if first_dealer not in (0, 1):
            raise ValueError(f"first_dealer must be 0 or 1, got {first_dealer!r}")
        rules = load_rules(rules)
        if not rules.match:
            raise ValueError("these rules have target_score 0: hands stand alone and there is no match")
        return cls(rules=rules, first_dealer=first_dealer)

    @property
    def points(self) -> list[int]:
        """The running hand points per seat."""
        return self.hand_points

    @property
    def dealer(self) -> int:
        """Dealer of the next hand."""
        return (self.first_dealer + self.hands_played) % 2

    @property
    def is_over(self) -> bool:
        return max(self.hand_points) >= self.rules.target_score

    def new_hand(self, seed=None) -> GinRummyState:
        if self.is_over:
            raise ValueError("the match is over")
        return GinRummyState.new_hand(self.rules, seed, dealer=self.dealer)

    def record(self, result: HandResult) -> None:
        if self.is_over:
            raise ValueError("the match is over; no more hands can be recorded")
        self.results.append(result)
        self.hands_played += 1
        if result.winner is not None:
            self.hand_points[result.winner] += result.points
            self.hands_won[result.winner] += 1

    def result(self) -> MatchResult:
        """Final totals with bonuses; only once the match is over."""
        if not self.is_over:
            raise ValueError("the match is not over yet")
        r = self.rules
        leader = 0 if self.hand_points[0] >= r.target_score else 1
        shutout = r.shutout and self.hands_won[leader] == self.hands_played
        game = tuple(r.game_bonus if p == leader else 0 for p in (0, 1))
        line = tuple(r.line_bonus * self.hands_won[p] for p in (0, 1))
        extra = tuple(self.hand_points[p] if (shutout and p == leader) else 0 for p in (0, 1))
        grand = tuple(self.hand_points[p] + extra[p] + game[p] + line[p] for p in (0, 1))
        winner = None if grand[0] == grand[1] else int(grand[1] > grand[0])
        return MatchResult(
            winner=winner,
            target_reached_by=leader,
            hand_points=(self.hand_points[0], self.hand_points[1]),
            hands_won=(self.hands_won[0], self.hands_won[1]),
            shutout=shutout,
            game_bonus=game,  # type: ignore[arg-type]
            line_bonus=line,  # type: ignore[arg-type]
            shutout_extra=extra,  # type: ignore[arg-type]
            grand_total=grand,  # type: ignore[arg-type]
        )
