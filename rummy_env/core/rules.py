"""What every game's rule options share: a frozen, validated dataclass, and one loader for
presets, YAML files and mappings.

Why one base: the games' options differ, but users set them the same way everywhere
(``rules="eaai"``, a YAML path, a mapping, ``preset: NAME`` plus overrides) and must get
the same checks and errors: a wrong type, a negative count or an unknown option name is
refused naming the option and what is allowed, never ignored.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar, Union

from rummy_env.core.yaml_files import read_mapping

R = TypeVar("R", bound="RuleOptions")


@dataclasses.dataclass(frozen=True)
class RuleOptions:
    """Base of a game's rules dataclass. Fields are ``int`` (>= 0), ``bool`` or ``str`` (one
    of ``choices[name]``); a subclass adds its own range checks in ``check`` and names
    itself in ``label`` (errors say "unknown {label}rule option")."""

    label: ClassVar[str] = ""
    choices: ClassVar[dict[str, tuple[str, ...]]] = {}

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
            allowed = self.choices.get(f.name)
            if allowed is not None and value not in allowed:
                raise ValueError(f"rule option {f.name} must be {' or '.join(repr(a) for a in allowed)}, got {value!r}")
        self.check()

    def check(self) -> None:
        """The subclass's own range checks (raise ValueError naming the option)."""

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def checked_keys(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(options) - set(cls.option_names()))
        if unknown:
            raise ValueError(f"unknown {cls.label}rule option(s) {unknown}; allowed: {', '.join(cls.option_names())}")
        return dict(options)

    def replace(self: R, **changes: Any) -> R:
        """A copy with some options changed (validated like the constructor)."""
        return dataclasses.replace(self, **self.checked_keys(changes))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


RulesLike = Union[str, os.PathLike, Mapping[str, Any], RuleOptions, None]


def load_rules_spec(spec: RulesLike, kind: type[R], presets: Mapping[str, R], default: str, what: str) -> R:
    """An instance of ``kind`` from None (the ``default`` preset), itself, a mapping of
    options (``preset: NAME`` as the base, else the default), a preset name or a YAML path
    holding such a mapping. ``what`` names the kind in errors ("rules", "Basic Rummy rules")."""

    def from_mapping(options: Mapping[str, Any]) -> R:
        options = dict(options)
        base = load_rules_spec(options.pop("preset", default), kind, presets, default, what)
        return base.replace(**options)

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
            return from_mapping(read_mapping(path, "rules file", "rule options"))
        raise ValueError(f"unknown {what} {spec!r}: use a preset ({', '.join(presets)}) or a YAML file path")
    raise TypeError(f"{what} must be a preset name, a YAML path, a mapping or a {kind.__name__}, got {type(spec).__name__}")
