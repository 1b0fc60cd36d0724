"""``random``: a uniformly random legal action. The floor every other agent must beat."""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions


class RandomAgent(Agent):
    name = "random"
    game = "gin"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        game_input(self, observation, info, needs_information=False)
        return int(self.rng.choice(legal_actions(observation)))
