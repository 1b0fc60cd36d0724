"""The policy-value network and its file format, shared by the ``ppo`` agent and training.

It lives with the agent (training is the layer above and imports it from here), so
playing a trained network needs the agent only; torch is imported when this module is.

A network over the ``flat`` observation (``rummy_env.gin.encoding``: 479 values built from
the player's information set only), optionally followed by the heuristic's advice
features (``rummy_env.agents.gin.heuristic_features``: 213 more, also from the information set only),
with a policy over the 108 actions and a value. Illegal actions are masked by setting
their logits to a large negative number, so their probability is exactly 0 and the
entropy is that of the legal actions only.

A *policy file* (``save_policy``/``load_policy``) holds the weights plus what is needed
to rebuild and check the network: format version, layer widths, observation size,
action count and the rules it was trained under.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
import torch
from torch import nn

from rummy_env.agents import torch_files
from rummy_env.agents.mlp_network import init_weights, trunk
from rummy_env.agents.gin.heuristic_features import ADVICE_CARD_SLICES, ADVICE_LAYOUT, ADVICE_SIZE, advice_of_env
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import DISCARD, KNOCK, NUM_ACTIONS
from rummy_env.gin.layout import CARD_SLICES, FLAT_SIZE, LAYOUT

if TYPE_CHECKING:
    from rummy_env.gin.vector import VectorGinRummy

POLICY_FORMAT = "rummy-env-policy-v1"
_NEG = -1e9
_CARD_FEATURES = len(CARD_SLICES)
_ADVICE_CARDS = len(ADVICE_CARD_SLICES)
_DISCARDS = slice(DISCARD, DISCARD + NUM_CARDS)  # the logits' layout is the action layout
_KNOCKS = slice(KNOCK, KNOCK + NUM_CARDS)


class PolicyNet(nn.Module):
    """Global MLP trunk, plus a per-card head for the 104 discard and knock actions.

    The trunk reads the whole observation and gives the value, the logits of the four
    card-free actions (draw, take, pass, Big Gin) and a summary ``g``. The card head scores
    each card c from its own 9 card-slice entries (in hand, on the pile, seen with the
    opponent, deadwood left if discarded, ...) and ``g``, with weights shared by all 52
    cards: "discard the card that leaves the least deadwood" is then one small function
    to learn instead of 52, which makes learning from scratch much faster.

    With ``advice=True`` the input is the flat observation followed by the advice
    features (``obs_size`` = 479 + 213), and the card head also reads each card's 4
    advice slices.
    """

    def __init__(self, hidden: tuple[int, ...] = (256, 256), card_hidden: int = 64, advice: bool = False):
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.card_hidden = int(card_hidden)
        self.advice = bool(advice)
        self.obs_size = FLAT_SIZE + (ADVICE_SIZE if self.advice else 0)
        self.num_actions = NUM_ACTIONS
        card_width = _CARD_FEATURES + (_ADVICE_CARDS if self.advice else 0)
        self.trunk, width = trunk(self.obs_size, self.hidden)
        self.value = nn.Linear(width, 1)
        self.global_logits = nn.Linear(width, 4)  # draw stock, take discard, pass, Big Gin
        self.card_context = nn.Linear(width, self.card_hidden)
        self.card_in = nn.Linear(card_width, self.card_hidden)
        self.card_out = nn.Linear(self.card_hidden, 2)  # discard c, knock with c
        init_weights([*self.trunk, self.card_context, self.card_in],
                     ((self.global_logits, 0.01), (self.card_out, 0.01), (self.value, 1.0)))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked log-probabilities (N, A) and values (N,); ``mask`` is bool (N, A)."""
        z = self.trunk(obs)
        rows, cards = card_pairs(mask)
        per_card = z.new_zeros(obs.shape[0] * NUM_CARDS, 2)
        if rows.numel():
            features = card_features(obs, rows, cards, self.advice)
            h = torch.relu(self.card_in(features) + self.card_context(z).index_select(0, rows))
            per_card = per_card.index_copy(0, rows * NUM_CARDS + cards, self.card_out(h))
        return masked_log_probs(self.global_logits(z), per_card, mask), self.value(z).squeeze(-1)


def card_pairs(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The (position, card) pairs the card head runs on: those with a legal discard or
    knock. The other cards' logits are masked below whatever they are (no gradient
    reaches them), and a position has at most 11 such cards, none at all when drawing."""
    legal = mask[:, _DISCARDS] | mask[:, _KNOCKS]
    return legal.nonzero(as_tuple=True)


def card_features(obs: torch.Tensor, rows: torch.Tensor, cards: torch.Tensor, advice: bool) -> torch.Tensor:
    """The card head's input for pairs (``rows``, ``cards``): the card's 9 card-slice
    entries, then with ``advice`` its 4 advice slices."""
    features = obs[:, : LAYOUT.card_size].view(-1, _CARD_FEATURES, NUM_CARDS)[rows, :, cards]
    if advice:
        extra = obs[:, FLAT_SIZE : FLAT_SIZE + ADVICE_LAYOUT.card_size].view(-1, _ADVICE_CARDS, NUM_CARDS)
        features = torch.cat([features, extra[rows, :, cards]], dim=1)
    return features


def masked_log_probs(global_logits: torch.Tensor, per_card: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the 108 actions from the trunk's 4 card-free logits (draw,
    take, pass, Big Gin) and the card head's (N * 52, 2) discard and knock logits, in the
    action layout, illegal actions set to -1e9 before the softmax."""
    per_card = per_card.view(-1, NUM_CARDS, 2)
    g = global_logits
    logits = torch.cat([g[:, :3], per_card[..., 0], per_card[..., 1], g[:, 3:]], dim=1)
    logits = logits.masked_fill(~mask, _NEG)
    return torch.log_softmax(logits, dim=-1)


def vector_inputs(observation: np.ndarray, env: VectorGinRummy, rows: np.ndarray, advice: bool,
                  features: Optional[np.ndarray] = None) -> np.ndarray:
    """The network's input for each game of the vector engine ``env``: its ``flat``
    ``observation``, then with ``advice`` the advice features of the player to move in
    games ``rows`` (zeros in the others, which no network reads); ``features``: those
    advice features when the caller already has them. The ``ppo`` agent builds the same
    from one information set (``rummy_env/agents/gin/ppo.py``; tested to agree)."""
    if not advice:
        return observation
    out = np.zeros((observation.shape[0], FLAT_SIZE + ADVICE_SIZE), dtype=np.float32)
    out[:, :FLAT_SIZE] = observation
    out[rows, FLAT_SIZE:] = advice_of_env(env, rows) if features is None else features
    return out


def save_policy(net: PolicyNet, path: Union[str, Path], rules: str, extra: dict[str, Any] | None = None) -> None:
    """Write a policy file: plain data only (``rummy_env.agents.torch_files``), atomically
    (a crash never leaves a half-written file)."""
    torch_files.save(policy_payload(net, rules, extra), path)


def load_policy(path: Union[str, Path]) -> tuple[PolicyNet, dict[str, Any]]:
    """The network in a policy file (or a training checkpoint) and its metadata.

    Raises ``FileNotFoundError`` or ``ValueError`` naming the file when it is not a readable
    policy file (``torch_files.UnsafeFileError`` when it holds pickled objects).
    """
    path = Path(path)
    payload = torch_files.load(path)  # weights only: never unpickles objects
    if isinstance(payload, dict) and "policy" in payload and isinstance(payload["policy"], dict):
        payload = payload["policy"]  # a training checkpoint holds a policy payload
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        raise ValueError(f"{str(path)!r} is not a {POLICY_FORMAT} policy file or training checkpoint")
    advice = bool(payload.get("advice", False))  # files written before advice existed have none
    expected = FLAT_SIZE + (ADVICE_SIZE if advice else 0)
    if payload["obs_size"] != expected or payload["num_actions"] != NUM_ACTIONS:
        raise ValueError(
            f"{str(path)!r} was built for {payload['obs_size']} inputs and {payload['num_actions']} actions; "
            f"this version has {expected} and {NUM_ACTIONS}"
        )
    net = PolicyNet(tuple(payload["hidden"]), payload["card_hidden"], advice=advice)
    net.load_state_dict(payload["state_dict"])
    net.eval()
    return net, payload


def policy_payload(net: PolicyNet, rules: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``save_policy`` writes, as a dict (checkpoints embed it)."""
    return {
        "format": POLICY_FORMAT,
        "hidden": list(net.hidden),
        "card_hidden": net.card_hidden,
        "advice": net.advice,
        "obs_size": net.obs_size,
        "num_actions": net.num_actions,
        "rules": rules,
        "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()},
        "extra": extra or {},
    }
