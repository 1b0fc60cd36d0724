"""Rule options of Gin Rummy (docs/games/gin/rules.md) as one frozen, validated dataclass.

Every option players disagree about is a field with its ``classic`` default. Named presets
let results be compared with published work: ``classic`` (the popular online rules),
``eaai`` (the EAAI-2021 Gin Rummy AI competition), ``openspiel`` (OpenSpiel's
gin_rummy: its scoring of one hand, its wall, its throw-back and its cap on upcard draws)
and ``rlcard`` (RLCard's gin rummy as PettingZoo's removed ``gin_rummy_v4`` played it; the
env ``rummy_env.compat.gin_rummy_v4`` deals and scores it the old way). The YAML files
in ``configs/rules/`` hold the same presets (a test keeps them equal) and show the file
format: option names as keys, optionally ``preset: NAME`` to start from a preset and
override some options.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from rummy_env.core.rules import RuleOptions, load_rules_spec

MAX_KNOCK_LIMIT = 20  # the highest limit played; above it nearly every hand could knock at once


@dataclass(frozen=True)
class Rules(RuleOptions):
    """All rule options; construct with keywords, or use ``load_rules``."""

    choices: ClassVar[dict[str, tuple[str, ...]]] = {"aces": ("low", "high")}

    knock_limit: int = 10
    """Most deadwood the knocker may keep (10 cards, after the face-down card); 0..20."""
    gin_bonus: int = 25
    """Bonus for Gin (knocking with 0 deadwood); Gin is never undercut."""
    big_gin_bonus: int = 31
    """Bonus for Big Gin (all 11 cards melded without discarding); 0 disables Big Gin."""
    undercut_bonus: int = 25
    """Bonus to a defender whose deadwood is below (or equal to, see below) the knocker's."""
    undercut_on_tie: bool = True
    """A tie in deadwood is an undercut; if false a tie scores 0 for both."""
    aces: str = "low"
    """'low': A-2-3 is a run; 'high': Q-K-A is a run and A-2-3 is not. Never wraps."""
    five_under_ten: bool = False
    """A-9 are worth 5 (T-K still 10) in deadwood and scoring."""
    oklahoma: bool = False
    """The first upcard's value sets the knock limit for the hand; an ace means Gin only."""
    first_upcard_pass: bool = True
    """The first-turn upcard offer (non-dealer, then dealer, may take or pass the upcard).
    If false, the non-dealer simply starts with a normal turn."""
    target_score: int = 100
    """A match ends when a player's total reaches this; 0 means no match (hands stand alone)."""
    game_bonus: int = 100
    """Bonus to the player who reached the target."""
    line_bonus: int = 25
    """Bonus per hand won, to each player, at the end of the match."""
    shutout: bool = True
    """A match winner who won every hand, with no drawn hand, doubles their hand points."""
    max_turns: int = 100
    """A hand is a draw after this many turns (a rule of the game, not a truncation)."""
    wall_knock: bool = False
    """At the wall (the discard that leaves 2 cards in the stock) the next player may take
    that discard only to knock or go Gin at once; otherwise they pass and the hand is drawn.
    If false the hand is drawn at that discard."""
    discard_taken_card: bool = False
    """The card taken from the discard pile may be discarded, or put face down to knock, in
    the same turn; a hand is drawn when a player throws back the card they took and the
    next player then does the same."""
    max_upcard_draws: int = 0
    """0: no limit; N > 0: the Nth take of the top discard in an ordinary turn (the upcard
    offer and the wall do not count) draws the hand instead of taking the card."""

    def check(self) -> None:
        if self.knock_limit > MAX_KNOCK_LIMIT:
            raise ValueError(f"rule option knock_limit must be 0..{MAX_KNOCK_LIMIT} (the limits played: 0 = Gin only, "
                             f"5, 10, 15, 20), got {self.knock_limit}")
        if self.max_turns < 1:
            raise ValueError(f"rule option max_turns must be >= 1, got {self.max_turns}")

    @property
    def aces_high(self) -> bool:
        return self.aces == "high"

    @property
    def big_gin(self) -> bool:
        return self.big_gin_bonus > 0

    @property
    def match(self) -> bool:
        """Whether hands add up to a match (``target_score`` > 0)."""
        return self.target_score > 0


OPTION_NAMES = Rules.option_names()

PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "eaai": Rules(big_gin_bonus=0, game_bonus=0, line_bonus=0, shutout=False),
    "openspiel": Rules(big_gin_bonus=0, undercut_on_tie=False, target_score=0, wall_knock=True,
                       discard_taken_card=True, max_upcard_draws=50),
    "rlcard": Rules(big_gin_bonus=0, target_score=0, first_upcard_pass=False, wall_knock=True,
                    discard_taken_card=True),
}

PRESET_NOTES: dict[str, str] = {
    "classic": "The popular online rules: knock with 10 or less, gin 25, Big Gin 31, undercut 25 (ties too); "
               "a match to 100 with game (100), line (25 a hand) and shutout bonuses.",
    "eaai": "The EAAI-2021 Gin Rummy AI competition: no Big Gin; a match to 100 without game, line or shutout "
            "bonus; ties count as undercuts.",
    "openspiel": "OpenSpiel's gin_rummy: no Big Gin, a deadwood tie scores 0, single hands (no match); at the wall "
                 "the discard may be taken to knock, the card taken may be thrown back.",
    "rlcard": "RLCard's gin rummy (PettingZoo's gin_rummy_v4, rummy_env.compat): no upcard offer, no Big Gin, "
              "single hands; at the wall the discard may be taken to knock; the card taken may be knocked with "
              "(or thrown back: not in the compat env).",
}
"""One line per preset, for people choosing one (``Game.preset_note``: the web app's pickers)."""

RulesSpec = Union[str, os.PathLike, Mapping[str, Any], Rules, None]


def load_rules(spec: RulesSpec = None) -> Rules:
    """Rules from a preset name, a YAML file path, a mapping of options or a ``Rules``.

    ``None`` gives ``classic``.
    """
    return load_rules_spec(spec, Rules, PRESETS, "classic", "rules")
