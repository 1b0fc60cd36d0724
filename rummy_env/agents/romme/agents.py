"""Rommé agents (``rummy_env.romme_v0``): ``romme-random``.

Same interface as the other games' agents (``act(observation, info) -> action``, taking
exactly what ``romme_v0``'s ``last()`` returns). It checks that it was given Rommé input
and otherwise raises a ``TypeError`` naming what it got: an action id means nothing in
another game's layout.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions

GAME = "romme"


class RommeRandomAgent(Agent):
    """``romme-random``: a uniformly random legal action (seeded). Every masked-in Rommé
    action can be completed, so random play always finishes its turns."""

    name = "romme-random"
    game = GAME

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        game_input(self, observation, info)
        return int(self.rng.choice(legal_actions(observation)))
