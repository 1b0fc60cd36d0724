"""How a Gin Rummy showdown scores, given both players' final deadwood.

The pure engine (``rummy_env.gin.game``), the batch engine (``rummy_env.gin.vector``) and
the ``heuristic`` agent's knock estimate all score showdowns; they call this one function
so that the knock, Gin, Big Gin, undercut and tie arithmetic of the rules
(docs/games/gin/rules.md) lives in one place. Finding the deadwood (the knocker's layout, the defender's lay-offs) is the
callers' job: the engines do it exactly, the heuristic for sampled opponent hands.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numpy.typing import ArrayLike

from rummy_env.gin.rules import Rules


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
    # Each test applies only where the ones before it failed: Big Gin, Gin, knock, undercut, tie.
    gin = k == 0
    won = d > k
    undercut = (d < k) | ((d == k) & rules.undercut_on_tie)
    outcome = np.where(big, Outcome.BIG_GIN, np.where(gin, Outcome.GIN, np.where(
        won, Outcome.KNOCK, np.where(undercut, Outcome.UNDERCUT, Outcome.TIE))))
    points = np.where(big, d + rules.big_gin_bonus, np.where(gin, d + rules.gin_bonus, np.where(
        won, d - k, np.where(undercut, k - d + rules.undercut_bonus, 0))))
    return outcome, points


def score_one(knocker_deadwood: int, defender_deadwood: int, rules: Rules, big_gin: bool = False) -> tuple[Outcome, int]:
    """``score_showdown`` of one showdown, in plain Python: the pure game's and the batch
    player's showdowns (``rummy_env.gin.game.showdown_result``), where the array version's
    numpy overhead on single numbers cost more than the rest of the scoring. The same tests
    in the same order; a test holds the two equal over every deadwood pair and rule set."""
    k, d = int(knocker_deadwood), int(defender_deadwood)
    if big_gin:
        return Outcome.BIG_GIN, d + rules.big_gin_bonus
    if k == 0:
        return Outcome.GIN, d + rules.gin_bonus
    if d > k:
        return Outcome.KNOCK, d - k
    if d < k or rules.undercut_on_tie:
        return Outcome.UNDERCUT, k - d + rules.undercut_bonus
    return Outcome.TIE, 0
