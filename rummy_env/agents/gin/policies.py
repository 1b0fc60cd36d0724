"""The array policies of the Gin Rummy agents (``Agent.batch_policy``): each agent's moves
over many games of the vector engine at once, for the batch player
(``rummy_env.gin.batch``) that tournaments use.

Why a policy equals its agent move for move: the decisions are the same rules as array
operations (``simple_actions``, ``heuristic_actions``, the network over a batch), and
every random choice is the counter-based draw (``rummy_env.agents.draws``) of the key and
decision index the batch player passes for each game, which the per-game agent computes
from its own key and ``next_decision``. Tests play tournaments both ways and compare the
records line by line.

The policies are frozen dataclasses, equal when they play alike (two ``heuristic`` agents
with the same settings and different seeds: the keys differ per game, not the policy), so
the batch player asks them once a step for all their games.

They sit between the agents, which hand them out (``batch_policy``), and the array moves
they play (``simple_vector``, ``heuristic_vector``, ``ppo_actions``), importing only the
latter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Optional

import numpy as np

from rummy_env.agents.draws import noise_table
from rummy_env.agents.gin.heuristic_features import advice_of_env
from rummy_env.agents.gin.heuristic_params import KNOCK_VALUE, KNOCK_WORLDS
from rummy_env.agents.gin.heuristic_vector import heuristic_actions
from rummy_env.agents.gin.ppo_actions import Networks, policy_actions
from rummy_env.agents.gin.simple_vector import simple_actions
from rummy_env.agents.random_policy import RandomPolicy  # noqa: F401  (random's, the same in every game)
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.encoding import FLAT_SIZE
from rummy_env.gin.game import Phase
from rummy_env.gin.vector import VectorGinRummy


def discard_noise(env: VectorGinRummy, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """(len(rows), 52): the counter-based noise of each card for the games of ``rows`` in the
    discard phase (zeros in the others, which break no ties): the per-game agents'
    ``draws.noise(key, decision, card)``."""
    out = np.zeros((rows.size, NUM_CARDS))
    discarding = np.flatnonzero(env.phase[rows] == Phase.DISCARD)
    if discarding.size:
        out[discarding] = noise_table(keys[discarding], decisions[discarding], NUM_CARDS)
    return out


@dataclass(frozen=True)
class SimplePolicy:
    """``simple`` (``SimpleAgent``): ``simple_actions`` with the counter-based tie-breaks."""

    observation: ClassVar[Optional[str]] = None

    def __call__(self, env: VectorGinRummy, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        return simple_actions(env, rows, noise=discard_noise(env, rows, keys, decisions))


@dataclass(frozen=True)
class HeuristicPolicy:
    """``heuristic`` with its settings (``HeuristicAgent``): ``heuristic_actions`` with the
    counter-based tie-breaks, and with the default knock rule (``knock=estimate``) the
    counter-based draws of its opponent sampling (``knock_vector.counter_draws``)."""

    take_margin: float
    danger_weight: float
    late_turn: int
    late_knock_max: int
    knock: str = "turn"
    knock_value: float = KNOCK_VALUE
    knock_worlds: int = KNOCK_WORLDS
    observation: ClassVar[Optional[str]] = None

    def __call__(self, env: VectorGinRummy, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        noise = discard_noise(env, rows, keys, decisions)
        if self.knock == "turn":
            return heuristic_actions(env, rows, noise=noise, take_margin=self.take_margin,
                                     danger_weight=self.danger_weight, late_turn=self.late_turn,
                                     late_knock_max=self.late_knock_max)
        return heuristic_actions(env, rows, noise=noise, take_margin=self.take_margin, danger_weight=self.danger_weight,
                                 knock="estimate", knock_value=self.knock_value, knock_worlds=self.knock_worlds,
                                 draw_keys=(keys, decisions))


@dataclass(frozen=True)
class PPOPolicy:
    """``ppo`` (``PPOAgent``): the network over the ``flat`` observations (and advice
    features) of all the rows at once, through ``policy_actions`` as the agent's ``act``."""

    nets: Networks  # the agent's (equal only to itself)
    greedy: bool
    observation: ClassVar[Optional[str]] = "flat"

    def __call__(self, env: VectorGinRummy, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        if self.nets.net.advice:  # one array of the network's inputs, written once
            inputs = np.empty((rows.size, self.nets.net.obs_size), dtype=np.float32)
            width = FLAT_SIZE
            if rows.size == env.num_envs:  # every game (rows are increasing): observed straight into place
                env.observe(out=inputs[:, :width])
            else:
                np.take(env.observe(), rows, axis=0, out=inputs[:, :width])
            inputs[:, width:] = advice_of_env(env, rows)
        else:
            inputs = env.observe()[rows]
        return policy_actions(self.nets, inputs, env.action_mask()[rows] == 1, self.greedy, keys, decisions)
