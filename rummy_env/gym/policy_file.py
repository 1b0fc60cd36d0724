"""``save_policy``: a model trained on a single-seat view, written as a file the ``sb3`` agent plays.

Why a file of our own and not the model's ``.zip``: loading an SB3 ``.zip`` unpickles some
of its data (cloudpickle), which can run any code its author chose, so neither the
library nor the web app reads one. ``save_policy(model, path)`` keeps what playing needs:
the policy network's layer weights and activation, and the facts of the view it was
trained on (game, player count, encoding, rules), as tensors and plain data
(``rummy_env.agents.torch_files``, read back with ``weights_only=True``). Then
``make("sb3:path=FILE", game=...)``, ``--opponent sb3:FILE`` at ``rummy play``, a
tournament's agent list or ``rummy serve --agent NAME=GAME/sb3:FILE`` plays it
(``rummy_env.agents.sb3_policy``).

What it takes: a model of sb3-contrib's ``MaskablePPO`` (or SB3's ``PPO``/``A2C``) with an
MLP policy (``"MlpPolicy"``: the observation flattened, then the policy's layers, then its
action layer; ``net_arch`` and ``activation_fn`` as you like among ``ACTIVATIONS``), trained
on one game's single-seat view, that view being the model's env or passed as ``env``
(the view, a wrapper of it, or a VecEnv of views that agree). Observation normalisation
(``VecNormalize``) is not part of the file, so a model trained behind it is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

from rummy_env.agents.sb3_policy import ACTIVATIONS, FORMAT


def _facts_of(env: Any) -> dict[str, Any]:
    """The ``policy_facts`` of the single-seat view(s) in ``env``: a VecEnv of views (which
    must agree), a Gymnasium env or a wrapper of one."""
    if hasattr(env, "env_method") and hasattr(env, "num_envs"):  # an SB3 VecEnv
        inner = env
        while hasattr(inner, "venv"):  # VecEnvWrapper chain
            if hasattr(inner, "obs_rms"):
                raise ValueError("save_policy: the model was trained behind VecNormalize, whose observation "
                                 "scaling the policy file cannot hold; train on the view's own observations")
            inner = inner.venv
        try:
            found = env.env_method("policy_facts")
        except AttributeError:
            found = []
        if not found or any(f != found[0] for f in found):
            raise ValueError("save_policy: the model's envs must all be the same game's single-seat view "
                             "(rummy_env.gym.view.SingleSeatEnv: gymnasium.make('rummy_env/...-v0', ...))")
        return found[0]
    unwrapped = getattr(env, "unwrapped", None)
    if not hasattr(unwrapped, "policy_facts"):
        raise ValueError(f"save_policy: env must be a single-seat view of a game (rummy_env.gym.view.SingleSeatEnv), "
                         f"a wrapper of one or a VecEnv of them; got {type(env).__name__}")
    return unwrapped.policy_facts()


def _linear(module: Any, where: str) -> dict[str, Any]:
    import torch

    if type(module) is not torch.nn.Linear:
        raise ValueError(f"save_policy: {where} is a {type(module).__name__}, not a Linear layer: only MLP policies "
                         "(policy='MlpPolicy') can be saved")
    return {"weight": module.weight.detach().cpu().clone(), "bias": module.bias.detach().cpu().clone()}


def policy_layers(policy: Any) -> tuple[list[dict[str, Any]], str, dict[str, Any]]:
    """The hidden layers, the activation's name and the action layer of an SB3 actor-critic
    MLP policy; a ValueError names the part that is not one."""
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    extractor = getattr(policy, "pi_features_extractor", getattr(policy, "features_extractor", None))
    if type(extractor) is not FlattenExtractor:
        raise ValueError(f"save_policy: the policy's features extractor is a {type(extractor).__name__}; only "
                         "FlattenExtractor (policy='MlpPolicy') can be saved")
    policy_net = getattr(getattr(policy, "mlp_extractor", None), "policy_net", None)
    if not isinstance(policy_net, torch.nn.Sequential):
        raise ValueError("save_policy: the policy has no mlp_extractor.policy_net: only actor-critic MLP policies "
                         "(MaskablePPO, PPO, A2C with policy='MlpPolicy') can be saved")
    modules = list(policy_net)
    hidden, activations = [], set()
    for k in range(0, len(modules), 2):
        hidden.append(_linear(modules[k], f"policy_net[{k}]"))
        act = modules[k + 1] if k + 1 < len(modules) else None
        name = type(act).__name__
        if act is None or name not in ACTIVATIONS or act.extra_repr() != getattr(torch.nn, name)().extra_repr():
            raise ValueError(f"save_policy: policy_net[{k + 1}] is {act!r}; the activation must be one of "
                             f"{', '.join(ACTIVATIONS)} with its default settings")
        activations.add(name)
    if len(activations) > 1:
        raise ValueError(f"save_policy: the policy mixes activations {sorted(activations)}; one kind is supported")
    activation = activations.pop() if activations else ACTIVATIONS[0]
    return hidden, activation, _linear(getattr(policy, "action_net", None), "action_net")


def _versions(*packages: str) -> dict[str, str]:
    """The installed versions of ``packages`` (those installed), for the file's record."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in packages:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


def save_policy(model: Any, path: Union[str, Path], env: Optional[Any] = None) -> Path:
    """Write ``model``'s policy network and its view's facts to ``path`` as a weights-only
    file for the ``sb3`` agent (the module docstring); returns the path. ``env``: the view
    the model was trained on when ``model.get_env()`` is not it (a model loaded without
    its env). A ValueError names what cannot be saved."""
    from rummy_env.agents import torch_files
    from rummy_env.core.game import get_game

    env = env if env is not None else model.get_env()
    if env is None:
        raise ValueError("save_policy: the model has no env (loaded without one): pass env=, the single-seat view "
                         "it was trained on")
    facts = _facts_of(env)
    game = get_game(facts["game"])
    rules = game.load_rules(facts["rules"])
    shape = tuple(game.encoding(facts["encoding"]).shape(rules))
    if tuple(model.observation_space.shape) != shape:
        raise ValueError(f"save_policy: the model reads observations of shape {model.observation_space.shape}, the "
                         f"view gives {shape} ({game.title}, encoding {facts['encoding']!r})")
    if getattr(model.action_space, "n", None) != game.num_actions:
        raise ValueError(f"save_policy: the model's action space is {model.action_space}; {game.title} has "
                         f"Discrete({game.num_actions})")
    hidden, activation, action_net = policy_layers(model.policy)
    payload = {
        "format": FORMAT, **facts, "obs_shape": list(shape), "hidden": hidden, "activation": activation,
        "action_net": action_net, "algorithm": type(model).__name__, "timesteps": int(model.num_timesteps),
        "versions": _versions("stable-baselines3", "sb3-contrib", "torch"),
    }
    torch_files.save(payload, path)
    return Path(path)
