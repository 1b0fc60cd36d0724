"""Gin Rummy in RLlib: our PettingZoo env through RLlib's PettingZoo wrapper, an
action-masking PPO model, and a self-play config (a policy shared by both seats, or one
per seat).

Why this module: most Ray clusters train with RLlib, and RLlib does not mask actions by
itself. ``gin_rummy_v0`` gives each player ``{"observation", "action_mask"}``; RLlib's
action-masking convention (its ``action_masking_rlm`` example) is ``{"observations",
"action_mask"}`` with the mask as floats. ``MaskObservation`` renames and converts,
``PettingZooEnv`` (RLlib's own wrapper of AEC envs) makes the multi-agent env, and
``MaskedPPOTorchRLModule`` adds ``log(mask)`` (so ``-inf`` for an illegal move) to the
logits of RLlib's default PPO model before sampling, in training and at inference: an
illegal move has probability 0. The env is built with ``illegal_action="raise"``, so a
move the mask should have ruled out stops training at once instead of being learned from.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``: RLlib pinned to the Ray version
it was tested with). Nothing here is imported by the rest of ``rummy_env``.
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium as gym
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from rummy_env import gin_rummy_v0

ENV_NAME = "rummy_gin_v0"
"""The name ``register_env`` gives the env in RLlib (``config.environment(ENV_NAME, ...)``)."""
POLICIES = ("shared", "per-seat")
"""Self-play layouts: one policy for both seats, or one per seat (``player_0``, ``player_1``)."""


class MaskObservation(BaseWrapper):
    """Each observation as ``{"observations": float32 array, "action_mask": float32 0/1}``."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._spaces: dict[str, gym.spaces.Dict] = {}

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        if agent not in self._spaces:
            inner = self.env.observation_space(agent)
            mask = inner["action_mask"]
            self._spaces[agent] = gym.spaces.Dict({
                "observations": inner["observation"],
                "action_mask": gym.spaces.Box(0.0, 1.0, shape=mask.shape, dtype=np.float32),
            })
        return self._spaces[agent]

    def observe(self, agent: str) -> Optional[dict[str, np.ndarray]]:
        obs = self.env.observe(agent)
        if obs is None:
            return None
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def make_env(env_config: Optional[dict[str, Any]] = None) -> Any:
    """RLlib's ``PettingZooEnv`` over ``gin_rummy_v0.raw_env`` (``env_config``: its keyword
    arguments, default flat encoding, one hand an episode, ``scaled`` rewards); illegal moves raise."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    kwargs = {"encoding": "flat", "episode": "hand", "reward": "scaled", **(env_config or {})}
    bad = sorted(set(kwargs) & {"illegal_action", "render_mode"})
    if bad:
        raise ValueError(f"env_config may not set {bad}: under RLlib illegal moves must raise (the mask rules them out)")
    return PettingZooEnv(MaskObservation(gin_rummy_v0.raw_env(illegal_action="raise", **kwargs)))


def register() -> None:
    """Register ``make_env`` with RLlib as ``ENV_NAME``."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)


def masked_module_class() -> type:
    """``MaskedPPOTorchRLModule``: RLlib's default PPO torch model with illegal moves masked out
    (built on first use: RLlib is imported only here)."""
    global _MODULE
    if _MODULE is not None:
        return _MODULE
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
        """RLlib's default PPO model reading ``observations``, its logits plus ``log(action_mask)``."""

        def __init__(self, *, observation_space: gym.spaces.Dict, **kwargs: Any) -> None:
            if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space) != {"observations",
                                                                                               "action_mask"}:
                raise ValueError(f"MaskedPPOTorchRLModule needs Dict(observations, action_mask) observations "
                                 f"(rummy_env.train.rllib.make_env), got {observation_space}")
            self.observation_space_with_mask = observation_space
            super().__init__(observation_space=observation_space["observations"], **kwargs)

        def setup(self) -> None:
            super().setup()
            self.observation_space = self.observation_space_with_mask

        @staticmethod
        def _split(batch: dict[str, Any]) -> Any:
            """Take the mask out of the observations, in place (as RLlib's example does: the
            learner's batch goes through ``compute_values`` first, which keeps the mask in
            ``batch["action_mask"]`` for ``_forward_train``); returns the mask."""
            obs = batch[Columns.OBS]
            if isinstance(obs, dict):
                batch["action_mask"] = obs["action_mask"]
                batch[Columns.OBS] = obs["observations"]
            return batch["action_mask"]

        @staticmethod
        def _masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask),
                                                                                            min=FLOAT_MIN)
            return out

        def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = self._split(batch)
            return self._masked(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = self._split(batch)
            return self._masked(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = self._split(batch)
            return self._masked(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            self._split(batch)
            return super().compute_values(batch, embeddings)

    _MODULE = MaskedPPOTorchRLModule
    return _MODULE


_MODULE: Optional[type] = None


def selfplay_config(policies: str = "shared", hidden: tuple[int, ...] = (256, 256), env_config: Optional[dict] = None,
                    num_env_runners: int = 0) -> Any:
    """An RLlib ``PPOConfig`` for self-play on ``ENV_NAME``: ``policies`` ``shared`` (both seats
    train one policy: twice the data, one network) or ``per-seat`` (``player_0`` and
    ``player_1`` each their own). Training settings (batch sizes, learning rate) are RLlib's
    defaults; change them with the usual ``config.training(...)``."""
    from ray.rllib.algorithms.ppo import PPOConfig as RLlibPPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    if policies not in POLICIES:
        raise ValueError(f"policies {policies!r}: choose {' or '.join(POLICIES)}")
    register()
    ids = ["shared"] if policies == "shared" else ["player_0", "player_1"]
    model = DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation="relu")
    spec = MultiRLModuleSpec(rl_module_specs={
        pid: RLModuleSpec(module_class=masked_module_class(), model_config=model) for pid in ids
    })
    return (
        RLlibPPOConfig()
        # RLlib's env check steps random actions, which this env refuses (illegal moves raise)
        .environment(ENV_NAME, env_config=env_config or {}, disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners)
        .multi_agent(policies=set(ids), policy_mapping_fn=_shared if policies == "shared" else _per_seat)
        .rl_module(rl_module_spec=spec)
    )


def _shared(agent_id: str, episode: Any, **kwargs: Any) -> str:
    return "shared"


def _per_seat(agent_id: str, episode: Any, **kwargs: Any) -> str:
    return agent_id
