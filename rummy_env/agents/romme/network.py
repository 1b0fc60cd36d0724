"""Rommé's policy-value network and its file format, shared by Rommé's ``ppo`` and training.

It lives with the agent (training, ``rummy train --game romme``, reaches it through
``rummy_env.train.games.romme``), so playing a trained network needs the agent only;
torch is imported when this module is, which only making Rommé's ``ppo`` agent or
training does (the env never imports it).

Why a *residual* policy over the heuristic's move. Rommé's ``heuristic`` plans with the
exact meld solver; a network learning the game from its 3,288-value ``flat`` encoding
needs far more hands than this project can afford to get back to that level (a short
run of the generic MLP ended 19 points a hand behind it from scratch, 4 after imitating
it: docs/findings/romme-ppo.md). So the network is told the heuristic's move (computed
from the mover's information set only, as the heuristic agent does,
``rummy_env.agents.romme.ppo.network_inputs``), starts by playing it, and learns where
to overrule it:

- the input is the ``flat`` encoding followed by one number, the id of the heuristic's
  move (``ADVICE_SIZE`` = 1); the trunk also reads that move's type (9 one-hots: draw,
  take, commit, discard, pick, joker, lay-off, joker lay-off, swap) and its card kind
  (53 one-hots), so it can learn *which* advice to overrule;
- the moves it chooses among are the heuristic's move, the two draws and the 53
  discards (``CHOICES``): the strategic decisions (draw or take, which card to throw,
  and whether to meld or lay off now at all, or discard instead), while building melds
  card by card, laying off and swapping follow the exact planner. Other legal moves get
  probability 0;
- the advised move's logit gets ``advice_weight`` (a learned scalar, starting at
  ``ADVICE_START`` = 3) on top of the head's logits, which start near 0: the untrained
  network plays the heuristic's move greedily every time, and samples it in about 95% of
  draws and 60% of discards from 14 cards, so PPO sees deviations and learns where one
  pays.

Or, with ``moves="all"`` (the training config's ``scored_moves: all``), every legal move
is scored: a linear map from the trunk to one weight per move feature (the 9 types and 53
card kinds), each move's logit the sum of its type's and its card's, plus the advice
bonus. Then it may also swap a joker, lay off or pick a meld's cards where the planner
would not: the search's edge over the heuristic lies partly in such moves, chiefly joker
swaps the heuristic leaves (docs/findings/romme-ppo.md, run 9). Untrained, it too plays the
heuristic's move greedily.

Illegal actions get a large negative logit, so their probability is exactly 0 and the
entropy is that of the legal actions only.

A *policy file* (``save_policy``/``load_policy``) holds the weights and what rebuilds and
checks the network: format, layer widths, the moves it scores (a file without them:
``choices``), input size, action count and rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import torch
from torch import nn

from rummy_env.agents import torch_files
from rummy_env.agents.mlp_network import init_weights, trunk
from rummy_env.core.cards import NUM_CARDS
from rummy_env.romme.cards import NUM_KINDS
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, NUM_ACTIONS, PICK, SWAP, TAKE_DISCARD,
)
from rummy_env.romme.encoding import FLAT_SIZE

POLICY_FORMAT = "rummy-env-romme-policy-v1"
ADVICE_SIZE = 1  # the heuristic's move id, after the flat encoding
ADVICE_START = 3.0  # the advised move's logit bonus before training
_NEG = -1e9
# where each action type's ids start (the action layout, ``rummy_env.romme.game``), in order
_TYPE_STARTS = (DRAW_STOCK, TAKE_DISCARD, COMMIT, DISCARD, PICK, JOKER_AS, LAYOFF, LAYOFF_JOKER, SWAP)
NUM_TYPES = len(_TYPE_STARTS)
MOVE_FEATURES = NUM_TYPES + NUM_KINDS
CHOICES = (DRAW_STOCK, TAKE_DISCARD, *range(DISCARD, DISCARD + NUM_KINDS))  # what the head scores (module docstring)
MOVE_SETS = ("choices", "all")  # the moves a network scores: CHOICES and the advice, or every legal move


def move_table() -> np.ndarray:
    """(``NUM_ACTIONS``, ``MOVE_FEATURES``): each action's type one-hot and card-kind one-hot
    (none for the draws and commit; a joker lay-off or joker placement names the kind it
    stands for, a discard of a joker the joker kind)."""
    table = np.zeros((NUM_ACTIONS, MOVE_FEATURES), dtype=np.float32)
    for a in range(NUM_ACTIONS):
        t = max(i for i, s in enumerate(_TYPE_STARTS) if a >= s)
        table[a, t] = 1.0
        if a >= DISCARD:
            kind = a - DISCARD if a < PICK else (a - _TYPE_STARTS[t]) % NUM_CARDS
            table[a, NUM_TYPES + kind] = 1.0
    return table


class RommePolicyNet(nn.Module):
    """MLP trunk over the flat encoding and the advised move, a head scoring ``CHOICES`` (or,
    with ``moves="all"``, every move by its features) plus the advice bonus, and a value head
    (module docstring)."""

    def __init__(self, hidden: tuple[int, ...] = (256, 256), moves: str = "choices") -> None:
        super().__init__()
        if moves not in MOVE_SETS:
            raise ValueError(f"moves must be one of {', '.join(MOVE_SETS)}, got {moves!r}")
        self.hidden = tuple(int(h) for h in hidden)
        self.moves_scored = moves
        self.obs_size = FLAT_SIZE + ADVICE_SIZE
        self.num_actions = NUM_ACTIONS
        self.trunk, width = trunk(FLAT_SIZE + MOVE_FEATURES, self.hidden)
        self.logits = nn.Linear(width, len(CHOICES) if moves == "choices" else MOVE_FEATURES)
        self.value = nn.Linear(width, 1)
        init_weights(self.trunk, ((self.logits, 0.01), (self.value, 1.0)))
        self.advice_weight = nn.Parameter(torch.tensor(ADVICE_START))
        self.register_buffer("moves", torch.from_numpy(move_table()), persistent=False)
        self.register_buffer("choices", torch.tensor(CHOICES), persistent=False)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked log-probabilities (N, 5776) and values (N,); ``mask`` is bool (N, 5776).

        The moves it chooses among are scored in a compact (N, 57) block, ``CHOICES`` then
        the advised move (closed where it is one of them already, so it counts once), and
        only the result is spread over the 5,776 actions: the same numbers as scoring all
        5,776 logits (the others at ``_NEG``) at a fraction of the cost, which for a
        learner's minibatch was most of the network's time."""
        advised = obs[:, FLAT_SIZE].long()
        z = self.trunk(torch.cat([obs[:, :FLAT_SIZE], self.moves[advised]], dim=1))
        if self.moves_scored == "all":  # every legal move scored by its type and card
            logits = self.logits(z) @ self.moves.T
            logits = logits.scatter_add(1, advised[:, None], self.advice_weight.expand(len(advised), 1))
            logits = logits.masked_fill(~mask, _NEG)
            return logits - torch.logsumexp(logits, dim=-1, keepdim=True), self.value(z).squeeze(-1)
        n = obs.shape[0]
        ids = torch.cat([self.choices.expand(n, -1), advised[:, None]], dim=1)
        is_advised = ids == advised[:, None]
        open_ = mask.gather(1, ids)
        open_[:, -1] &= ~is_advised[:, :-1].any(dim=1)
        logits = torch.cat([self.logits(z), z.new_zeros(n, 1)], dim=1) + is_advised * self.advice_weight
        logits = logits.masked_fill(~open_, _NEG)
        lse = torch.logsumexp(logits, dim=-1, keepdim=True)
        full = (_NEG - lse).expand(n, NUM_ACTIONS)  # a closed move's log-probability, as over all 5,776
        logp = logits - lse  # the advised column first: where it is one of CHOICES, theirs is written over it
        logp = full.scatter(1, ids[:, -1:], logp[:, -1:]).scatter(1, ids[:, :-1], logp[:, :-1])
        return logp, self.value(z).squeeze(-1)


def policy_payload(net: RommePolicyNet, rules: Optional[str], extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """What ``save_policy`` writes, as a dict (training checkpoints embed it)."""
    return {"format": POLICY_FORMAT, "hidden": list(net.hidden), "moves": net.moves_scored, "obs_size": net.obs_size,
            "num_actions": net.num_actions, "rules": rules,
            "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()}, "extra": extra or {}}


def save_policy(net: RommePolicyNet, path: Union[str, Path], rules: Optional[str],
                extra: Optional[dict[str, Any]] = None) -> None:
    """Write a policy file: plain data only (``rummy_env.agents.torch_files``), atomically."""
    torch_files.save(policy_payload(net, rules, extra), path)


def load_policy(path: Union[str, Path]) -> tuple[RommePolicyNet, dict[str, Any]]:
    """The network in a policy file (or a ``rummy train --game romme`` checkpoint) and its
    metadata; ``FileNotFoundError`` or ``ValueError`` naming the file when it is not one."""
    path = Path(path)
    payload = torch_files.policy_payload(path)  # weights only: never unpickles objects
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        raise ValueError(f"{str(path)!r} is not a Rommé policy file ({POLICY_FORMAT})")
    expected = FLAT_SIZE + ADVICE_SIZE
    if payload.get("obs_size") != expected or payload.get("num_actions") != NUM_ACTIONS:
        raise ValueError(f"{str(path)!r} was built for {payload.get('obs_size')} inputs and "
                         f"{payload.get('num_actions')} actions; this version has {expected} and {NUM_ACTIONS}")
    net = RommePolicyNet(tuple(payload["hidden"]), payload.get("moves", "choices"))
    net.load_state_dict(payload["state_dict"])
    net.eval()
    return net, payload
