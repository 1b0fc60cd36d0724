"""Agents by name: ``make("heuristic")``, ``make("mcts:simulations=400,seed=3")``, ``make("hard")``.

A spec is ``NAME`` or ``NAME:OPTIONS`` where OPTIONS are ``key=value`` pairs separated by
commas (values parsed as int, float, true/false, else text). Difficulty levels are names
for agent settings (``LEVELS``). Unknown names or options get an error listing what is
allowed.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

from agents.base import Agent

_FACTORIES: dict[str, Callable[..., Agent]] = {}

# Difficulty levels: each beats the one below (README: measured win rates).
LEVELS = {
    "easy": "random",
    "medium": "simple",
    "hard": "heuristic",
    "expert": "mcts",
}


def register(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``factory(seed=..., **options)`` available as ``make(name)``."""
    if name in _FACTORIES or name in LEVELS:
        raise ValueError(f"agent name {name!r} is taken")
    _FACTORIES[name] = factory


def available() -> list[str]:
    """Agent names and difficulty levels that ``make`` accepts."""
    return sorted(_FACTORIES) + list(LEVELS)


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``'mcts:simulations=400'`` -> ``('mcts', {'simulations': 400})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string such as 'heuristic', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent option {part!r} in {spec!r} must look like key=value")
        options[key.strip()] = _value(value.strip())
    return name, options


def make(spec: str, seed: Optional[int] = None) -> Agent:
    """The agent named by ``spec`` (a name, a level, with options), seeded with ``seed``."""
    head, _, rest = spec.partition(":") if isinstance(spec, str) else (spec, "", "")
    if head.strip() == "ppo" and rest.strip() and "=" not in rest:
        name, options = "ppo", {"path": rest.strip()}  # ppo:PATH, the short form
    else:
        name, options = parse_spec(spec)
    if name in LEVELS:
        base, base_options = parse_spec(LEVELS[name])
        name, options = base, {**base_options, **options}
    if name not in _FACTORIES:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(available())}")
    factory = _FACTORIES[name]
    allowed = list(inspect.signature(factory).parameters)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"agent {name!r} has no option(s) {unknown}; its options: {', '.join(allowed)}")
    seed = options.pop("seed", seed)
    agent = factory(seed=seed, **options)
    agent.name = spec
    return agent
