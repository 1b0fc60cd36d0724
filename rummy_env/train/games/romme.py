"""Rommé's training adapter: its own network (``rummy_env.agents.romme.network``), the one
Rommé's ``ppo`` agent plays, whose input carries the heuristic's move as advice; the
rollouts are the generic in-process hands (``rummy_env.train.hands``), not its vector
engine: the advice is the scripted heuristic's move, which has no array version, so the
network's input is more than an engine writes (``engine_encoding`` None). Named by the
game's ``training_module``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NoReturn, Optional, Union

import numpy as np

from rummy_env.train.adapter import TrainingAdapter


class RommeAdapter(TrainingAdapter):
    """``RommePolicyNet`` (told the heuristic's move, ``advice: true``) and its policy files;
    the rest is generic."""

    takes_advice = True
    engine_encoding = None  # the heuristic's advice has no array version: in-process rollouts

    def make_net(self, config: Any) -> Any:
        from rummy_env.agents.romme.network import RommePolicyNet

        return RommePolicyNet(config.hidden)

    def load_policy(self, path: Union[str, Path]) -> tuple[Any, dict[str, Any]]:
        from rummy_env.agents.romme.network import load_policy

        return load_policy(path)

    def policy_payload(self, net: Any, rules: Optional[str], extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        from rummy_env.agents.romme.network import policy_payload

        return policy_payload(net, rules, extra)

    def inputs(self, net: Any, info: Any, rules: Any, legal: list[int]) -> np.ndarray:
        """The ``ppo`` agent's input (``rummy_env.agents.romme.ppo.network_inputs``), the
        heuristic's move in it, for the network's moves and the warm start's alike."""
        from rummy_env.agents.romme.ppo import network_inputs

        return network_inputs(info, rules, legal)

    def check(self, config: Any, fail: Callable[[str, Any, str], NoReturn]) -> None:
        if not config.advice:
            fail("advice", config.advice, f"{self.game.title}'s network reads the heuristic's move: set true")
        super().check(config, fail)


ADAPTER = RommeAdapter
