"""``ppo``: a policy network trained by ``rummy train`` (masked PPO with self-play).

``make("ppo")`` loads the policy shipped with the package (``rummy_env/agents/gin/data/ppo_gin.pt``: PPO
from ``configs/ppo.yaml``, its knock decisions fine-tuned by ``rummy_env.train.knock_labels``, then PPO
again against the default heuristic, ``configs/ppo_estimate.yaml``; how it was made in
``rummy_env/agents/gin/data/README.md``, its results in docs/agents.md);
``make("ppo:path=runs/X/policy.pt")`` (or ``ppo:runs/X/policy.pt``) loads another policy
file or training checkpoint, such as the PPO-only ``rummy_env/agents/gin/data/ppo_gin_base.pt``.

The network reads the ``flat`` encoding of the player's information set, re-encoded
here from ``info`` (so it works whatever encoding the env was built with) and without
match scores: training plays single hands. Networks trained with ``advice`` also get
the heuristic's evaluation of the position (``rummy_env.agents.gin.heuristic_features``). It plays the
most probable legal action (``greedy=true``, the default) or samples from its
distribution (``greedy=false``, seeded). torch is imported only when a ``ppo`` agent is
made: the env never needs it.

One game at a time (``act``) and many at once (``batch_policy``: tournaments) the moves
are the same, because both go through ``policy_actions`` (``rummy_env.agents.gin.ppo_actions``,
a floor below the agent and its array policy: how decisions too close to call in float32
are taken in float64).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents.base import game_input, legal_actions
from rummy_env.agents.ppo_base import PPOAgentBase, check_greedy, need_torch
from rummy_env.agents.gin.heuristic_features import advice_of_infoset
from rummy_env.agents.gin.policies import PPOPolicy
from rummy_env.agents.gin.ppo_actions import CLOSE, MANY_ROWS, TIE, Networks, _load, _networks, policy_actions
from rummy_env.core.game import BatchPolicy
from rummy_env.gin.encoding import encode
from rummy_env.gin.game import NUM_ACTIONS

# the decision from the network lives a floor below (``ppo_actions``), under the array policies;
# importable from here too
__all__ = ["CLOSE", "MANY_ROWS", "SHIPPED", "TIE", "Networks", "PPOAgent", "policy_actions"]

SHIPPED = Path(__file__).resolve().parent / "data" / "ppo_gin.pt"


class PPOAgent(PPOAgentBase):
    """``ppo`` of Gin Rummy: a trained network (see the module docstring)."""

    game = "gin"

    def __init__(self, seed: Optional[int] = None, path: Optional[Union[str, Path]] = None, greedy: bool = True) -> None:
        super().__init__(seed)
        self._torch = need_torch("the ppo agent")
        self.path = Path(path) if path is not None else SHIPPED
        where = (str(self.path.resolve()), self.path.stat().st_mtime_ns if self.path.is_file() else 0)
        self.net, meta = _load(*where)
        self.nets = _networks(*where)
        self.trained_rules = meta.get("rules")
        self.greedy = check_greedy(greedy)

    @classmethod
    def from_net(cls, net: Any, greedy: bool = True) -> "PPOAgent":
        """An agent around a network in memory (training's evaluations), not a file."""
        agent = cls._around(net, greedy, None)
        agent.nets = Networks(net)  # its float64 copy is made from the network as it is then
        return agent

    def inputs(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        """The network's input for this decision: the ``flat`` encoding of the information
        set, then (advice networks) the advice features; what training feeds it too."""
        infoset, rules = game_input(self, observation, info)
        features = encode(infoset, rules, "flat")
        if self.net.advice:
            features = np.concatenate([features, advice_of_infoset(infoset, rules, legal_actions(observation))])
        return features

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        inputs = self.inputs(observation, info)
        mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
        mask[0, legal] = True
        decision = self.next_decision()
        keys, decisions = np.array([self.key], dtype=np.uint64), np.array([decision])
        return int(policy_actions(self.nets, inputs[None], mask, self.greedy, keys, decisions)[0])

    def batch_policy(self) -> Optional[BatchPolicy]:
        return PPOPolicy(self.nets, self.greedy)
