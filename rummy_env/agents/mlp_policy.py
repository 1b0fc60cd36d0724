"""``ppo`` for every game without a network of its own: plays a policy file of the generic trainer.

Why: ``rummy train --game romme`` (or any game without a training adapter of its own)
trains the generic MLP over the game's ``flat`` encoding (``rummy_env.agents.mlp_network``)
and writes ``RUN/policy.pt``; this agent plays that file in tournaments, ``rummy play``
and the web app (offered there by the operator: ``rummy serve --agent
mine=romme/ppo:RUN/policy.pt``). Gin Rummy and Basic Rummy have their own ``ppo``, which
the registry makes for them instead (a game's own agent of a name comes first).

It encodes its information set as training did (``flat``, no match scores), runs the
network and plays the most probable legal action (``greedy=true``, as evaluations during
training do), or samples one with its generator (``greedy=false``). The file is read
weights-only (``rummy_env.agents.torch_files``) and must hold a network for the game
being played; torch is imported when an agent is made (the ``train`` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents.base import game_input
from rummy_env.agents.network_moves import network_actions
from rummy_env.agents.ppo_base import PPOAgentBase, check_greedy, need_torch
from rummy_env.agents.registry import register_generic
from rummy_env.core.game import get_game


class MLPPolicyAgent(PPOAgentBase):
    """``ppo`` of a game without its own network: a trained policy file (see the module docstring)."""

    game = None  # set per instance: one class plays every game
    required_options = ("path",)

    def __init__(self, game: str, seed: Optional[int] = None, path: Optional[Union[str, Path]] = None,
                 greedy: bool = True) -> None:
        super().__init__(seed)
        played = get_game(game)
        self.game = played.name
        if path is None:
            raise ValueError(f"{played.title} ships no trained network: give the ppo agent a policy file, "
                             f"ppo:RUN/policy.pt from rummy train --game {played.name}")
        check_greedy(greedy)
        need_torch("the ppo agent")
        from rummy_env.agents.mlp_network import load_policy

        self.path = Path(path)
        self.net, _ = load_policy(self.path, played.name)
        self.greedy = greedy
        self._encoding = played.encoding("flat")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = game_input(self, observation, info)
        inputs = self._encoding.encode(infoset, rules)[None]
        if inputs.shape[1] != self.net.obs_size:
            raise ValueError(f"{str(self.path)!r} was trained on {self.net.obs_size} inputs; these rules give "
                             f"{inputs.shape[1]} (train under the rules it plays)")
        mask = np.asarray(observation["action_mask"]).astype(bool)[None]
        return int(network_actions(self.net, inputs, mask, self.greedy, self.rng)[0][0])


register_generic("ppo", MLPPolicyAgent)
