"""The one interface every player implements: ``act(observation, info) -> action``.

An agent receives exactly what the AEC env's ``last()`` returns for its player: the
observation dict (``observation``, ``action_mask``) and the info dict, whose
``information_set`` (``rummy_env.game.InformationSet``) and ``rules`` carry everything
the player may know. It never sees the game state, so it cannot peek; tests change the
cards it cannot see and check that its action does not change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Optional

import numpy as np

from rummy_env.gin.game import NUM_ACTIONS, InformationSet
from rummy_env.gin.rules import Rules


class Agent(ABC):
    """A player. Seeded: the same seed and the same inputs give the same actions."""

    name: str = "agent"

    def __init__(self, seed: Optional[int] = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        """Start afresh (a new game or match); with ``seed``, re-seed the agent's generator."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The action id to play, given the player's observation and info."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Legal action ids from the observation's mask (refuses an empty mask)."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("act() called with an empty action mask: this player is not to move")
    return legal


def information(info: dict[str, Any]) -> tuple[InformationSet, Rules]:
    """The information set and rules from an env info dict, with a clear error if missing
    or if they are not Gin Rummy's (Basic Rummy's ``rummy_v0`` has agents of its own)."""
    try:
        infoset, rules = info["information_set"], info["rules"]
    except KeyError as exc:
        raise KeyError(
            f"info has no {exc.args[0]!r}: pass the info that gin_rummy_v0's last() returns for the player to move"
        ) from None
    if not isinstance(infoset, InformationSet) or not isinstance(rules, Rules):
        got = infoset if not isinstance(infoset, InformationSet) else rules
        raise TypeError(
            f"this agent plays Gin Rummy (gin_rummy_v0), but info holds a {type(got).__name__}, not a Gin "
            f"{'InformationSet' if got is infoset else 'Rules'}; for Basic Rummy (rummy_v0) use rummy-random "
            "or rummy-heuristic"
        )
    return infoset, rules


def check_gin_input(observation: dict[str, np.ndarray], info: dict[str, Any]) -> None:
    """For agents that need no information set (``random``): refuse another game's input."""
    mask = observation.get("action_mask") if isinstance(observation, dict) else None
    if mask is not None and np.shape(mask) != (NUM_ACTIONS,):
        raise TypeError(
            f"this agent plays Gin Rummy (gin_rummy_v0): the action mask must have shape ({NUM_ACTIONS},), got "
            f"{np.shape(mask)}; for Basic Rummy (rummy_v0) use rummy-random or rummy-heuristic"
        )
    if isinstance(info, dict) and "information_set" in info:
        information(info)
