"""Basic Rummy for 2 to 4 players: PettingZoo AEC environment (``basic_rummy_v0``).

| Import             | ``from rummy_env import basic_rummy_v0``                       |
|--------------------|----------------------------------------------------------------|
| Actions            | Discrete(1267), masked                                         |
| Parallel API       | No                                                             |
| Agents             | ``['player_0', ..., 'player_{N-1}']``, ``num_players`` N = 2..4  |
| Observation shape  | ``flat``: (910,); ``planes``: (43, 4, 13)                      |
| Observation values | card slices 0/1; scalars in [0, 1] (match points a little more)|
| Action mask        | int8 (1267,)                                                   |
| State shape        | (423,)                                                         |

Basic Rummy with the rules of docs/games/basic/rules.md (``rummy_env.basic.game`` documents
the choices where the usual rules are silent): 10 cards each for 2 players, 7 for 3 or 4; draw
from the stock or the discard pile; meld sets and runs, lay off (once you have a meld of
your own on the table), discard (never the card just taken); go out with or without a
final discard; the discard pile turned over once, then a stalemate; the "rummy" double;
optionally whole matches to 100, 300 or 500. Rule options come from ``rules``: a preset
(``basic``, ``basic_300``, ``basic_500``), a YAML path
(``configs/rules/basic_rummy/*.yaml``), a mapping or a ``BasicRummyRules``;
``reset(seed=...)`` never changes them.

Arguments: ``env(num_players=2, render_mode=None, rules="basic", encoding="flat",
episode="hand", reward="points", illegal_reward=-1)``. ``encoding`` is ``flat``,
``planes``, ``text`` or ``json`` (the information set in words or as JSON, for language
models; ``text_no_moves``, ``json_no_moves`` without the legal moves: docs/text-views.md),
another encoding registered with the game, or an encoding object.

Actions (fixed, ``rummy_env.basic.game``): 0 draw from the stock; 1 take the top
discard; 2 + c discard card c (ends the turn); 54 + m lay down meld m of the meld table
(65 sets then 264 runs); 383 + 52 * s + c lay off card c onto the table meld in slot s
(slots in the order melds were laid down, up to 17). Card c = suit * 13 + rank.

Observation: ``{"observation": array, "action_mask": int8 (1267,)}``, built only from
the observing player's information set (``rummy_env.basic.encoding`` documents every
slice; seats are relative to the observer). The mask is all zeros for players not to move.

Episodes: ``episode="hand"`` (default) ends after one hand; ``episode="match"`` plays
hands until a player reaches ``target_score``. The first dealer is drawn from the env's
seeded generator (or ``reset(options={"dealer": seat})``; ``options={"deck": [52
ids]}`` deals a fixed deck order for the first hand); the deal passes to the left.
``reset`` refuses, naming it, a seed that is not a whole number >= 0 and a deck of
anything but whole numbers (a list or an integer array: text and fractions are not
converted).

Rewards (zero-sum, given when a hand ends):
- ``points``: the player who went out gets the hand's points; every other player gets
  minus the value of the cards left in their own hand (times the rummy multiplier), so
  the rewards sum to zero. A stalemate gives 0 to everybody.
- ``scaled``: ``points`` / 100.
- ``win_loss``: +1 to the winner of the hand (``episode="hand"``) or the match, and
  -1 / (N - 1) to each other player; 0 to all on a stalemate.
A stalemate (the stock running out again, ``max_turns``) is terminal, never truncated.

Infos: the info of the agent to move (and of every agent when the episode ends) holds
its ``information_set`` (``rummy_env.basic.game.RummyInformationSet``) and the
``rules``, which is what agents read, plus ``game: "basic_rummy"``. At the step that
ends a hand, every agent's info also has ``hand_result`` (outcome ``out``, ``rummy`` or
``stalemate``, winner, points, each seat's penalty and rewards, the hands shown) and
``hand_results`` (every result since that agent last acted), and in a match
``match_points`` and, at the end, ``match_result``.

Illegal actions: ``raw_env()`` raises ``IllegalActionError`` naming the action and the
legal ones. ``env()`` follows PettingZoo's convention (as ``gin_rummy_v0`` does): the
offender gets ``illegal_reward``, the others 0, every agent is terminated, a warning is
logged; then ``OrderEnforcingWrapper`` (as ``OrderEnforced``, the same checks without
its per-read forwarding). An action that is not an integer in 0..1266 is
always an error.

Render modes: ``ansi`` returns the table as text (every hand: a spectator's view),
``human`` prints it, ``rgb_array`` returns that text drawn as an image (uint8, height x
width x 3; ``rummy_env.core.render``) for video recorders.

Version History
- v0: initial release; the ``rgb_array`` render mode added in 0.2 (nothing else changed).
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from rummy_env.basic.interface import BASIC
from rummy_env.core.aec import CardGameEnv, user_env
from rummy_env.core.game import IllegalActionError

GAME = "basic_rummy"

__all__ = ["env", "raw_env", "IllegalActionError"]


def env(**kwargs: Any) -> AECEnv:
    """The env for users: illegal moves end the episode (``illegal_reward`` to the offender)."""
    return user_env(raw_env, **kwargs)


class raw_env(CardGameEnv):
    """``raw_env(num_players=2, render_mode=None, rules="basic", encoding="flat", episode="hand",
    reward="points", illegal_action="raise", illegal_reward=-1)``: see the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "basic_rummy_v0", "is_parallelizable": False,
                "render_fps": 1}
    info_extras = {"game": GAME}
    game_interface = BASIC
