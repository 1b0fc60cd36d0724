"""A policy-value network for any game: an MLP over the game's ``flat`` encoding, one logit per action.

Why: a game with no network of its own (Rommé, a game added later) can still be trained
by ``rummy train --game NAME`` (``rummy_env.train.adapter``): its sizes come from the game
interface alone, the input from ``Game.encodings["flat"]`` and the output from
``Game.num_actions``. Illegal actions get a large negative logit before the softmax, so
their probability is exactly 0 and the entropy is that of the legal actions only. Games
with a network shaped for their moves (Gin and Basic Rummy's per-card heads) keep theirs.

A policy file (``save_policy``/``load_policy``) holds the weights and what rebuilds and
checks the network: format, game, layer widths, input size and action count. torch is
imported when this module is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Optional, Union

import torch
from torch import nn

from rummy_env.agents import torch_files
from rummy_env.core.game import Game, get_game

POLICY_FORMAT = "rummy-env-mlp-policy-v1"
_NEG = -1e9


def trunk(width: int, hidden: tuple[int, ...]) -> tuple[nn.Sequential, int]:
    """The ReLU layers of widths ``hidden`` over ``width`` inputs, and the last width: every
    game's network starts so (Gin and Basic Rummy's per-card networks too)."""
    layers: list[nn.Module] = []
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    return nn.Sequential(*layers), width


def init_weights(hidden: Iterable[nn.Module], heads: Iterable[tuple[nn.Linear, float]]) -> None:
    """PPO's usual start, the same in every game's network: orthogonal weights of gain
    sqrt(2) on the ``hidden`` linear layers, each head's own gain (0.01 for logits, 1 for
    a value), zero biases; in the order given (it draws from torch's generator)."""
    for layer in hidden:
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain=2**0.5)
            nn.init.zeros_(layer.bias)
    for head, gain in heads:
        nn.init.orthogonal_(head.weight, gain=gain)
        nn.init.zeros_(head.bias)


class MLPPolicyNet(nn.Module):
    """Trunk of ``hidden`` ReLU layers, a linear head to ``num_actions`` logits and a value head."""

    def __init__(self, obs_size: int, num_actions: int, hidden: tuple[int, ...] = (256, 256)) -> None:
        super().__init__()
        self.obs_size, self.num_actions = int(obs_size), int(num_actions)
        self.hidden = tuple(int(h) for h in hidden)
        self.trunk, width = trunk(self.obs_size, self.hidden)
        self.logits = nn.Linear(width, self.num_actions)
        self.value = nn.Linear(width, 1)
        init_weights(self.trunk, ((self.logits, 0.01), (self.value, 1.0)))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked log-probabilities (N, num_actions) and values (N,); ``mask`` is bool (N, num_actions)."""
        z = self.trunk(obs)
        logits = self.logits(z).masked_fill(~mask, _NEG)
        return torch.log_softmax(logits, dim=-1), self.value(z).squeeze(-1)


def for_game(game: Union[str, Game], hidden: tuple[int, ...] = (256, 256), rules: Any = None) -> MLPPolicyNet:
    """A fresh network sized for ``game``'s flat encoding (under ``rules``) and its actions."""
    game = get_game(game)
    shape = game.encoding("flat").shape(game.load_rules(rules))
    return MLPPolicyNet(int(shape[0]), game.num_actions, hidden)


def policy_payload(net: MLPPolicyNet, game: str, rules: Optional[str], extra: Optional[dict[str, Any]] = None
                   ) -> dict[str, Any]:
    """What ``save_policy`` writes, as a dict (training checkpoints embed it)."""
    return {"format": POLICY_FORMAT, "game": get_game(game).name, "hidden": list(net.hidden), "obs_size": net.obs_size,
            "num_actions": net.num_actions, "rules": rules,
            "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()}, "extra": extra or {}}


def save_policy(net: MLPPolicyNet, path: Union[str, Path], game: str, rules: Optional[str],
                extra: Optional[dict[str, Any]] = None) -> None:
    """Write a policy file: plain data only (``rummy_env.agents.torch_files``), atomically."""
    torch_files.save(policy_payload(net, game, rules, extra), path)


def load_policy(path: Union[str, Path], game: Optional[str] = None) -> tuple[MLPPolicyNet, dict[str, Any]]:
    """The network in a policy file (or a training checkpoint) and its metadata, checked to
    be ``game``'s when given; ``FileNotFoundError`` or ``ValueError`` naming the file otherwise."""
    path = Path(path)
    payload = torch_files.load(path)  # weights only: never unpickles objects
    if isinstance(payload, dict) and isinstance(payload.get("policy"), dict):
        payload = payload["policy"]  # a training checkpoint holds a policy payload
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        raise ValueError(f"{str(path)!r} is not a {POLICY_FORMAT} policy file or training checkpoint")
    if game is not None and payload.get("game") != get_game(game).name:
        raise ValueError(f"{str(path)!r} holds a network for {payload.get('game')!r}, not {get_game(game).name!r}")
    net = MLPPolicyNet(payload["obs_size"], payload["num_actions"], tuple(payload["hidden"]))
    net.load_state_dict(payload["state_dict"])
    net.eval()
    return net, payload
