"""What every game's hand state shares: legal actions and information sets computed once
per position, an explicit deck checked, and an illegal action refused by naming the
legal ones, with nothing changed.

Why a base: each game's ``GameState`` (``rummy_env.core.game``) must cache the same way
(the env asks for the mask and every seat's information set at each step) and refuse
the same way (a clear error a user can act on); written once here, a new game cannot
get either subtly different.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Optional, Sequence, TypeVar

import numpy as np

from rummy_env.core.cards import card_count
from rummy_env.core.game import IllegalActionError


class HandResultBase:
    """Base of a game's hand result (a frozen dataclass with ``outcome``, ``winner``,
    ``points`` and a ``rewards`` property): ``to_dict`` gives those four first, then the
    game's own ``details()``, as plain data for info dicts, records and reports."""

    def details(self) -> dict[str, Any]:
        """The game's own fields of the result, as plain data (card lists as text)."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "winner": self.winner, "points": self.points,  # type: ignore[attr-defined]
                "rewards": list(self.rewards), **self.details()}  # type: ignore[attr-defined]


def card_ids(deck: Any, size: int, what: str = "deck") -> tuple[int, ...]:
    """``deck`` as a tuple of ints, if it is a sequence (or 1-d integer array) of whole
    numbers; else a ValueError naming ``what`` and the card ids allowed (0..size-1). Text
    and fractions ("3", 3.0, a float array) are refused, not converted: a deck that is not
    ids is a mistake to name, not to guess at."""
    allowed = f"{what} must be a sequence of whole numbers (card ids 0..{size - 1})"
    if isinstance(deck, np.ndarray):
        if deck.ndim != 1 or not np.issubdtype(deck.dtype, np.integer):
            raise ValueError(f"{allowed}, got an array of {deck.dtype} of shape {deck.shape}")
        return tuple(deck.tolist())
    if isinstance(deck, (str, bytes, dict)) or not hasattr(deck, "__iter__"):
        raise ValueError(f"{allowed}, got {deck!r}")
    out = tuple(deck)
    for position, card in enumerate(out):
        if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)):
            raise ValueError(f"{allowed}, got {card!r} at position {position}")
    return tuple(int(c) for c in out)


def checked_deck(deck: Sequence[int], size: int) -> tuple[int, ...]:
    """``deck`` as a tuple of ints, if it is a permutation of the card ids 0..size-1."""
    out = card_ids(deck, size)
    if sorted(out) != list(range(size)):
        raise ValueError(f"deck must be a permutation of the {size} card ids 0..{size - 1}")
    return out


S = TypeVar("S", bound="CardGameState")


@dataclass
class CardGameState(ABC):
    """Base of a game's hand state (a dataclass). A subclass sets ``num_actions``, computes
    its legal actions (``_compute_legal``) and information sets (``_information_set``),
    names actions (``action_name``), and in ``step`` calls ``_check(action)`` first and
    ``_moved()`` once it changes the position. It has a ``phase`` whose value
    ``over_phase`` means the hand is over, and names in ``list_fields`` its fields that
    are lists changed in place by moves (what ``clone`` copies)."""

    num_actions: ClassVar[int]
    over_phase: ClassVar[Any]
    list_fields: ClassVar[tuple[str, ...]] = ()
    _legal: Optional[list[int]] = field(default=None, repr=False, compare=False, kw_only=True)
    _infos: dict = field(default_factory=dict, repr=False, compare=False, kw_only=True)  # this position's

    @abstractmethod
    def _compute_legal(self) -> list[int]:
        """Legal action ids for the player to move, in increasing order ([] when over)."""

    @abstractmethod
    def _information_set(self, player: int) -> Any:
        """What ``player`` knows now, and nothing else."""

    @abstractmethod
    def action_name(self, action: int) -> str:
        """A readable name of an action id under this hand's rules (ValueError if no id)."""

    @property
    def is_over(self) -> bool:
        return self.phase == self.over_phase  # type: ignore[attr-defined]

    def clone(self: S) -> S:
        """An independent copy (for search): the ``list_fields`` copied, the rest shared
        (numbers, tuples and other values no move changes in place)."""
        new = copy.copy(self)
        for name in self.list_fields:
            setattr(new, name, list(getattr(self, name)))
        new._infos = {}
        return new

    def legal_actions(self) -> list[int]:
        """Legal action ids for the player to move, in increasing order ([] when over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def legal_mask(self) -> np.ndarray:
        """int8 mask over the game's actions for the player to move."""
        if self._legal is None:
            self._legal = self._compute_legal()
        buf = bytearray(self.num_actions)  # item writes into bytes: a third of numpy's zeros + fancy assignment
        for a in self._legal:
            buf[a] = 1
        return np.frombuffer(buf, dtype=np.int8)

    def is_legal(self, action: int) -> bool:
        """Whether the player to move may play the action id ``action`` now."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return action in self._legal

    def information_set(self, player: int) -> Any:
        """Everything ``player`` knows now, and nothing else (cached until the next step)."""
        cached = self._infos.get(player)
        if cached is not None:
            return cached
        n = self.num_players  # type: ignore[attr-defined]
        if type(player) is not int:  # the env's own calls pass ints: checked at the cost of one test
            if isinstance(player, bool) or not isinstance(player, np.integer):
                raise ValueError(f"player must be a seat 0..{n - 1}, got {player!r}")
            player = int(player)
        if not 0 <= player < n:
            raise ValueError(f"player must be a seat 0..{n - 1}, got {player!r}")
        info = self._infos[player] = self._information_set(player)
        return info

    def _check(self, action: Any) -> int:
        """``action`` as an int if it is legal now; else ``IllegalActionError`` naming the
        legal actions (the state is left as it was)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        if type(action) is int and action in self._legal:  # the common case, at one test's cost
            return action
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action must be an integer action id 0..{self.num_actions - 1}, got {action!r}")
        if action in self._legal:
            return int(action)
        if self.is_over:
            raise IllegalActionError(f"the hand is over; no action is legal (got {action!r})")
        names = ", ".join(f"{a} ({self.action_name(a)})" for a in self._legal)
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action must be an integer action id 0..{self.num_actions - 1}, got {action!r}; "
                                     f"legal: {names}")
        phase = getattr(self, "phase", None)
        where = f" in phase {phase.name}" if phase is not None else ""
        raise IllegalActionError(f"illegal action {action} ({self.action_name(action)}) for player "
                                 f"{self.current_player}{where}; legal: {names}")  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ text (``render``)

    def _seat_lines(self, perspective: Optional[int], shown: Callable[[int], str], size: Callable[[int], int],
                    mark: Callable[[int], str] = lambda seat: "") -> list[str]:
        """``render``'s line a seat of a game where a player goes out: ``player_N``, ``(dealer)``
        and the game's ``mark``, then the hand as ``shown`` writes it where ``perspective``
        may see it (every hand once a player went out), else its ``size`` in cards."""
        result = self.result  # type: ignore[attr-defined]
        shown_all = result is not None and result.winner is not None
        lines = []
        for seat in range(self.num_players):  # type: ignore[attr-defined]
            who = f"player_{seat}{' (dealer)' if seat == self.dealer else ''}{mark(seat)}"  # type: ignore[attr-defined]
            cards = shown(seat) if perspective is None or perspective == seat or shown_all else f"[{card_count(size(seat))}]"
            lines.append(f"{who}: {cards}")
        return lines

    def _hand_over_line(self) -> str:
        """``render``'s line for a finished hand of a game where a player goes out (or none
        does: a stalemate)."""
        result = self.result  # type: ignore[attr-defined]
        if result.winner is None:
            return f"hand over: stalemate ({result.reason}), no points"
        return f"hand over: player_{result.winner} went out ({result.outcome}), scores {result.points}"

    def _moved(self) -> None:
        """Forget what was computed for the position before this move."""
        self._legal = None
        self._infos = {}
