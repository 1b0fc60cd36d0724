"""``ppo``: a policy network trained by ``rummy train`` (masked PPO with self-play).

``make("ppo")`` loads the policy shipped with the package (``rummy_env/agents/gin/data/ppo_gin.pt``: PPO
from ``configs/ppo.yaml``, then its knock decisions fine-tuned by ``rummy_env.train.knock_labels``;
how it was made in ``rummy_env/agents/gin/data/README.md``, its results in docs/agents.md);
``make("ppo:path=runs/X/policy.pt")`` (or ``ppo:runs/X/policy.pt``) loads another policy
file or training checkpoint, such as the PPO-only ``rummy_env/agents/gin/data/ppo_gin_base.pt``.

The network reads the ``flat`` encoding of the player's information set, re-encoded
here from ``info`` (so it works whatever encoding the env was built with) and without
match scores: training plays single hands. Networks trained with ``advice`` also get
the heuristic's evaluation of the position (``rummy_env.agents.gin.heuristic_features``). It plays the
most probable legal action (``greedy=true``, the default) or samples from its
distribution (``greedy=false``, seeded). torch is imported only when a ``ppo`` agent is
made: the env never needs it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.gin.heuristic_features import advice_of_infoset
from rummy_env.gin.encoding import encode

SHIPPED = Path(__file__).resolve().parent / "data" / "ppo_gin.pt"


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> tuple[Any, dict[str, Any]]:
    """Load a policy once per process (a tournament makes an agent per game)."""
    from rummy_env.agents.gin.network import load_policy

    return load_policy(path)


class PPOAgent(Agent):
    name = "ppo"
    game = "gin"

    def __init__(self, seed: Optional[int] = None, path: Optional[Union[str, Path]] = None, greedy: bool = True) -> None:
        super().__init__(seed)
        try:
            import torch
        except ImportError:
            raise ImportError(
                "the ppo agent needs torch: pip install 'rummy-env[train]' (CPU build: pip install torch==2.13.0)"
            ) from None
        self._torch = torch
        self.path = Path(path) if path is not None else SHIPPED
        self.net, meta = _load(str(self.path.resolve()), self.path.stat().st_mtime_ns if self.path.is_file() else 0)
        self.trained_rules = meta.get("rules")
        if not isinstance(greedy, bool):
            raise ValueError(f"ppo option greedy must be true or false, got {greedy!r}")
        self.greedy = greedy

    @classmethod
    def from_net(cls, net: Any, greedy: bool = True) -> "PPOAgent":
        """An agent around a network in memory (training's evaluations), not a file."""
        import torch

        agent = cls.__new__(cls)
        Agent.__init__(agent, None)
        agent._torch, agent.net, agent.path, agent.trained_rules, agent.greedy = torch, net, None, None, greedy
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
        torch = self._torch
        obs = torch.from_numpy(self.inputs(observation, info))[None]
        mask = torch.zeros((1, self.net.num_actions), dtype=torch.bool)
        mask[0, torch.from_numpy(legal)] = True
        with torch.no_grad():
            logp, _ = self.net(obs, mask)
        probs = logp[0].exp().numpy().astype(np.float64)
        if self.greedy:
            return int(legal[np.argmax(probs[legal])])
        p = probs[legal] / probs[legal].sum()
        return int(self.rng.choice(legal, p=p))
