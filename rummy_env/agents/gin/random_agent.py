"""``random``: a uniformly random legal action. The floor every other agent must beat.

The pick is the ``floor(u * k)``-th of the k legal actions (in id order), ``u`` the
counter-based draw of the agent's key and decision index (``rummy_env.agents.draws``), so
its array policy (``rummy_env.agents.gin.policies.RandomPolicy``) picks the same."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.draws import pick
from rummy_env.core.game import BatchPolicy


class RandomAgent(Agent):
    name = "random"
    game = "gin"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        game_input(self, observation, info, needs_information=False)
        legal = legal_actions(observation)
        return int(legal[pick(self.key, self.next_decision(), legal.size)])

    def batch_policy(self) -> Optional[BatchPolicy]:
        from rummy_env.agents.gin.policies import RandomPolicy

        return RandomPolicy()
