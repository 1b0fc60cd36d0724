"""Several frozen policy networks of one shape, evaluated together: the self-play pool.

Why: the opponent pool holds up to ``pool_size`` (20) past policies, and every rollout
step has a few games against each. One forward pass per network costs a fixed few
hundred microseconds whatever its rows, about a fifth of a training update with a full
pool. Here the networks' weights are stacked, and each step's pool games go through one
batched matrix product per layer, every game against its own network (the games grouped
by network and padded to the largest group; the card head gathers each pair's weights).

The results are those of each ``PolicyNet`` on its own games up to float rounding (a
batched product sums in another order); tests compare them.
"""

from __future__ import annotations

from typing import Sequence

import torch

from rummy_env.agents.gin.heuristic_features import ADVICE_SIZE
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.encoding import FLAT_SIZE
from rummy_env.agents.gin.network import card_features, card_pairs, masked_log_probs


class PolicyStack:
    """The log-probabilities of many ``PolicyNet``s at once, each on its own positions."""

    def __init__(self, states: Sequence[dict[str, torch.Tensor]], advice: bool) -> None:
        """``states``: ``PolicyNet.state_dict()``s of networks of one shape, whose input
        includes the advice features if ``advice``."""
        if not states:
            raise ValueError("a PolicyStack needs at least one network")
        keys = {tuple((k, tuple(v.shape)) for k, v in s.items()) for s in states}
        if len(keys) > 1:
            raise ValueError("the networks of a PolicyStack must have one shape (hidden, card_hidden, advice)")
        inputs = FLAT_SIZE + (ADVICE_SIZE if advice else 0)
        if states[0]["trunk.0.weight"].shape[1] != inputs:
            raise ValueError(f"the networks read {states[0]['trunk.0.weight'].shape[1]} inputs; with advice={advice} "
                             f"they would read {inputs}")
        self.size = len(states)
        self.advice = bool(advice)

        def stack(key: str, transpose: bool = False) -> torch.Tensor:
            out = torch.stack([s[key].detach() for s in states])
            return out.transpose(1, 2).contiguous() if transpose else out

        # (P, in, out) weights for batched products, (P, 1, out) biases; the trunk's
        # Linear layers are trunk.0, trunk.2, ... (ReLUs between)
        layers = sorted(int(k.split(".")[1]) for k in states[0] if k.startswith("trunk.") and k.endswith(".weight"))
        self.trunk = [(stack(f"trunk.{i}.weight", True), stack(f"trunk.{i}.bias")[:, None, :]) for i in layers]
        # the two heads that read the trunk's output, side by side: 4 global logits, then the card context
        self.head_w = torch.cat([stack("global_logits.weight", True), stack("card_context.weight", True)], dim=2)
        self.head_b = torch.cat([stack("global_logits.bias"), stack("card_context.bias")], dim=1)[:, None, :]
        self.card_in_w = stack("card_in.weight", True)  # (P, features, card_hidden)
        self.card_in_b = stack("card_in.bias")
        self.card_out_w = stack("card_out.weight", True)  # (P, card_hidden, 2)
        self.card_out_b = stack("card_out.bias")

    @torch.no_grad()
    def log_probs(self, which: torch.Tensor, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked log-probabilities (N, A) of network ``which[i]`` at position ``i``
        (``which``: (N,) int64 in [0, size)); ``mask`` bool (N, A)."""
        n = obs.shape[0]
        which = which.to(torch.int64)
        if which.shape != (n,) or (n and (int(which.min()) < 0 or int(which.max()) >= self.size)):
            got = f"{int(which.min())}..{int(which.max())}" if which.numel() else "none"
            raise ValueError(f"which must hold {n} network indices in [0, {self.size}); got shape "
                             f"{tuple(which.shape)}, values {got}")
        counts = torch.bincount(which, minlength=self.size)
        group = max(int(counts.max()) if n else 0, 1)
        # each position's slot in a (networks, group) grid: its network's row, in input order
        order = torch.argsort(which, stable=True)
        first = torch.cumsum(counts, 0) - counts
        slot = torch.empty(n, dtype=torch.int64)
        slot[order] = torch.arange(n) - first[which[order]]
        flat = which * group + slot
        x = obs.new_zeros(self.size * group, obs.shape[1])
        x[flat] = obs
        x = x.view(self.size, group, -1)
        for w, b in self.trunk:
            x = torch.relu(torch.baddbmm(b, x, w))
        head = torch.baddbmm(self.head_b, x, self.head_w).view(self.size * group, -1)[flat]
        global_logits, context = head[:, :4], head[:, 4:]
        rows, cards = card_pairs(mask)
        per_card = obs.new_zeros(n * NUM_CARDS, 2)
        if rows.numel():
            net = which[rows]
            features = card_features(obs, rows, cards, self.advice)
            h = torch.bmm(features[:, None, :], self.card_in_w[net]).squeeze(1) + self.card_in_b[net]
            h = torch.relu(h + context.index_select(0, rows))
            out = torch.bmm(h[:, None, :], self.card_out_w[net]).squeeze(1) + self.card_out_b[net]
            per_card = per_card.index_copy(0, rows * NUM_CARDS + cards, out)
        return masked_log_probs(global_logits, per_card, mask)
