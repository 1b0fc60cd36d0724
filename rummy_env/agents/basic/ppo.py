"""``ppo`` of Basic Rummy: a Basic Rummy policy network trained by ``rummy train --game basic``.

``make("ppo")`` loads the policy shipped with the package
(``rummy_env/agents/basic/data/ppo_basic.pt``; how it was made in that folder's README.md,
its results in docs/agents.md); ``make("ppo:path=runs/X/policy.pt", game="basic")`` (or
``ppo:runs/X/policy.pt``, the short form the Gin ``ppo`` agent takes too) loads
another policy file or training checkpoint. One network plays 2, 3 and 4 players.

The network (``rummy_env.agents.basic.network``) reads the ``flat`` encoding of the
player's information set, re-encoded here from ``info`` (so it works whatever encoding
the env was built with) and without match scores: training plays single hands. It plays
the most probable legal action (``greedy=true``, the default; the lowest action id among
exact ties) or samples from its distribution over legal actions (``greedy=false``,
seeded by the agent's generator). torch is imported only when a ``ppo`` of Basic Rummy agent is
made: ``import rummy_env`` and the env never need it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents.base import game_input, legal_actions
from rummy_env.agents.ppo_base import PPOAgentBase, check_greedy, need_torch
from rummy_env.agents.network_moves import network_actions  # noqa: F401  (training's too)
from rummy_env.basic.encoding import encode
from rummy_env.basic.game import NUM_ACTIONS

SHIPPED = Path(__file__).resolve().parent / "data" / "ppo_basic.pt"


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> tuple[Any, dict[str, Any]]:
    """Load a policy once per process (a tournament makes an agent per game)."""
    from rummy_env.agents.basic.network import load_policy

    return load_policy(path)


class RummyPPOAgent(PPOAgentBase):
    """``ppo`` of Basic Rummy: a trained network (see the module docstring)."""

    game = "basic"

    def __init__(self, seed: Optional[int] = None, path: Optional[Union[str, Path]] = None, greedy: bool = True) -> None:
        super().__init__(seed)
        self._torch = need_torch("the Basic Rummy ppo agent")
        self.greedy = check_greedy(greedy)
        self.path = Path(path) if path is not None else SHIPPED
        if path is None and not SHIPPED.is_file():
            raise FileNotFoundError(f"the shipped Basic Rummy ppo policy {str(SHIPPED)!r} is missing; "
                                    "train one with rummy train --game basic and use ppo:path=RUN/policy.pt with --game basic")
        where = (str(self.path.resolve()), self.path.stat().st_mtime_ns if self.path.is_file() else 0)
        self.net, meta = _load(*where)
        self.trained_rules = meta.get("rules")

    @classmethod
    def from_net(cls, net: Any, greedy: bool = True, seed: Optional[int] = None) -> "RummyPPOAgent":
        """An agent around a network in memory (tests, evaluations), not a file."""
        return cls._around(net, greedy, seed)

    def inputs(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        """The network's input for this decision: the ``flat`` encoding of the information
        set (no match scores), what training feeds it too."""
        infoset, rules = game_input(self, observation, info)
        return encode(infoset, rules, "flat")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        inputs = self.inputs(observation, info)
        if len(legal) == 1:
            return int(legal[0])
        return self.network_move(inputs, legal, NUM_ACTIONS)
