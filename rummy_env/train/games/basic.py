"""Basic Rummy's training adapter: its own network (``rummy_env.agents.basic.network``), the
one the shipped ``ppo`` agent plays; the rollouts are the generic ones: on its vector
engine (``rummy_env.train.engine_rollouts``: the network reads the ``flat`` observation the
engine writes, and ``random`` and ``heuristic`` have array versions) wherever the compiled
engine is in use, else in-process (``rummy_env.train.hands``). Named by the game's
``training_module``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

from rummy_env.train.adapter import TrainingAdapter


class BasicAdapter(TrainingAdapter):
    """``BasicPolicyNet`` (per-card head) and its policy files; the rest is generic."""

    # an empty pool is stood in for by the heuristic, and both scripted agents are seeded
    # every update whichever the weights name: as the first Basic Rummy trainer did, so a
    # config gives the weights it gave (the shipped network's included)
    pool_stand_in = "heuristic"

    def scripted_kinds(self, config: Any) -> tuple[str, ...]:
        own = ("heuristic", "random")
        return own + tuple(k for k in super().scripted_kinds(config) if k not in own)

    def make_net(self, config: Any) -> Any:
        from rummy_env.agents.basic.network import BasicPolicyNet

        return BasicPolicyNet(config.hidden, config.card_hidden)

    def net_shape(self, net: Any) -> dict[str, Any]:
        return {"hidden": list(net.hidden), "card_hidden": net.card_hidden}

    def wanted_shape(self, config: Any) -> dict[str, Any]:
        return {"hidden": list(config.hidden), "card_hidden": config.card_hidden}

    def load_policy(self, path: Union[str, Path]) -> tuple[Any, dict[str, Any]]:
        from rummy_env.agents.basic.network import load_policy

        return load_policy(path)

    def policy_payload(self, net: Any, rules: Optional[str], extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        from rummy_env.agents.basic.network import policy_payload

        return policy_payload(net, rules, extra)


ADAPTER = BasicAdapter
