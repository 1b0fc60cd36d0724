"""Gin Rummy: PettingZoo AEC environment (``gin_rummy_v0``).

| Import             | ``from rummy_env import gin_rummy_v0``                       |
|--------------------|--------------------------------------------------------------|
| Actions            | Discrete(108), masked                                        |
| Parallel API       | No                                                           |
| Agents             | ``agents = ['player_0', 'player_1']``                        |
| Observation shape  | ``flat``: (479,); ``planes``: (20, 4, 13)                    |
| Observation values | card slices 0/1; scalars >= 0                                |
| Action mask        | int8 (108,)                                                  |
| State shape        | (266,)                                                       |

Two-player Gin Rummy with the exact rules of docs/games/gin/rules.md: first-turn upcard
offer, knock / Gin / Big Gin, lay-offs, undercuts, the wall and ``max_turns``, and
optionally whole matches to the target score with game, line and shutout bonuses. Rule
options come from ``rules``: a preset name (``classic``, ``eaai``, ``openspiel``), a
YAML path, a mapping or a ``Rules``; ``reset(seed=...)`` never changes them.

Arguments (by name): ``env(render_mode=None, rules="classic", encoding="flat",
episode="hand", reward="points", illegal_reward=-1)``. ``encoding`` is ``flat``, ``planes``,
``text`` or ``json`` (the information set in words or as JSON, for language models;
``text_no_moves``, ``json_no_moves`` without the legal moves: docs/text-views.md), another
encoding registered with the game, or an encoding object (docs/games/index.md).

Observation: ``{"observation": array, "action_mask": int8 (108,)}``, built only from
the observing player's information set (``rummy_env.gin.encoding`` documents every slice
of both encodings). The mask is all zeros for the player who is not to move.

Actions (``rummy_env.gin.game``): 0 draw from the stock; 1 take the top discard (or the
offered upcard); 2 pass on the upcard (or, with ``wall_knock``, at the wall); 3 + c
discard card c; 55 + c knock with card c face down (Gin at 0 deadwood); 107 declare Big
Gin. Card c = suit * 13 + rank. The wall of ``wall_knock`` (the ``openspiel`` preset) is
the draw phase with 2 cards in the stock: take (only to knock) or pass; the observation
is the same as without the option (docs/games/gin/env.md).

Episodes: ``episode="hand"`` (default) ends after one hand; ``episode="match"`` plays
hands until a player reaches ``target_score``, dealing the next hand in the same episode.
The dealer of the first hand is drawn from the env's seeded generator (or given as
``reset(options={"dealer": 0 or 1})``; ``options={"deck": [52 ids]}`` deals a fixed
deck order for the first hand); the dealer alternates after each hand. ``reset`` refuses,
naming it, a seed that is not a whole number >= 0 and a deck of anything but whole
numbers (a list or an integer array: text and fractions are not converted).

Rewards (zero-sum, given when a hand ends):
- ``points``: the hand score, +points to the winner and -points to the loser (0 on a
  draw or tie). In a match the last hand also carries the bonuses, so each player's
  return is their grand total minus the opponent's.
- ``scaled``: ``points`` / 100.
- ``win_loss``: +1 / -1 / 0 by who won the hand (``episode="hand"``) or the match.
A hand that ends in a draw (the wall, ``max_turns``, the guards of ``discard_taken_card``
and ``max_upcard_draws``) is terminal, never truncated.

Infos: the info of the agent to move (and of every agent when the episode ends) holds
its current ``information_set`` (``rummy_env.gin.game.InformationSet``: what that player
knows, nothing more) and the ``rules``, which is what agents read. At the step that ends a hand, every agent's info also has ``hand_result``
(outcome, winner, points, both deadwoods, melds, lay-offs, the shown hands; nothing is
shown after a draw) and ``hand_results`` (every result since that agent last acted: in a
match a short hand can end before it acts), and in a match ``match_points`` and, at the
end, ``match_result``.

Illegal actions: ``raw_env()`` raises ``IllegalActionError`` naming the action and
the legal ones. ``env()`` follows PettingZoo's illegal-move convention: the offender
gets -1, the others 0, every agent is terminated and truncated, and a warning is logged
(exactly what ``TerminateIllegalWrapper`` does), then wraps the env in
``OrderEnforcingWrapper`` (a subclass of it, ``rummy_env.core.aec.OrderEnforced``, with the
same checks, that reads the env's attributes directly instead of forwarding each read:
about 10 microseconds a step less). The -1 is PettingZoo's convention; with ``reward="points"``
hands are worth tens of points, so train with the action mask (or scaled rewards). The
convention is built into the env
(``raw_env(illegal_action="terminate", illegal_reward=-1)``) instead of stacking
``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper`` because each wrapper layer
forwards every attribute read and the three-layer stack more than doubles the cost of
a step (benchmarks/bench_env.py shows both). An action
that is not an integer in 0..107 is always an error. Unknown ``reset`` options are
ignored (PettingZoo's ``api_test`` passes arbitrary ones).

Render modes: ``ansi`` returns the table as text (both hands: a spectator's view),
``human`` prints it, ``rgb_array`` returns that text drawn as an image (uint8, height x
width x 3; ``rummy_env.core.render``) for video recorders.

Version History
- v0: initial release; in 0.2 the ``rgb_array`` render mode was added and the arguments
  are taken by name (the game interface's env base puts ``num_players`` first; nothing
  else changed).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from rummy_env.core.aec import CardGameEnv, user_env
from rummy_env.core.game import IllegalActionError
from rummy_env.gin.interface import GIN

__all__ = ["env", "raw_env", "IllegalActionError"]


def env(**kwargs: Any) -> AECEnv:
    """The env for users: illegal moves end the episode (-1 to the offender), order enforced."""
    return user_env(raw_env, **kwargs)


class raw_env(CardGameEnv):
    """``raw_env(render_mode=None, rules="classic", encoding="flat", episode="hand", reward="points",
    illegal_action="raise", illegal_reward=-1)``, arguments by name (``num_players``, the
    base's first argument, can only be 2): see the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "gin_rummy_v0", "is_parallelizable": False,
                "render_fps": 1}
    game_interface = GIN
