"""How a Gin Rummy showdown scores, given both players' final deadwood.

The pure engine (``rummy_env.game``), the batch engine (``rummy_env.vector``) and the
``heuristic`` agent's knock estimate all score showdowns; they call this one function so
that the knock, Gin, Big Gin, undercut and tie arithmetic of ../shared/RULES.md lives in
one place. Finding the deadwood (the knocker's layout, the defender's lay-offs) is the
callers' job: the engines do it exactly, the heuristic for sampled opponent hands.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numpy.typing import ArrayLike

from rummy_env.rules import Rules


class Outcome(IntEnum):
    """How a hand ended; the batch engine reports these codes, ``OUTCOMES`` names them."""

    DRAW = 0
    KNOCK = 1
    GIN = 2
    BIG_GIN = 3
    UNDERCUT = 4
    TIE = 5


OUTCOMES = tuple(o.name.lower() for o in Outcome)
"""Outcome names by code: ``OUTCOMES[code]`` ("draw", "knock", "gin", "big_gin", "undercut", "tie")."""


def score_showdown(
    knocker_deadwood: ArrayLike, defender_deadwood: ArrayLike, rules: Rules, big_gin: ArrayLike = False
) -> tuple[np.ndarray, np.ndarray]:
    """(outcome codes, points) of showdowns, elementwise over broadcast arrays.

    ``knocker_deadwood`` is the knocker's deadwood after the face-down card (0 is Gin);
    ``defender_deadwood`` is the defender's after lay-offs (none against Gin or Big Gin);
    ``big_gin`` marks Big Gin declarations. Points go to the winner: the knocker, except
    for an undercut (the defender) and a tie (nobody, 0 points).
    """
    k = np.asarray(knocker_deadwood, dtype=np.int64)
    d = np.asarray(defender_deadwood, dtype=np.int64)
    big = np.asarray(big_gin, dtype=bool)
    k, d, big = np.broadcast_arrays(k, d, big)
    gin = ~big & (k == 0)
    knock = ~big & (k > 0)
    won = knock & (d > k)
    undercut = knock & ((d < k) | ((d == k) & rules.undercut_on_tie))
    outcome = np.select([big, gin, won, undercut], [Outcome.BIG_GIN, Outcome.GIN, Outcome.KNOCK, Outcome.UNDERCUT], Outcome.TIE)
    points = np.select(
        [big, gin, won, undercut],
        [d + rules.big_gin_bonus, d + rules.gin_bonus, d - k, k - d + rules.undercut_bonus],
        0,
    )
    return outcome, points
