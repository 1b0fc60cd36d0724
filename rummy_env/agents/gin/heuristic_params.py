"""The ``heuristic`` agent's settings and the rules of its knock estimate's scoring.

Why its own floor: the scripted agent (``rummy_env.agents.gin.heuristic``), its array
version (``heuristic_vector``), the opponent model's array version (``knock_vector``) and
the array policies all read these: the settings' defaults, the two knock rules and the
estimate's defaults, what a knock scores against a sampled opponent hand
(``knock_points``) and whether a discard now would end the hand (``last_turn``). Below
every one of them, they import it and not one another. It imports nothing of the agents.
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike

from rummy_env.core import melds
from rummy_env.gin.rules import Rules
from rummy_env.gin.scoring import Outcome, score_showdown

# the settings' defaults, shared with the array version (``rummy_env.agents.gin.heuristic_vector``)
DEFAULTS: dict[str, Any] = {"take_margin": 1.0, "danger_weight": 1.0, "late_turn": 14, "late_knock_max": 5}
KNOCK_RULES = ("estimate", "turn")
KNOCK_VALUE, KNOCK_WORLDS = 20.0, 48  # the knock estimate's defaults (docs/findings/knock-rule.md: how 20 was chosen)


def last_turn(stock_size: ArrayLike, turn: ArrayLike, rules: Rules) -> Union[bool, np.ndarray]:
    """Whether this is the player's last turn: a discard now ends the hand drawn (the wall
    or ``max_turns``), or with ``wall_knock`` lets the opponent only take it to knock or
    pass (so is the wall itself, where the stock has 2 cards too); scalars or arrays."""
    return (stock_size <= 2) | (turn + 1 >= rules.max_turns)


def knock_points(kept: Union[int, np.ndarray], opponents: np.ndarray, rules: Rules) -> np.ndarray:
    """The knocker's points (negative when undercut) if the ``kept`` hand (10 cards, more
    than 0 deadwood) knocks against each of the ``opponents`` hands, after their lay-offs;
    ``kept`` one hand, or one per opponent hand (the array version)."""
    k, d = melds.showdown_deadwood(np.broadcast_to(np.asarray(kept, dtype=np.uint64), opponents.shape).copy(), opponents,
                                   aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
    outcome, points = score_showdown(k, d, rules)
    return np.where(outcome == Outcome.UNDERCUT, -points, points)
