"""The oracle critic: a value network that also sees the cards the player cannot see.

Why: in Gin Rummy most of the spread of a hand's result, given what a player knows, comes
from the cards it does not know (the opponent's hand, the order of the stock). A critic
that reads only the information set has to average over them, so the advantages PPO
learns from carry that spread as noise; at a knock, for example, the showdown's result
is fixed by the two hands, yet a critic blind to the opponent's hand can only guess it.
A critic given those cards (``privileged``) can predict the result better, and the
advantages lose that part of the noise. How much: see docs/findings/ppo.md
(the stock's order and both players' later choices still decide much of a hand).

It stays unbiased: the critic is only a baseline, and a baseline may depend on anything
the action does not (the policy's gradient still goes through the policy's own inputs,
the information set). It is used in training only: the policy, the ``ppo`` agent and the
policy files never read it, so nothing hidden reaches a player (the agents' no-peeking
tests cover the policy). The idea is the asymmetric actor-critic of Pinto et al. (2018)
and the "oracle" features used to train imperfect-information game agents such as
Suphx (Li et al., 2020).

Privileged features (``PRIVILEGED_LAYOUT``, ``PRIVILEGED_SIZE`` = 3 x 52 + 2; card slices in card-id order):
the opponent's hand, the cards left in the stock, the next card of the stock (one-hot;
zeros when the stock is empty), then the opponent's least deadwood / 100 and the least
deadwood of its hand plus the next stock card after its best discard / 100 (its own
deadwood when the stock is empty). The two figures are what the critic would otherwise
have to learn to compute from the hand (the meld solver's work): how close the opponent
is to knocking now, and after drawing that card (its next draw when the player to move
is discarding; when the player to move is drawing, that card is the player's own draw
from the stock, and the figure is a guide, not the opponent's next hand).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.encoding import CardLayout
from rummy_env.gin.vector import VectorGinRummy

PRIVILEGED_LAYOUT = CardLayout(("opponent_hand", "stock", "next_stock"),
                               ("opponent_deadwood", "opponent_deadwood_after_draw"))
PRIVILEGED_SIZE = PRIVILEGED_LAYOUT.flat_size
_OPPONENT, _STOCK, _NEXT = (NUM_CARDS * PRIVILEGED_LAYOUT.card_slices.index(name)
                            for name in ("opponent_hand", "stock", "next_stock"))
_DEADWOOD, _AFTER_DRAW = (PRIVILEGED_LAYOUT.card_size + PRIVILEGED_LAYOUT.scalars.index(name)
                          for name in ("opponent_deadwood", "opponent_deadwood_after_draw"))
_BITS = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)


def privileged(env: VectorGinRummy, rows: np.ndarray, players: np.ndarray) -> np.ndarray:
    """(len(rows), PRIVILEGED_SIZE) float32: for seat ``players[i]`` of game ``rows[i]``,
    the cards it cannot see (layout: module docstring). Training only: never an agent input."""
    rows = np.asarray(rows, dtype=np.intp)
    players = np.asarray(players, dtype=np.intp)
    out = np.zeros((rows.size, PRIVILEGED_SIZE), dtype=np.float32)
    if rows.size == 0:
        return out
    opponent = env.hands[rows, 1 - players]
    out[:, _OPPONENT:_OPPONENT + NUM_CARDS] = (opponent[:, None] & _BITS) != 0
    deck = env.decks[rows].astype(np.intp)  # (n, 52) card ids in deal order; the stock is from stock_next on
    nxt = env.stock_next[rows].astype(np.intp)
    in_stock = np.arange(NUM_CARDS) >= nxt[:, None]
    line = np.arange(rows.size)[:, None]
    out[line, _STOCK + deck] = in_stock
    left = np.flatnonzero(nxt < NUM_CARDS)
    out[left, _NEXT + deck[left, nxt[left]]] = 1
    opts = {"aces_high": env.rules.aces_high, "five_under_ten": env.rules.five_under_ten}
    now = melds.min_deadwood(opponent, **opts)
    out[:, _DEADWOOD] = now / 100
    out[:, _AFTER_DRAW] = now / 100
    if left.size:
        drawn = opponent[left] | _BITS[deck[left, nxt[left]]]
        out[left, _AFTER_DRAW] = melds.best_discard_deadwood(drawn, **opts) / 100
    return out


class OracleCritic(nn.Module):
    """An MLP from the policy's input plus the privileged features to one value."""

    def __init__(self, obs_size: int, hidden: tuple[int, ...] = (256, 256)):
        super().__init__()
        self.obs_size = int(obs_size)
        self.hidden = tuple(int(h) for h in hidden)
        layers: list[nn.Module] = []
        width = self.obs_size + PRIVILEGED_SIZE
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.body = nn.Sequential(*layers)
        for layer in self.body:
            if isinstance(layer, nn.Linear):
                nn.init.orthogonal_(layer.weight, gain=2**0.5 if layer is not layers[-1] else 1.0)
                nn.init.zeros_(layer.bias)

    def forward(self, obs: torch.Tensor, hidden_cards: torch.Tensor) -> torch.Tensor:
        """Values (N,) of inputs ``obs`` (N, obs_size) with privileged features (N, PRIVILEGED_SIZE)."""
        return self.body(torch.cat([obs, hidden_cards], dim=1)).squeeze(-1)
