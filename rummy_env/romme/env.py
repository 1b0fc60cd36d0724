"""Rommé for 2 to 6 players: PettingZoo AEC environment (``romme_v0``).

| Import             | ``from rummy_env import romme_v0``                             |
|--------------------|----------------------------------------------------------------|
| Actions            | Discrete(5776), masked                                         |
| Parallel API       | No                                                             |
| Agents             | ``['player_0', ..., 'player_{N-1}']``, ``num_players`` N = 2..6  |
| Observation shape  | ``flat``: (3288,); ``planes``: (126, 4, 13)                    |
| Observation values | [0, 1]; a table's running totals signed (``total_rel*``)       |
| Action mask        | int8 (5776,)                                                   |
| State shape        | (592,)                                                         |

Rommé with the rules of docs/games/romme/rules.md (``rummy_env.romme.game`` documents the
choices where the usual rules are silent): two decks and 6 jokers (110 cards), 13 cards
each (14 to the player left of the dealer, who starts by discarding); draw from the stock
or take the top discard; build melds card by card and commit them (the first melds of a
player must be worth ``come_out_points``, 30 by default), lay off, swap a natural card for
a joker on the table, discard; go out by discarding the last card. Rule options come from
``rules``: a preset (``romme``, ``romme_40``, ``romme_40_run``), a YAML path
(``configs/rules/romme/*.yaml``), a mapping or a ``RommeRules``; ``reset(seed=...)`` never
changes them.

Arguments: ``env(num_players=2, render_mode=None, rules="romme", encoding="flat",
episode="hand", reward="points", illegal_reward=-1)``. ``encoding`` is ``flat``,
``planes``, ``text`` or ``json`` (the information set in words or as JSON, for language
models; ``text_no_moves``, ``json_no_moves`` without the legal moves: docs/text-views.md),
another encoding registered with the game, or an encoding object.

Actions (fixed, ``rummy_env.romme.game``; a kind k is ``suit * 13 + rank``, 52 the joker):

| id                          | action                                                        |
|-----------------------------|---------------------------------------------------------------|
| 0                           | draw the top card of the stock                                |
| 1                           | take the top card of the discard pile                         |
| 2                           | commit: lay the pending meld on the table                     |
| 3 + k (k < 53)              | discard a card of kind k (ends the turn)                      |
| 56 + k (k < 52)             | put a natural card of kind k into the pending meld            |
| 108 + k (k < 52)            | put a joker into the pending meld, standing for kind k        |
| 160 + 52 * s + k (s < 36)   | lay off a natural card of kind k onto table meld s            |
| 2032 + 52 * s + k           | lay off a joker standing for kind k onto table meld s         |
| 3904 + 52 * s + k           | swap natural k for the joker standing for k in table meld s   |

Every masked-in action can be completed: a player choosing among legal actions always
finishes the turn.

Observation: ``{"observation": array, "action_mask": int8 (5776,)}``, built only from the
observing player's information set (``rummy_env.romme.encoding`` documents every slice;
seats are relative to the observer, so one network plays 2 to 6 players). The mask is all
zeros for players not to move.

Episodes: ``episode="hand"`` (default) ends after one hand; ``episode="match"`` plays a
table (``rummy_env.romme.match``): ``hands_per_table`` hands (8), or fewer when a player's
total falls to minus ``loss_limit`` or lower (when the rules set one); a stalemate is a
hand played, scoring 0. The first dealer is drawn from the env's seeded generator (or
``reset(options={"dealer": seat})``; ``options={"deck": [110 ids]}`` deals a fixed order of
the physical cards for the first hand); the deal passes to the left each hand. ``reset``
refuses, naming it, a seed that is not a whole number >= 0 and a deck of anything but
whole numbers (a list or an integer array: text and fractions are not converted).

Rewards (zero-sum, given when a hand ends):
- ``points``: the player who went out gets the sum of the others' penalties (cards left in
  hand: ace 11, faces 10, jokers 20; times the hand-rummy multiplier); every other player
  gets minus their own penalty. A stalemate gives 0 to everybody. Over a table each
  player's return is its total (no bonuses).
- ``scaled``: ``points`` / 100.
- ``win_loss``: +1 to the winner of the hand (``episode="hand"``: the player who went out)
  or of the table (the highest total, given at the table's last hand; 0 for the hands
  before), and -1 / (N - 1) to each other player; 0 to all on a stalemate or when several
  players share the highest total.
A stalemate (nobody can draw, or ``max_turns``) is terminal, never truncated.

Infos: the info of the agent to move (and of every agent when the episode ends) holds its
``information_set`` (``rummy_env.romme.game.RommeInformationSet``: every card named by its
kind, never by which physical copy it is) and the ``rules``, which is what agents read,
plus ``game: "romme"``. At the step that ends a hand every
agent's info also has ``hand_result`` (outcome ``out``, ``hand_rummy`` or ``stalemate``,
winner, points, each seat's penalty and rewards, the hands shown) and ``hand_results``
(every result since that agent last acted), and at a table ``match_points`` (the running
totals per seat) and, at its end, ``match_result`` (``winner``, ``totals``, ``hands_won``,
``hands_played``, ``stalemates``, ``ended_by``: ``hands`` or ``loss_limit``).
Observations show the totals by relative seat and the hands played
(``rummy_env.romme.encoding``); ``state()`` is the hand's alone, as the other games'.

Illegal actions: ``raw_env()`` raises ``IllegalActionError`` naming the action and the
legal ones. ``env()`` follows PettingZoo's convention: the offender gets
``illegal_reward``, the others 0, every agent is terminated, a warning is logged; then
``OrderEnforcingWrapper`` (as ``OrderEnforced``). An action that is not an integer in
0..5775 is always an error.

Render modes: ``ansi`` returns the table as text (every hand: a spectator's view),
``human`` prints it, ``rgb_array`` returns that text drawn as an image.

Version History
- v0: initial release; tables (``episode="match"``) and the totals and hands played in
  the observation (3288 values, from 3281) added before any release.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from rummy_env.core.aec import CardGameEnv, user_env
from rummy_env.core.game import IllegalActionError
from rummy_env.romme.interface import ROMME

GAME = "romme"

__all__ = ["env", "raw_env", "IllegalActionError"]


def env(**kwargs: Any) -> AECEnv:
    """The env for users: illegal moves end the episode (``illegal_reward`` to the offender)."""
    return user_env(raw_env, **kwargs)


class raw_env(CardGameEnv):
    """``raw_env(num_players=2, render_mode=None, rules="romme", encoding="flat", episode="hand",
    reward="points", illegal_action="raise", illegal_reward=-1)``: see the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "romme_v0", "is_parallelizable": False,
                "render_fps": 1}
    info_extras = {"game": GAME}
    game_interface = ROMME
