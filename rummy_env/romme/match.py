"""A Rommé table: a series of hands added up (docs/games/romme/rules.md, "Scoring and the table").

Rommé's match (``rummy_env.core.game.Match``) is a *table*: each hand's zero-sum rewards
(``RommeHandResult.rewards``: the player who went out scores the sum of the others'
penalties, every other player minus their own) are added to the seats' running totals.
The table ends

- after ``hands_per_table`` hands (8 by default; 0: no fixed number), or
- as soon as a player's total falls to minus ``loss_limit`` or lower (0: no limit; with 500
  the table ends at -500), even before ``hands_per_table`` hands;

whichever comes first (both may end it on the same hand). A stalemate (a hand nobody
won: the stock gone, or ``max_turns``) is a hand played: it counts towards
``hands_per_table`` and scores 0 for everyone. The rules refuse ``hands_per_table`` and
``loss_limit`` both 0, so a table always has an end; with ``hands_per_table`` 0 only a
total reaching the loss limit ends it (a run of stalemates leaves it going on).

The winner of the table has the highest total; when two or more seats share the highest
total there is no winner (``winner`` None: the env's ``win_loss`` reward is then 0 for
all, and tournaments place those seats equal, as a tie of Gin Rummy's grand totals).
There are no bonuses: each player's return over a table is its total.

The deal passes to the left each hand, stalemates included: the dealer of hand ``k``
(0-based) is ``first_dealer + k`` modulo the number of players.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from rummy_env.core.match import SeatTotals, TotalsResult
from rummy_env.romme.cards import penalty_values
from rummy_env.romme.game import RommeHandResult, RommeState
from rummy_env.romme.rules import HAND_SIZE, MAX_PLAYERS, RommeRules, RommeRulesSpec, check_num_players, load_romme_rules


class TableScores(tuple):
    """The running totals per seat (a tuple, indexed by seat, as every game's match points)
    carrying ``hands_played``: the hands finished so far. What ``RommeTable.points`` gives
    and the observation encoders read (``rummy_env.romme.encoding``)."""

    hands_played: int

    def __new__(cls, totals: Sequence[int], hands_played: int) -> "TableScores":
        out = super().__new__(cls, (int(t) for t in totals))
        out.hands_played = int(hands_played)
        return out

    def __reduce__(self) -> Any:  # pickled (worker processes) with its hands played
        return (TableScores, (tuple(self), self.hands_played))


@dataclass(frozen=True)
class RommeTableResult(TotalsResult):
    """A finished table: ``totals`` per seat, ``winner`` the seat with the highest total
    (None when several share it), ``ended_by`` 'loss_limit' when a total reached minus
    ``loss_limit`` (also when the last of ``hands_per_table`` hands did it), else 'hands'."""

    winner: Optional[int]
    totals: tuple[int, ...]
    hands_won: tuple[int, ...]
    hands_played: int
    stalemates: int
    ended_by: str


@dataclass
class RommeTable(SeatTotals):
    """Running totals of a table under ``rules`` (``RommeRules``; ``results``: each hand's
    ``RommeHandResult``); feed it each finished hand with ``record`` (the module docstring
    says when it ends and who wins). Make one with ``create``."""

    @classmethod
    def create(cls, num_players: int, rules: RommeRulesSpec = None, first_dealer: Optional[int] = None) -> "RommeTable":
        """A table for ``num_players`` (2..6) under ``rules`` (a preset, YAML path, mapping or
        ``RommeRules``); ``first_dealer`` deals the first hand (None: the last seat, so seat
        0 plays first, as ``RommeState.from_deck``)."""
        n = check_num_players(num_players)
        rules = load_romme_rules(rules)
        first_dealer = n - 1 if first_dealer is None else first_dealer
        if isinstance(first_dealer, bool) or not isinstance(first_dealer, (int, np.integer)) \
                or not 0 <= first_dealer < n:
            raise ValueError(f"first_dealer must be a seat 0..{n - 1}, got {first_dealer!r}")
        return cls(rules, n, int(first_dealer), [0] * n, [0] * n)

    @property
    def hands_played(self) -> int:
        """Hands finished so far, stalemates included."""
        return len(self.results)

    @property
    def points(self) -> TableScores:
        """The running totals per seat, with the hands played (a ``TableScores``)."""
        return TableScores(self.totals, len(self.results))

    @property
    def is_over(self) -> bool:
        return self._ended_by() is not None

    def _ended_by(self) -> Optional[str]:
        r = self.rules
        if r.loss_limit > 0 and min(self.totals) <= -r.loss_limit:
            return "loss_limit"
        if r.hands_per_table > 0 and len(self.results) >= r.hands_per_table:
            return "hands"
        return None

    def _over_message(self) -> str:
        if self._ended_by() == "loss_limit":
            return (f"the table is over: a total fell to -{self.rules.loss_limit} or lower "
                    f"(totals {self.totals}) after {len(self.results)} hands")
        return f"the table is over: its {self.rules.hands_per_table} hands (hands_per_table) are played"

    def new_hand(self, rng: np.random.Generator) -> RommeState:
        """The next hand, dealt by ``dealer`` from a pack shuffled by ``rng`` (a seed or Generator)."""
        if self.is_over:
            raise ValueError(f"{self._over_message()}; no more hands can be dealt")
        return RommeState.new_hand(self.num_players, self.rules, rng, self.dealer)

    def record(self, result: RommeHandResult) -> None:
        """Book a finished hand: its rewards are added to the totals."""
        if self.is_over:
            raise ValueError(f"{self._over_message()}; no more hands can be recorded")
        if not isinstance(result, RommeHandResult):
            raise TypeError(f"a Rommé table records a finished hand's RommeHandResult (RommeState.result), "
                            f"got {type(result).__name__}")
        rewards = result.rewards
        if len(rewards) != self.num_players:
            raise ValueError(f"the hand was played by {len(rewards)} players; this table seats {self.num_players}")
        self.results.append(result)
        for seat, reward in enumerate(rewards):
            self.totals[seat] += reward
        if result.winner is not None:
            self.hands_won[result.winner] += 1

    def result(self) -> RommeTableResult:
        """The final totals and the winner, once the table ``is_over``."""
        ended_by = self._ended_by()
        if ended_by is None:
            raise ValueError(f"the table is not over yet: {len(self.results)} hands played, totals {self.totals}")
        best = max(self.totals)
        leaders = [seat for seat, total in enumerate(self.totals) if total == best]
        return RommeTableResult(
            winner=leaders[0] if len(leaders) == 1 else None,
            totals=tuple(self.totals),
            hands_won=tuple(self.hands_won),
            hands_played=len(self.results),
            stalemates=sum(r.winner is None for r in self.results),
            ended_by=ended_by,
        )


# ---------------------------------------------------------------------------------------
# bounds of the totals (for the observation space)


def max_hand_penalty(rules: RommeRules) -> int:
    """The most one seat can pay in one hand under ``rules``: its 14 costliest cards of the
    pack (a hand holds at most 14), doubled by ``never_out_double``, times the hand-rummy
    multiplier. A bound, not a hand that must occur."""
    pen = penalty_values(rules)
    pack = [int(pen[52])] * rules.jokers + [int(pen[k]) for k in range(52)] * 2
    worst = sum(sorted(pack, reverse=True)[:HAND_SIZE + 1])
    return worst * (2 if rules.never_out_double else 1) * rules.hand_rummy_multiplier


def total_bounds(rules: RommeRules) -> tuple[int, int]:
    """(lowest, highest) total a seat can have at any point of a table under ``rules``, at
    up to 6 players: each hand moves a total by at most one seat's penalty down or five
    seats' up; with a loss limit every total but the last hand's loss stays above minus
    the limit, and the totals sum to 0, so the highest is below five limits plus a hand."""
    pay = max_hand_penalty(rules)
    win = (MAX_PLAYERS - 1) * pay
    low, high = [], []
    if rules.hands_per_table > 0:
        low.append(-rules.hands_per_table * pay)
        high.append(rules.hands_per_table * win)
    if rules.loss_limit > 0:
        low.append(-(rules.loss_limit - 1) - pay)
        high.append((MAX_PLAYERS - 1) * (rules.loss_limit - 1) + win)
    return max(low), min(high)
