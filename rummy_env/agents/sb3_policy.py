"""``sb3``: a Stable-Baselines3 policy trained on a Gymnasium view, playing any game from its file.

Why: a model trained on ``rummy_env/BasicRummy-v0`` (or any game's single-seat view,
``rummy_env.gym.view``) should join tournaments, ``rummy play`` and the web app as it is,
without an ``Agent`` written for it. ``rummy_env.gym.save_policy(model, path)`` writes its
policy network as a weights-only file (``FORMAT``): the facts needed to rebuild it and
the observation it was trained on (game, player count, encoding, rules, layer weights,
activation), nothing that needs unpickling (``rummy_env.agents.torch_files``; an SB3
``.zip`` holds pickled objects, so it is never read here). ``make("sb3:path=FILE",
game=...)`` (or ``sb3:FILE``) plays it; ``FILE`` must hold a policy for that game.

The agent encodes its information set as the view gave it to the learner (the file's
``encoding``, under the rules of the game being played, without match scores: the view
plays single hands), runs the network, masks the illegal actions as sb3-contrib's
``MaskablePPO`` does (their logits set to -1e8) and plays the most probable action, the
lowest id among equal probabilities: the action ``model.predict(obs,
action_masks=mask, deterministic=True)`` returns (``greedy=true``, the default). With
``greedy=false`` it samples from those probabilities, by the counter-based draw of its
key and decision index (``rummy_env.agents.draws``), so a seed repeats its games. torch
is imported when an agent is made (the ``train`` extra); SB3 is needed only to train.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents import draws
from rummy_env.agents import torch_files
from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.registry import register_generic
from rummy_env.core.game import Encoding, Game, get_game

FORMAT = "rummy-env-sb3-policy-v1"  # the ``format`` of a policy file written by ``rummy_env.gym.save_policy``
ACTIVATIONS = ("Tanh", "ReLU", "ELU", "GELU", "SiLU", "Sigmoid", "LeakyReLU", "Mish", "Softplus")  # torch.nn names
MASKED_LOGIT = -1e8  # what MaskablePPO gives an illegal action's logit (sb3-contrib's HUGE_NEG)


@dataclass(frozen=True)
class Policy:
    """A policy file read back: its facts and the network, ready to play."""

    path: str
    game: Game
    num_players: int
    encoding: Encoding
    rules: Any  # the rules it was trained under (the game's rules object)
    obs_shape: tuple[int, ...]
    net: Any  # torch.nn.Sequential: observation batch -> action logits


def _fail(path: str, what: str) -> ValueError:
    return ValueError(f"{path!r} is not a usable sb3 policy file ({FORMAT}): {what}")


_KIND_NAMES = {str: "text", int: "a whole number", dict: "a mapping", list: "a list"}


def _field(payload: dict, key: str, kind: type, path: str) -> Any:
    """``payload[key]`` if it is a ``kind`` (a tuple counts as a list), else the error naming the field."""
    value = payload.get(key)
    if isinstance(value, tuple) and kind is list:
        value = list(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _fail(path, f"field {key!r} should be {_KIND_NAMES[kind]}, got {type(value).__name__}")
    return value


def _linear(torch: Any, layer: Any, inputs: int, path: str, where: str) -> Any:
    """A ``torch.nn.Linear`` holding ``layer``'s weight and bias, which must fit ``inputs``."""
    if not isinstance(layer, dict):
        raise _fail(path, f"{where} should be a mapping of weight and bias")
    weight, bias = layer.get("weight"), layer.get("bias")
    if not (isinstance(weight, torch.Tensor) and isinstance(bias, torch.Tensor) and weight.dim() == 2
            and bias.dim() == 1 and weight.shape[1] == inputs and bias.shape[0] == weight.shape[0] > 0
            and weight.is_floating_point() and bias.is_floating_point()):
        raise _fail(path, f"{where} should hold a float weight (n, {inputs}) and bias (n,)")
    linear = torch.nn.Linear(inputs, weight.shape[0])
    with torch.no_grad():
        linear.weight.copy_(weight)
        linear.bias.copy_(bias)
    return linear


def read_policy(path: Union[str, Path]) -> Policy:
    """The policy file ``path`` (weights only: never unpickled), checked field by field:
    ``FileNotFoundError``, ``UnsafeFileError`` or ``ValueError`` naming the file and what
    is wrong."""
    import torch

    where = str(path)
    payload = torch_files.load(path, "sb3 policy file")
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise _fail(where, f"its format is {found!r}; write one with rummy_env.gym.save_policy(model, path)")
    try:
        game = get_game(_field(payload, "game", str, where))
        num_players = game.check_num_players(_field(payload, "num_players", int, where))
        encoding = game.encoding(_field(payload, "encoding", str, where))
        rules = game.load_rules(_field(payload, "rules", dict, where))
    except ValueError as exc:
        raise _fail(where, str(exc)) from None
    obs_shape = tuple(encoding.shape(rules))
    if list(_field(payload, "obs_shape", list, where)) != list(obs_shape):
        raise _fail(where, f"its observations are {payload['obs_shape']}, but {game.title}'s {encoding.name!r} "
                           f"encoding is {obs_shape} under its rules")
    activation = _field(payload, "activation", str, where)
    if activation not in ACTIVATIONS:
        raise _fail(where, f"activation {activation!r} is not one of {', '.join(ACTIVATIONS)}")
    layers: list[Any] = [torch.nn.Flatten()]
    width = math.prod(obs_shape)
    for k, layer in enumerate(_field(payload, "hidden", list, where)):
        layers += [_linear(torch, layer, width, where, f"hidden layer {k}"), getattr(torch.nn, activation)()]
        width = layers[-2].out_features
    action_net = _linear(torch, _field(payload, "action_net", dict, where), width, where, "action_net")
    if action_net.out_features != game.num_actions:
        raise _fail(where, f"it has {action_net.out_features} actions; {game.title} has {game.num_actions}")
    net = torch.nn.Sequential(*layers, action_net).float().eval()
    return Policy(where, game, num_players, encoding, rules, obs_shape, net)


@functools.lru_cache(maxsize=8)
def _cached(path: str, mtime_ns: int) -> Policy:
    """Read a policy file once per process (a tournament makes an agent per game)."""
    return read_policy(path)


def masked_probabilities(net: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The policy's action probabilities for a batch, illegal actions masked step for step
    as sb3-contrib's ``MaskableCategorical`` masks them (the normalised logits of illegal
    actions set to -1e8, normalised again, in float32): (n, num_actions) float32."""
    import torch

    with torch.no_grad():
        logits = net(torch.as_tensor(np.asarray(observations, dtype=np.float32)))
        normalised = torch.distributions.Categorical(logits=logits).logits
        masked = torch.where(torch.as_tensor(masks, dtype=torch.bool), normalised, torch.tensor(MASKED_LOGIT))
        return torch.distributions.Categorical(logits=masked).probs.numpy()


class SB3PolicyAgent(Agent):
    """``sb3``: a policy network saved by ``rummy_env.gym.save_policy`` (the module docstring)."""

    name = "sb3"
    extra = "train"  # torch
    short_option = "path"  # ``sb3:PATH`` means ``sb3:path=PATH`` (``agents.registry``)
    file_options = ("path",)
    required_options = ("path",)

    def __init__(self, game: str, seed: Optional[int] = None, path: Optional[Union[str, Path]] = None,
                 greedy: bool = True) -> None:
        super().__init__(seed)
        try:
            import torch  # noqa: F401
        except ImportError:
            raise ImportError("the sb3 agent needs torch: pip install 'rummy-env[train]'") from None
        if path is None:
            raise ValueError("the sb3 agent needs path=FILE, a policy file written by rummy_env.gym.save_policy")
        if not isinstance(greedy, bool):
            raise ValueError(f"sb3 option greedy must be true or false, got {greedy!r}")
        self.game = get_game(game).name
        self.path = Path(path)
        self.policy = _cached(str(self.path.resolve()), self.path.stat().st_mtime_ns if self.path.is_file() else 0)
        if self.policy.game.name != self.game:
            raise ValueError(f"{str(path)!r} holds a policy for {self.policy.game.title}, not {get_game(game).title}")
        self.greedy = greedy

    def observation(self, info: dict[str, Any], observation: dict[str, np.ndarray]) -> np.ndarray:
        """What the view showed the learner in this position: the information set in the
        file's encoding, under the rules being played, without match scores."""
        infoset, rules = game_input(self, observation, info)
        x = self.policy.encoding.encode(infoset, rules)
        if x.shape != self.policy.obs_shape:
            raise ValueError(f"the sb3 policy {self.policy.path!r} reads observations of shape {self.policy.obs_shape}; "
                             f"under these rules the {self.policy.encoding.name!r} encoding has {x.shape}")
        return x

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        x = self.observation(info, observation)
        mask = np.zeros((1, self.policy.game.num_actions), dtype=bool)
        mask[0, legal] = True
        probs = masked_probabilities(self.policy.net, x[None], mask)[0]
        decision = self.next_decision()
        if self.greedy:
            return int(np.argmax(probs))
        cumulative = np.cumsum(np.where(mask[0], probs.astype(np.float64), 0.0))
        chosen = int(np.argmax(cumulative > draws.uniform(self.key, decision) * cumulative[-1]))
        return chosen if mask[0, chosen] else int(legal[-1])  # a draw past the last legal entry (rounding)


register_generic("sb3", SB3PolicyAgent)
