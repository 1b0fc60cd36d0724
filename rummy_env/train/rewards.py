"""What a hand is worth to the learner, and the opponent kinds beside a game's agents.

Why a module of their own: the config names them and the rollout sources
(``train.hands``, ``train.rollout``) use them while a hand is played; here both import
them without the rollouts importing the config, which reaches the game's training
adapter and so the rollouts (no import cycle).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# The rewards a hand can be trained on (``reward``).
REWARDS = ("points", "scaled", "win_loss")
# Opponent kinds besides the game's agents: the learner in every seat, or a pool snapshot.
SELF, POOL = "self", "pool"


def with_win_bonus(rewards: Any, win_bonus: float) -> Any:
    """The reward trained on: the env's reward plus ``win_bonus`` for the hand's winner and
    minus it for the loser (a drawn hand stays 0). Why: points alone teach a policy to win
    fewer, bigger hands; the bonus makes hands won count too. Still zero-sum."""
    return rewards + win_bonus * np.sign(rewards) if win_bonus else rewards


def hand_reward(points: Any, reward: str, win_bonus: float) -> Any:
    """A seat's reward for a hand that gave it ``points`` (``reward``: ``REWARDS``), plus the win bonus."""
    points = np.float64(points) if np.isscalar(points) else np.asarray(points, dtype=np.float64)
    base = points / 100.0 if reward == "scaled" else np.sign(points) if reward == "win_loss" else points
    return with_win_bonus(base, win_bonus)
