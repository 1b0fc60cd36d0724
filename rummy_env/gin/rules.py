"""Rule options of Gin Rummy (../shared/RULES.md) as one frozen, validated dataclass.

Every option of the spec's table is a field with its ``classic`` default. Named presets
let results be compared with published work: ``classic`` (the popular online rules),
``eaai`` (the EAAI-2021 Gin Rummy AI competition) and ``openspiel`` (one hand scored as
OpenSpiel's gin_rummy scores it). The YAML files in ``configs/rules/`` hold the same
presets (a test keeps them equal) and show the file format: option names as keys,
optionally ``preset: NAME`` to start from a preset and override some options.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import yaml

MAX_KNOCK_LIMIT = 20  # the highest limit played; above it nearly every hand could knock at once


@dataclass(frozen=True)
class Rules:
    """All rule options; construct with keywords, or use ``load_rules``."""

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

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            expected = bool if f.type in ("bool", bool) else int if f.type in ("int", int) else str
            if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"rule option {f.name} must be an integer, got {value!r}")
            if expected is not int and not isinstance(value, expected):
                raise TypeError(f"rule option {f.name} must be {expected.__name__}, got {value!r}")
            if expected is int and value < 0:
                raise ValueError(f"rule option {f.name} must be >= 0, got {value}")
        if self.aces not in ("low", "high"):
            raise ValueError(f"rule option aces must be 'low' or 'high', got {self.aces!r}")
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

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some options changed (validated like the constructor)."""
        return dataclasses.replace(self, **_checked_keys(changes))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(Rules))

PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "eaai": Rules(big_gin_bonus=0, game_bonus=0, line_bonus=0, shutout=False),
    "openspiel": Rules(big_gin_bonus=0, undercut_on_tie=False, target_score=0),
}

RulesSpec = Union[str, os.PathLike, Mapping[str, Any], Rules, None]


def _checked_keys(options: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"unknown rule option(s) {unknown}; allowed: {', '.join(OPTION_NAMES)}")
    return dict(options)


def rules_from_mapping(options: Mapping[str, Any]) -> Rules:
    """Rules from a mapping of option names, optionally ``preset: NAME`` as the base."""
    options = dict(options)
    base = load_rules(options.pop("preset", "classic"))
    return base.replace(**options)


def load_rules(spec: RulesSpec = None) -> Rules:
    """Rules from a preset name, a YAML file path, a mapping of options or a ``Rules``.

    ``None`` gives ``classic``.
    """
    return load_spec(spec, Rules, PRESETS, "classic", rules_from_mapping, "rules")


def load_spec(spec: Any, kind: type, presets: Mapping[str, Any], default: str,
              from_mapping: Any, what: str) -> Any:
    """The loader behind ``load_rules`` and Basic Rummy's ``load_rummy_rules``: an instance of
    ``kind`` from None (``default``), itself, a mapping, a preset name or a YAML path."""
    if spec is None:
        return presets[default]
    if isinstance(spec, kind):
        return spec
    if isinstance(spec, Mapping):
        return from_mapping(spec)
    if isinstance(spec, str) and spec in presets:
        return presets[spec]
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        if path.suffix in (".yaml", ".yml") or path.exists():
            if not path.is_file():
                raise FileNotFoundError(f"rules file {str(path)!r} not found")
            data = yaml.safe_load(path.read_text()) or {}
            if not isinstance(data, Mapping):
                raise ValueError(f"rules file {str(path)!r} must hold a mapping of option names, got {type(data).__name__}")
            return from_mapping(data)
        raise ValueError(f"unknown {what} {spec!r}: use a preset ({', '.join(presets)}) or a YAML file path")
    raise TypeError(f"{what} must be a preset name, a YAML path, a mapping or a {kind.__name__}, got {type(spec).__name__}")
