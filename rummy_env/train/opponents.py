"""Opponents for self-play on the vector engine: who plays the learner in each game.

At every deal a game is assigned an opponent kind by the config's mixing weights
(``train.config.OPPONENT_KINDS``) and the learner a random seat. ``self`` games are
played by the current policy on both seats (both seats' moves are training data);
``pool`` games by a frozen past snapshot; ``random`` by uniform legal moves; ``simple``
by ``rummy_env.agents.gin.simple_vector.simple_actions``, the ``simple`` agent's rules as array operations over
all its games at once; ``heuristic`` likewise by ``rummy_env.agents.gin.heuristic_vector.heuristic_actions``
(the heuristic with its turn-based knock rule, ``heuristic:knock=turn``).

``information_set_of`` rebuilds one game's information set from the engine's arrays (the
same facts the pure game's ``information_set`` holds, except the public history, which
is left empty), so tests can ask the per-game agents what they would play there.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import InformationSet, Phase
from rummy_env.gin.vector import VectorGinRummy

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


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of an (n, A) 0/1 mask."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)
