"""``random``, the same in every game: the agent's pick and its array policy. The pick is
the ``floor(u * k)``-th of the k legal actions in id order, ``u`` the counter-based draw of
the agent's key and decision index (``rummy_env.agents.draws``), one game at a time
(``RandomAgentBase``, which each game's ``random`` subclasses with its name) or many at once
(``RandomPolicy``), so both pick the same.

Why one class: it reads nothing but the engine's action mask, so every game's vector
engine (``rummy_env.core.vector``) can be played by it, and the batch player
(``rummy_env.core.batch``) asks it once a step for all its games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.draws import pick, picks
from rummy_env.core.game import BatchPolicy


@dataclass(frozen=True)
class RandomPolicy:
    """``random`` over many games (``rummy_env.core.game.BatchPolicy``)."""

    observation: ClassVar[Optional[str]] = None

    def __call__(self, env: Any, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        mask = env.action_mask()[rows]
        index = picks(keys, decisions, mask.sum(axis=1))
        return np.argmax(np.cumsum(mask, axis=1) > index[:, None], axis=1).astype(np.int64)


class RandomAgentBase(Agent):
    """``random`` of one game (a subclass sets ``game``): a uniformly random legal move by the
    counter-based draws (module docstring). ``needs_information``: whether its input must
    hold the information set and rules (``agents.base.game_input``), or the mask is enough."""

    name = "random"
    needs_information = True

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        game_input(self, observation, info, needs_information=self.needs_information)
        legal = legal_actions(observation)
        return int(legal[pick(self.key, self.next_decision(), legal.size)])

    def batch_policy(self) -> Optional[BatchPolicy]:
        return RandomPolicy()
