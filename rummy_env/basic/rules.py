"""Rule options of Basic Rummy for 2 to 4 players (docs/games/basic/rules.md) as a frozen dataclass.

A separate class from Gin Rummy's ``rummy_env.gin.rules.Rules`` because the two games
share almost no options; the validation and YAML loading are ``rummy_env.core.rules``'s.
Presets: ``basic`` (match to 100), ``basic_300`` and ``basic_500`` (the other usual
targets). The YAML files in ``configs/rules/basic_rummy/`` hold the same presets (a test
keeps them equal); a file may say ``preset: NAME`` and override some options.

The YAML files live in a folder of their own because ``configs/rules/*.yaml`` are Gin
Rummy presets and a Gin test checks each of them holds every Gin option.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from rummy_env.core.game import check_num_players as check_players_in_range
from rummy_env.core.rules import RuleOptions, load_rules_spec

MIN_PLAYERS, MAX_PLAYERS = 2, 4


@dataclass(frozen=True)
class BasicRummyRules(RuleOptions):
    """All Basic Rummy options; construct with keywords, or use ``load_rummy_rules``."""

    label: ClassVar[str] = "Basic Rummy "
    choices: ClassVar[dict[str, tuple[str, ...]]] = {"aces": ("low", "high")}

    target_score: int = 100
    """A match ends when a player's total reaches this (100, 300 and 500 are usual);
    0 means no match: hands stand alone."""
    rummy_multiplier: int = 2
    """Going out in one turn with nothing melded before that turn ("rummy") multiplies
    the hand's points by this; 1 turns the double off."""
    layoff_needs_own_meld: bool = True
    """Lay-offs are allowed only once the player has a meld of their own on the table
    (the standard rule); false lets anyone lay off at any time (a common house rule)."""
    go_out_without_discard: bool = True
    """A player may go out by melding or laying off every card, with no final discard
    (the standard rule); false means the last card must be discarded."""
    stock_turnovers: int = 1
    """How often the discard pile (all but its top card) is turned over as a new stock;
    the next time the stock runs out the hand is a stalemate (once, as usual)."""
    aces: str = "low"
    """'low': A-2-3 is a run; 'high': Q-K-A is a run and A-2-3 is not. Never wraps."""
    hand_size: int = 0
    """Cards dealt to each player; 0 means the standard 10 for 2 players and 7 for 3 or 4."""
    max_turns: int = 300
    """A hand is a stalemate after this many turns (cards can circulate through the
    discard pile forever, as in Gin Rummy). Our addition: the usual rules are silent."""

    def check(self) -> None:
        if self.rummy_multiplier < 1:
            raise ValueError(f"rule option rummy_multiplier must be >= 1, got {self.rummy_multiplier}")
        if self.max_turns < 1:
            raise ValueError(f"rule option max_turns must be >= 1, got {self.max_turns}")
        if self.hand_size and not 3 <= self.hand_size <= 10:
            raise ValueError(f"rule option hand_size must be 0 (by player count) or 3..10, got {self.hand_size}")

    @property
    def aces_high(self) -> bool:
        return self.aces == "high"

    @property
    def match(self) -> bool:
        """Whether hands add up to a match (``target_score`` > 0)."""
        return self.target_score > 0

    def cards_per_hand(self, num_players: int) -> int:
        """Cards dealt to each of ``num_players`` players under these rules."""
        check_num_players(num_players)
        if self.hand_size:
            return self.hand_size
        return 10 if num_players == 2 else 7



def check_num_players(num_players: int) -> int:
    """``num_players`` if it is an integer 2..4, else a ValueError saying what is allowed."""
    return check_players_in_range(num_players, MIN_PLAYERS, MAX_PLAYERS)


OPTION_NAMES = BasicRummyRules.option_names()

PRESETS: dict[str, BasicRummyRules] = {
    "basic": BasicRummyRules(),
    "basic_300": BasicRummyRules(target_score=300),
    "basic_500": BasicRummyRules(target_score=500),
}

PRESET_NOTES: dict[str, str] = {
    "basic": "The standard rules: a match to 100; going out in one turn (rummy) doubles the points; "
             "lay off once you have melded; the stock is turned over once.",
    "basic_300": "The standard rules, a longer match: to 300 points.",
    "basic_500": "The standard rules, the longest match: to 500 points.",
}
"""One line per preset, for people choosing one (``Game.preset_note``: the web app's pickers)."""

RummyRulesSpec = Union[str, os.PathLike, Mapping[str, Any], BasicRummyRules, None]


def load_rummy_rules(spec: RummyRulesSpec = None) -> BasicRummyRules:
    """Rules from a preset name, a YAML file path, a mapping of options or a ``BasicRummyRules``.

    ``None`` gives ``basic``.
    """
    return load_rules_spec(spec, BasicRummyRules, PRESETS, "basic", "Basic Rummy rules")
