"""What every game's ``ppo`` agent shares: the name and options (``ppo:PATH`` names a
policy file), torch needed only once one is made, the ``greedy`` option checked.

Why: Gin's and Basic Rummy's networks (``rummy_env.agents.gin.ppo``,
``rummy_env.agents.basic.ppo``) and the generic one of the other games
(``rummy_env.agents.mlp_policy``) are offered and refused the same way; written once
here, their messages cannot drift apart.
"""

from __future__ import annotations

from typing import Any, Optional, TypeVar

import numpy as np

from rummy_env.agents.base import Agent

A = TypeVar("A", bound="PPOAgentBase")


def need_torch(who: str) -> Any:
    """The ``torch`` module; if it is not installed, an ImportError saying that ``who`` (an
    agent, in words) needs it and how to install it."""
    try:
        import torch
    except ImportError:
        raise ImportError(
            f"{who} needs torch: pip install 'rummy-env[train]' (CPU build: pip install torch==2.13.0)"
        ) from None
    return torch


def check_greedy(greedy: Any) -> bool:
    """``greedy`` if it is a bool; else a ValueError naming the option."""
    if not isinstance(greedy, bool):
        raise ValueError(f"ppo option greedy must be true or false, got {greedy!r}")
    return greedy


class PPOAgentBase(Agent):
    """Base of a ``ppo`` agent: a trained network from a policy file (``ppo:path=PATH``,
    or ``ppo:PATH``), which needs torch (the ``train`` extra)."""

    name = "ppo"
    extra = "train"  # torch
    short_option = "path"  # ``ppo:PATH`` means ``ppo:path=PATH`` (``agents.registry``)
    file_options = ("path",)

    @classmethod
    def _around(cls: type[A], net: Any, greedy: bool, seed: Optional[int]) -> A:
        """An agent around a network in memory, not a file (``from_net``)."""
        import torch

        agent = cls.__new__(cls)
        Agent.__init__(agent, seed)
        agent._torch, agent.net, agent.path, agent.trained_rules, agent.greedy = torch, net, None, None, greedy
        return agent

    def network_move(self, inputs: np.ndarray, legal: np.ndarray, num_actions: int) -> int:
        """The network's move (``network_moves.network_actions``: greedy, or sampled with the
        agent's generator) for one decision's ``inputs`` among the ``legal`` action ids, on
        one torch thread: for one row a second thread only waits (see the Gin ppo agent)."""
        from rummy_env.agents.network_moves import network_actions

        mask = np.zeros((1, num_actions), dtype=bool)
        mask[0, legal] = True
        torch = self._torch
        threads = torch.get_num_threads()
        if threads != 1:
            torch.set_num_threads(1)
        try:
            action, _, _ = network_actions(self.net, inputs[None], mask, self.greedy, self.rng)
        finally:
            if threads != 1:
                torch.set_num_threads(threads)
        return int(action[0])
