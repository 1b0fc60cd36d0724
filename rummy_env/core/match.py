"""What the games' matches share: a final result as plain data, and the books of a match
whose seats keep running totals (the deal passing to the left every hand).

Why: Basic Rummy's match and Rommé's table keep the same books (totals, hands won, the
finished hands) and end in a result decided by the totals alone, with no bonus; Gin's
match result is plain data the same way. Written once here, each game keeps only what
its own rules add (when a match ends, who wins, how a hand is booked).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class MatchResultBase:
    """Base of a game's final match result (a frozen dataclass of numbers and tuples)."""

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (tuples as lists), for infos, records and reports."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


class TotalsResult(MatchResultBase):
    """A final result decided by the ``totals`` alone: they are the ``scores``, and there
    are no bonuses (each return is already the seat's total)."""

    totals: tuple[int, ...]

    @property
    def scores(self) -> tuple[int, ...]:
        """What decides the match, per seat: the totals."""
        return self.totals

    @property
    def bonus_rewards(self) -> tuple[int, ...]:
        """No bonuses: zeros."""
        return (0,) * len(self.totals)


@dataclass
class SeatTotals:
    """The books of a match for ``num_players`` seats under ``rules``: each seat's running
    total and hands won, and the finished hands' results, in order. The deal passes to
    the left every hand, from ``first_dealer``."""

    rules: Any
    num_players: int
    first_dealer: int
    totals: list[int] = field(default_factory=list)
    hands_won: list[int] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)

    @property
    def dealer(self) -> int:
        """Dealer of the next hand: the deal passes to the left every hand."""
        return (self.first_dealer + len(self.results)) % self.num_players
