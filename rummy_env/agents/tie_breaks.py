"""The tie-break generators of a scripted agent's array policy, kept per game row and seat.

Why one module: Basic Rummy's and Rommé's ``heuristic`` break ties between equal moves with
``rng.choice`` from a generator the agent makes from its seed's 64-bit key. Their array
versions (``rummy_env.agents.basic.heuristic_vector``, ``rummy_env.agents.romme.heuristic_vector``)
must draw exactly there, so they keep, per engine, game row and seat, the key of the hand
being played and its ``np.random.default_rng(key)``, made anew at the seat's first decision
of the hand (decision 0) and created at its first draw. A choice among one draws nothing
(numpy draws nothing for it either); the index is drawn as ``integers(0, k)``, which is how
``Generator.choice`` draws it (tests hold both). Asking a row's decisions out of order is
refused: the draws would not be the agent's.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional, Sequence

import numpy as np


class SeatGenerators:
    """Per engine (dropped with it): per (row, seat) the key of the hand being played and its
    generator (None until its first draw). Pickled empty: a worker process plays hands of its own."""

    def __init__(self) -> None:
        self._engines: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self.__init__()

    def ask(self, env: Any, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> list["Choices"]:
        """The choosers of the players to move in games ``rows`` of ``env`` (a fresh generator
        where ``decisions`` is 0: their first decision of the hand)."""
        rows = np.asarray(rows, dtype=np.intp)
        row_list, seat_list = rows.tolist(), env.current[rows].tolist()
        key_list = np.asarray(keys, dtype=np.uint64).tolist()
        decision_list = np.asarray(decisions).tolist()
        games = self._engines.setdefault(env, {})
        for i, decision in enumerate(decision_list):
            if decision == 0:
                games[row_list[i], seat_list[i]] = [key_list[i], None]
        return [Choices(games.get((row, seat)), key, row, seat, decision)
                for row, seat, key, decision in zip(row_list, seat_list, key_list, decision_list)]


class Choices:
    """One row's seat's tie-breaks as the agent's ``rng.choice`` (module docstring)."""

    __slots__ = ("kept", "key", "row", "seat", "decision")

    def __init__(self, kept: Any, key: int, row: int, seat: int, decision: int) -> None:
        self.kept, self.key, self.row, self.seat, self.decision = kept, key, row, seat, decision

    def choice(self, options: Sequence[Any]) -> Any:
        if len(options) == 1:  # numpy draws nothing for a choice among one
            return options[0]
        kept = self.kept
        if kept is None or kept[0] != self.key:
            raise ValueError(f"the heuristic's array policy was asked decision {self.decision} of seat {self.seat} in "
                             f"game row {self.row} without that hand's first decision (decision 0): its tie-breaks "
                             "draw from one generator per hand and seat, as the agent's, so it must be asked every "
                             "decision of a hand in order")
        if kept[1] is None:
            kept[1] = np.random.default_rng(kept[0])
        return options[kept[1].integers(0, len(options))]


class KeyedTieBreaks:
    """An agent mixin (listed before ``Agent``): the agent's tie-break generator ``rng`` made
    from its seed's 64-bit key (``Agent.key``), at its making and at every re-seed. For seeds
    below 2**64 that is the seed's own generator; for any seed it is the one its array policy
    makes from the key it is given (``SeatGenerators``), so the two break ties alike."""

    def __init__(self, seed: Optional[int] = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(seed, *args, **kwargs)  # type: ignore[call-arg]
        self.rng = np.random.default_rng(self.key)  # type: ignore[attr-defined]

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)  # type: ignore[misc]
        if seed is not None:
            self.rng = np.random.default_rng(self.key)  # type: ignore[attr-defined]
