"""``random``: a uniformly random legal action. The floor every other agent must beat."""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.agents.base import Agent, check_gin_input, legal_actions


class RandomAgent(Agent):
    name = "random"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        check_gin_input(observation, info)
        return int(self.rng.choice(legal_actions(observation)))
