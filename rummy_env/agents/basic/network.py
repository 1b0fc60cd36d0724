"""The Basic Rummy policy-value network and its file format, shared by Basic Rummy's ``ppo`` and training.

It lives with the agent (training, ``rummy train --game basic``, reaches it from here),
so playing a trained network needs the agent only; torch is imported when this module is,
which only making a Basic Rummy's ``ppo`` agent or training does (the env never imports it).

The input is the ``flat`` observation (``rummy_env.basic.encoding``: 910 values built from
the player's information set only, the same layout for 2, 3 and 4 players), so one
network plays every table size. The output is a log-probability over the 1,267 actions
(``rummy_env.basic.game``) and a value. Illegal actions are masked by setting their
logits to a large negative number before the softmax, so their probability is exactly 0
and the entropy is that of the legal actions only.

Why this shape rather than one linear layer to 1,267 logits:

- **Per-card head.** Discards (52 actions), lay-offs (52 cards x 17 table slots) and
  taking the top discard are decisions about one card. A small head with weights shared
  by all 52 cards scores each card from its own 17 card-slice entries (in hand, on the
  pile, unseen, fits the table, ...), its rank (one-hot) and point value, three bits of
  each of its 7 neighbours (same suit one and two ranks away, same rank in the other
  suits: the cards it could meld with): in the hand, unseen, known to be in another hand;
  and a summary of the position from the trunk: "keep cards that have partners, throw
  high ones" is one small function to learn instead of 52. Its third output, at the top
  card of the discard pile, is the logit of taking it ("take it when it melds with my
  hand" is the same kind of function).
- **Lay-offs factorised.** Laying off card c on slot s scores the card's lay-off logit
  plus a per-slot term from the trunk: a card almost always fits one slot only, so which
  card to lay off is the decision, and 884 separate logits would mostly never be seen.
- **Melds** (329 ids, fixed by the meld table) and the two draws get logits from the trunk.

A *policy file* (``save_policy``/``load_policy``) holds the weights and what is needed to
rebuild and check the network: format, layer widths, input size, action count and the
rules it was trained under.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import torch
from torch import nn

from rummy_env.agents import torch_files
from rummy_env.agents.mlp_network import init_weights, trunk
from rummy_env.basic.game import DISCARD, LAYOFF, MAX_TABLE_MELDS, MELD, NUM_ACTIONS
from rummy_env.basic.layout import FLAT_SIZE, HAND, KNOWN_REL1, LAYOUT, NUM_CARD_SLICES, OTHERS, UNSEEN
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS
from rummy_env.core.meld_table import NUM_MELDS

POLICY_FORMAT = "rummy-env-basic-policy-v1"
_NEG = -1e9
_TOP = LAYOUT.slices()["discard_top"]
_KNOWN = [KNOWN_REL1 + k - 1 for k in OTHERS]  # the card slices of what each other seat is known to hold
_NEIGHBOURS = 7
CARD_FEATURES = NUM_CARD_SLICES + 3 * _NEIGHBOURS + NUM_RANKS + 1
_GLOBAL = 2 + NUM_MELDS + MAX_TABLE_MELDS  # draw stock, take discard, the melds, a term per lay-off slot
assert DISCARD == 2 and MELD == DISCARD + NUM_CARDS and LAYOFF == MELD + NUM_MELDS  # the layout assembled below


def neighbour_index() -> np.ndarray:
    """(52, 7) card ids of each card's meld partners: the same suit two and one ranks below
    and above, then the same rank in the other three suits; ``NUM_CARDS`` (a padding slot
    that reads 0) where the rank is off the end. Aces are low here (A next to 2 only)."""
    out = np.full((NUM_CARDS, _NEIGHBOURS), NUM_CARDS, dtype=np.int64)
    for c in range(NUM_CARDS):
        suit, rank = divmod(c, NUM_RANKS)
        for k, d in enumerate((-2, -1, 1, 2)):
            if 0 <= rank + d < NUM_RANKS:
                out[c, k] = c + d
        out[c, 4:] = [s * NUM_RANKS + rank for s in range(4) if s != suit]
    return out


class BasicPolicyNet(nn.Module):
    """MLP trunk over the flat observation, a per-card head and trunk heads (module docstring)."""

    def __init__(self, hidden: tuple[int, ...] = (256, 256), card_hidden: int = 64) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.card_hidden = int(card_hidden)
        self.obs_size = FLAT_SIZE
        self.num_actions = NUM_ACTIONS
        self.trunk, width = trunk(self.obs_size, self.hidden)
        self.value = nn.Linear(width, 1)
        self.global_logits = nn.Linear(width, _GLOBAL)
        self.card_context = nn.Linear(width, self.card_hidden)
        self.card_in = nn.Linear(CARD_FEATURES, self.card_hidden)
        self.card_out = nn.Linear(self.card_hidden, 3)  # discard c, lay off c, take c from the pile
        self.register_buffer("neighbours", torch.from_numpy(neighbour_index()), persistent=False)
        ranks = np.zeros((NUM_CARDS, NUM_RANKS + 1), dtype=np.float32)
        for c in range(NUM_CARDS):
            ranks[c, c % NUM_RANKS] = 1.0
            ranks[c, NUM_RANKS] = min(c % NUM_RANKS + 1, 10) / 10.0  # its value in points / 10
        self.register_buffer("ranks", torch.from_numpy(ranks), persistent=False)
        init_weights([*self.trunk, self.card_context, self.card_in],
                     ((self.global_logits, 0.01), (self.card_out, 0.01), (self.value, 1.0)))

    def card_features(self, obs: torch.Tensor) -> torch.Tensor:
        """(N, 52, ``CARD_FEATURES``): each card's card-slice entries, the hand, unseen and
        known-elsewhere bits of its 7 meld partners, its rank one-hot and value / 10."""
        cards = obs[:, : LAYOUT.card_size].view(-1, NUM_CARD_SLICES, NUM_CARDS)
        n = cards.shape[0]
        known = cards[:, _KNOWN].amax(dim=1, keepdim=True)
        three = torch.cat([cards[:, [HAND, UNSEEN]], known], dim=1)
        three = torch.cat([three, cards.new_zeros(n, 3, 1)], dim=2)  # (N, 3, 53): slot 52 reads 0
        near = three[:, :, self.neighbours].permute(0, 2, 1, 3).reshape(n, NUM_CARDS, 3 * _NEIGHBOURS)
        return torch.cat([cards.transpose(1, 2), near, self.ranks.expand(n, -1, -1)], dim=2)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked log-probabilities (N, 1267) and values (N,); ``mask`` is bool (N, 1267)."""
        z = self.trunk(obs)
        g = self.global_logits(z)
        h = torch.relu(self.card_in(self.card_features(obs)) + self.card_context(z)[:, None, :])
        per_card = self.card_out(h)  # (N, 52, 3)
        slot = g[:, 2 + NUM_MELDS :]  # (N, 17)
        layoff = (slot[:, :, None] + per_card[:, None, :, 1]).reshape(obs.shape[0], -1)  # slot-major, as the ids
        top = obs[:, _TOP]  # one-hot: the top card of the pile
        take = g[:, 1:2] + (top * per_card[:, :, 2]).sum(1, keepdim=True)
        logits = torch.cat([g[:, :1], take, per_card[:, :, 0], g[:, 2 : 2 + NUM_MELDS], layoff], dim=1)
        logits = logits.masked_fill(~mask, _NEG)
        return torch.log_softmax(logits, dim=-1), self.value(z).squeeze(-1)


def policy_payload(net: BasicPolicyNet, rules: str, extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """What ``save_policy`` writes, as a dict (training checkpoints embed it)."""
    return {
        "format": POLICY_FORMAT,
        "hidden": list(net.hidden),
        "card_hidden": net.card_hidden,
        "obs_size": net.obs_size,
        "num_actions": net.num_actions,
        "rules": rules,
        "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()},
        "extra": extra or {},
    }


def save_policy(net: BasicPolicyNet, path: Union[str, Path], rules: str, extra: Optional[dict[str, Any]] = None) -> None:
    """Write a policy file: plain data only (``rummy_env.agents.torch_files``), atomically
    (a crash never leaves a half-written file)."""
    torch_files.save(policy_payload(net, rules, extra), path)


def load_policy(path: Union[str, Path]) -> tuple[BasicPolicyNet, dict[str, Any]]:
    """The network in a policy file (or a ``rummy train --game basic`` checkpoint) and its metadata;
    ``FileNotFoundError`` or ``ValueError`` naming the file when it is not one."""
    path = Path(path)
    payload = torch_files.load(path)  # weights only: never unpickles objects
    if isinstance(payload, dict) and isinstance(payload.get("policy"), dict):
        payload = payload["policy"]  # a training checkpoint holds a policy payload
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else None
        hint = " (a Gin Rummy policy: use it with --game gin, or gin/ppo:PATH)" if found == "rummy-env-policy-v1" else ""
        raise ValueError(f"{str(path)!r} is not a Basic Rummy policy file ({POLICY_FORMAT}){hint}")
    if payload["obs_size"] != FLAT_SIZE or payload["num_actions"] != NUM_ACTIONS:
        raise ValueError(f"{str(path)!r} was built for {payload['obs_size']} inputs and {payload['num_actions']} "
                         f"actions; this version has {FLAT_SIZE} and {NUM_ACTIONS}")
    net = BasicPolicyNet(tuple(payload["hidden"]), payload["card_hidden"])
    net.load_state_dict(payload["state_dict"])
    net.eval()
    return net, payload
