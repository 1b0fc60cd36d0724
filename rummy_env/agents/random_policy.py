"""``random``'s array policy, the same in every game: the ``floor(u * k)``-th of the k legal
actions in id order, ``u`` the counter-based draw of the game's key and decision index
(``rummy_env.agents.draws``), as each game's ``random`` agent picks one game at a time.

Why one class: it reads nothing but the engine's action mask, so every game's vector
engine (``rummy_env.core.vector``) can be played by it, and the batch player
(``rummy_env.core.batch``) asks it once a step for all its games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional

import numpy as np

from rummy_env.agents.draws import picks


@dataclass(frozen=True)
class RandomPolicy:
    """``random`` over many games (``rummy_env.core.game.BatchPolicy``)."""

    observation: ClassVar[Optional[str]] = None

    def __call__(self, env: Any, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        mask = env.action_mask()[rows]
        index = picks(keys, decisions, mask.sum(axis=1))
        return np.argmax(np.cumsum(mask, axis=1) > index[:, None], axis=1).astype(np.int64)
