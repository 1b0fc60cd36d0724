"""Opponents for self-play on the vector engine: who plays the learner in each game.

At every deal a game is assigned an opponent kind by the config's mixing weights
(``train.config.OPPONENT_KINDS``) and the learner a random seat. ``self`` games are
played by the current policy on both seats (both seats' moves are training data);
``pool`` games by a frozen past snapshot; ``random`` by uniform legal moves; ``simple``
by ``simple_actions``, the ``simple`` agent's rules as array operations over all its
games at once; ``heuristic`` by the scripted agent itself, game by game, which needs an
information set: ``information_set_of`` rebuilds it from the engine's arrays (the same
facts the pure game's ``information_set`` holds, except the public history, which the
agent does not read; it is left empty).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import agents
from rummy_env import melds
from rummy_env.cards import NUM_CARDS
from rummy_env.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, InformationSet, Phase
from rummy_env.vector import VectorGinRummy

SCRIPTED = ("heuristic",)


def information_set_of(env: VectorGinRummy, g: int) -> InformationSet:
    """The information set of the player to move in game ``g`` of ``env``."""
    p = int(env.current[g])
    q = 1 - p
    pile = tuple(int(c) for c in env.pile[g, : env.pile_len[g]])
    taken = int(env.taken[g])
    return InformationSet(
        player=p,
        hand=int(env.hands[g, p]),
        discard_pile=pile,
        discard_mask=int(env.pile_mask[g]),
        stock_size=NUM_CARDS - int(env.stock_next[g]),
        phase=Phase(int(env.phase[g])),
        current_player=p,
        dealer=int(env.dealer[g]),
        turn=int(env.turn[g]),
        knock_limit=int(env.knock_limit[g]),
        taken_card=taken if taken >= 0 else None,
        opponent_known=int(env.known[g, q]),
        opponent_hand_size=int(env.hands[g, q]).bit_count(),
        discarded=(int(env.discarded[g, 0]), int(env.discarded[g, 1])),
        passed=(int(env.passed[g, 0]), int(env.passed[g, 1])),
        public_history=(),
        result=None,
    )


class ScriptedPlayers:
    """One seeded instance of each scripted agent, asked game by game."""

    def __init__(self, seed: int) -> None:
        self.agents = {name: agents.make(name, seed=seed + i) for i, name in enumerate(SCRIPTED)}

    def act(self, kind: str, env: VectorGinRummy, g: int, observation: np.ndarray, mask: np.ndarray) -> int:
        info: dict[str, Any] = {"information_set": information_set_of(env, g), "rules": env.rules}
        return self.agents[kind].act({"observation": observation, "action_mask": mask}, info)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of an (n, A) 0/1 mask."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def simple_actions(env: VectorGinRummy, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The ``simple`` agent's moves (``agents/simple.py``) in games ``rows`` of ``env``.

    Take the face-up card only if it makes a meld with the hand; discard at random among
    the cards leaving the least deadwood (never the card just taken); knock as soon as
    that discard allows; Big Gin when legal.
    """
    mask = env.action_mask()[rows]
    out = np.full(rows.size, DRAW_STOCK, dtype=np.int64)
    phase = env.phase[rows]
    p = env.current[rows].astype(np.intp)
    hands = env.hands[rows, p]
    drawing = np.flatnonzero(phase != Phase.DISCARD)
    if drawing.size:
        g = rows[drawing]
        has_top = env.pile_len[g] > 0
        top = env.pile[g, np.maximum(env.pile_len[g] - 1, 0)]
        wants = has_top & melds.forms_meld_batch(hands[drawing], top, aces_high=env.rules.aces_high)
        can_take = mask[drawing, TAKE_DISCARD] == 1
        out[drawing] = np.where(wants & can_take, TAKE_DISCARD, np.where(mask[drawing, PASS] == 1, PASS, DRAW_STOCK))
    discarding = np.flatnonzero(phase == Phase.DISCARD)
    if discarding.size:
        after = env.discard_deadwood()[rows[discarding]].astype(np.float64)
        taken = env.taken[rows[discarding]]
        after[after < 0] = np.inf
        has_taken = taken >= 0
        after[np.flatnonzero(has_taken), taken[has_taken]] = np.inf
        best = after == after.min(axis=1, keepdims=True)
        card = np.argmax(rng.random(best.shape) * best, axis=1)
        k = mask[discarding, KNOCK + card] == 1
        action = np.where(k, KNOCK + card, DISCARD + card)
        out[discarding] = np.where(mask[discarding, BIG_GIN] == 1, BIG_GIN, action)
    return out
