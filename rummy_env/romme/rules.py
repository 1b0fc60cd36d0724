"""Rule options of Rommé for 2 to 6 players (docs/games/romme/rules.md) as a frozen dataclass.

Why a class of its own: Rommé plays with two decks and jokers, a threshold to come out,
joker swaps and a table of several hands, options neither Gin Rummy nor Basic Rummy
has. Validation and YAML loading are ``rummy_env.core.rules``'s, so Rommé's options are
set like the other games' (a preset name, a YAML path, a mapping, ``preset: NAME`` plus
overrides) and refused the same way when wrong.

Presets: ``romme`` (the defaults), ``romme_40`` (40 points to come out) and
``romme_40_run`` (40 points, and the first melds must hold a run: the stricter house
rule many German clubs play). The YAML files in ``configs/rules/romme/`` hold the same
presets (a test keeps them equal); a file may say ``preset: NAME`` and override some
options.

Every field is an ``int`` (>= 0), a ``bool`` or a ``str`` from ``choices``: a number
that means "none" is 0 (``loss_limit: 0`` is no limit; 500 ends the table when a total
falls to -500). A table (``rummy_env.romme.match.RommeTable``) plays
``hands_per_table`` hands unless ``loss_limit`` ends it first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from rummy_env.core.game import check_num_players as check_players_in_range
from rummy_env.core.rules import RuleOptions, load_rules_spec

MIN_PLAYERS, MAX_PLAYERS = 2, 6
MAX_JOKERS = 6  # physical joker ids 104..109 (rummy_env.romme.cards)
HAND_SIZE = 13  # cards dealt to each player (the first player gets a 14th with deal_extra_card)


@dataclass(frozen=True)
class RommeRules(RuleOptions):
    """All Rommé options; construct with keywords, or use ``load_romme_rules``."""

    label: ClassVar[str] = "Rommé "
    choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "naturals_per_meld": ("at_least_two", "more_than_jokers"),
        "take_discard_before_out": ("meld", "free"),
        "turnover": ("shuffle", "flip"),
    }

    jokers: int = 6
    """Jokers added to the two 52-card decks: 6 (110 cards, the usual Rommé pack) or 4
    (older packs); any number 0..6 is accepted."""
    deal_extra_card: bool = True
    """The player left of the dealer is dealt a 14th card and starts by discarding (the
    usual rule); false: everyone gets 13 cards and the first player draws as usual."""
    aces_around_the_corner: bool = False
    """False: in a run an ace stands low (A-2-3) or high (Q-K-A), never both in one run;
    true: runs may also turn the corner through the ace (K-A-2, Q-K-A-2-3)."""
    naturals_per_meld: str = "at_least_two"
    """'at_least_two': every meld holds at least 2 natural cards (a 4-card set may hold 2
    jokers); 'more_than_jokers': a meld holds more natural cards than jokers."""
    adjacent_jokers: bool = False
    """False: two jokers may not stand side by side in a run (at positions next to each
    other); true: they may. Sets have no order, so this never limits them."""
    come_out_points: int = 30
    """The first melds a player lays (in one turn) must be worth at least this many points
    together (30 is the usual value, 40 a common option; 0 means any meld comes out)."""
    come_out_needs_run: bool = False
    """The first melds must hold at least one run (a house rule); false: sets alone will do."""
    take_discard_before_out: str = "meld"
    """'meld': a player who has not come out may take the top discard only if it is melded
    in that very turn's coming out; 'free': anyone may take it at any time."""
    go_out_without_discard: bool = False
    """False: the last card must be discarded to go out (so every melding turn keeps one
    card for the discard); true: a player may go out by melding or laying off every card."""
    hand_rummy_multiplier: int = 2
    """Going out in a single turn without having come out before ("hand rummy") multiplies
    every other player's penalty by this; 1 turns the double off. Our name for the usual
    double, kept as an option like Basic Rummy's."""
    joker_penalty: int = 20
    """Penalty of a joker left in hand when the hand ends (20; 25 is a common option)."""
    never_out_double: bool = False
    """A player who never came out in the hand pays double (a house rule); false: no extra."""
    hands_per_table: int = 8
    """A table (a series of hands) ends after this many hands; 0 means no fixed number
    (then ``loss_limit`` must end it)."""
    loss_limit: int = 0
    """A table also ends when a player's total falls to minus this (500: at -500 or lower);
    0 means no limit."""
    turnover: str = "shuffle"
    """When the stock runs out, the discard pile but its top card becomes the new stock:
    'shuffle' shuffles it (the usual rule); 'flip' turns it over unshuffled."""
    max_turns: int = 400
    """A hand with no winner after this many turns is a stalemate that scores 0 for
    everyone. Our addition: the usual rules are silent (cards can circulate for ever)."""

    def check(self) -> None:
        if self.jokers > MAX_JOKERS:
            raise ValueError(f"rule option jokers must be 0..{MAX_JOKERS}, got {self.jokers}")
        if self.hand_rummy_multiplier < 1:
            raise ValueError(f"rule option hand_rummy_multiplier must be >= 1, got {self.hand_rummy_multiplier}")
        if self.max_turns < 1:
            raise ValueError(f"rule option max_turns must be >= 1, got {self.max_turns}")
        if self.hands_per_table == 0 and self.loss_limit == 0:
            raise ValueError("rule options hands_per_table and loss_limit are both 0: a table would never end; "
                             "set one of them above 0")

    @property
    def match(self) -> bool:
        """Whether these rules make a match (``episode="match"``, tournaments' ``matches``):
        always, a table (``rummy_env.romme.match``), since ``hands_per_table`` or
        ``loss_limit`` (one of them is above 0, ``check`` sees to it) ends one."""
        return True

    @property
    def num_cards(self) -> int:
        """Cards in the pack: two 52-card decks plus the jokers."""
        return 104 + self.jokers

    def allows_naturals(self, naturals: int, jokers: int) -> bool:
        """Whether a meld of ``naturals`` natural cards and ``jokers`` jokers holds enough
        natural cards under ``naturals_per_meld`` (its size is checked elsewhere)."""
        if self.naturals_per_meld == "at_least_two":
            return naturals >= 2
        return naturals > jokers

    def cards_dealt(self, first_player: bool) -> int:
        """Cards dealt to a player: 13, or 14 to the first player with ``deal_extra_card``."""
        return HAND_SIZE + (1 if first_player and self.deal_extra_card else 0)


def check_num_players(num_players: int) -> int:
    """``num_players`` if it is an integer 2..6, else a ValueError saying what is allowed."""
    return check_players_in_range(num_players, MIN_PLAYERS, MAX_PLAYERS)


OPTION_NAMES = RommeRules.option_names()
RULES_TYPE = RommeRules

PRESETS: dict[str, RommeRules] = {
    "romme": RommeRules(),
    "romme_40": RommeRules(come_out_points=40),
    "romme_40_run": RommeRules(come_out_points=40, come_out_needs_run=True),
}

PRESET_NOTES: dict[str, str] = {
    "romme": "The usual rules: 110 cards with 6 jokers, come out with melds worth 30 points, a hand rummy "
             "doubles the penalties; a table of 8 hands.",
    "romme_40": "As romme, but coming out takes melds worth 40 points.",
    "romme_40_run": "As romme, but coming out takes melds worth 40 points, a run among them.",
}
"""One line per preset, for people choosing one (``Game.preset_note``: the web app's pickers)."""
DEFAULT_PRESET = "romme"

RommeRulesSpec = Union[str, os.PathLike, Mapping[str, Any], RommeRules, None]


def load_romme_rules(spec: RommeRulesSpec = None) -> RommeRules:
    """Rules from a preset name, a YAML file path, a mapping of options or a ``RommeRules``.

    ``None`` gives ``romme``.
    """
    return load_rules_spec(spec, RommeRules, PRESETS, DEFAULT_PRESET, "Rommé rules")
