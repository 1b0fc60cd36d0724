"""Agents by name: ``make("heuristic")``, ``make("mcts:simulations=400,seed=3")``, ``make("hard")``.

A spec is ``NAME`` or ``NAME:OPTIONS`` where OPTIONS are ``key=value`` pairs separated by
commas (values parsed as int, float, true/false, else text). An agent whose class names a
``short_option`` also takes ``NAME:VALUE`` for that one option (``ppo:PATH`` is
``ppo:path=PATH``). Difficulty levels are names
for agent settings (``LEVELS``). Unknown names or options get an error listing what is
allowed; an option value of the wrong kind (``simulations=abc``, ``candidates=2.5``) is
refused here, against the factory's type hints, before any game starts; ranges are
checked by the agents themselves.
"""

from __future__ import annotations

import inspect
import math
import os
import types
import typing
from typing import Any, Callable, Optional

from rummy_env.agents.base import Agent
from rummy_env.core.game import get_game

_FACTORIES: dict[str, Callable[..., Agent]] = {}
_HUMANS: dict[str, Callable[..., Agent]] = {}  # game name -> its terminal player

LEVELS: dict[str, str] = {}  # difficulty level -> agent spec; each beats the one below (docs/agents.md)


def register(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``factory(seed=..., **options)`` available as ``make(name)``. The factory (an
    ``Agent`` class, or any callable with a ``game`` attribute) says which game it plays."""
    if name in _FACTORIES or name in LEVELS:
        raise ValueError(f"agent name {name!r} is taken")
    if not isinstance(getattr(factory, "game", None), str):  # resolved in the game registry when used
        raise TypeError(f"{factory!r} does not say which game it plays (set its class attribute game)")
    _FACTORIES[name] = factory


def register_level(name: str, spec: str) -> None:
    """Make the difficulty level ``name`` stand for the agent ``spec`` (``make(name)``);
    a game's agent package registers its levels, each measured to beat the one below."""
    if name in _FACTORIES or name in LEVELS:
        raise ValueError(f"agent name {name!r} is taken")
    if _split(spec)[0] not in _FACTORIES:
        raise ValueError(f"level {name!r}: unknown agent {spec!r}; register the agent first")
    LEVELS[name] = spec


def register_human(game: str, factory: Callable[..., Agent]) -> None:
    """Make ``factory(read=..., write=...)`` the terminal player of ``game`` (``rummy play``)."""
    _HUMANS[get_game(game).name] = factory


def human_player(game: str, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> Agent:
    """A person at the terminal playing ``game``: the game's own player if it registered
    one, else ``TerminalPlayer`` (the game's text view, moves by number)."""
    from rummy_env.agents.human import TerminalPlayer

    played = get_game(game)
    factory = _HUMANS.get(played.name)
    return factory(read=read, write=write) if factory is not None else TerminalPlayer(played, read=read, write=write)


def available(game: Optional[str] = None, levels: bool = True) -> list[str]:
    """Agent names (in the order they were registered) and difficulty levels that ``make``
    accepts; with ``game``, only those that play it (a registered game's name or alias)."""
    if game is None:
        return list(_FACTORIES) + (list(LEVELS) if levels else [])
    name = get_game(game).name
    names = [n for n, factory in _FACTORIES.items() if plays(factory) == name]
    return names + ([lv for lv, spec in LEVELS.items() if plays(_FACTORIES[_split(spec)[0]]) == name] if levels else [])


def default_opponent(game: str) -> str:
    """The opponent ``rummy play`` and the web app seat when none is named: the game's
    ``medium`` level, else the last registered of its agents that needs no extra (``Agent.extra``),
    so that every game plays on a bare install."""
    if "medium" in available(game=game):
        return "medium"
    return [n for n in available(game=game, levels=False) if getattr(_FACTORIES[n], "extra", None) is None][-1]


def plays(agent_or_factory: Any) -> str:
    """The registered game an agent (or its factory) plays."""
    game = getattr(agent_or_factory, "game", None)
    if game is None:
        raise TypeError(f"{agent_or_factory!r} does not say which game it plays (set its class attribute game)")
    return get_game(game).name


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
    name, texts = _split(spec)
    return name, {key: _value(text) for key, text in texts.items()}


def _split(spec: str) -> tuple[str, dict[str, str]]:
    """``'mcts:simulations=400'`` -> ``('mcts', {'simulations': '400'})``: the values as typed."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a non-empty string such as 'heuristic', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent option {part!r} in {spec!r} must look like key=value")
        options[key.strip()] = value.strip()
    return name, options


# what each kind of option accepts, in the words of the error message
_KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def _accepted(hint: Any) -> set[type]:
    """The value kinds (of ``_KINDS``) a type hint allows: ``Optional[int]`` -> {int}; a hint
    of no such kind (``Any``, a class) allows them all and leaves the check to the agent."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return set().union(*(_accepted(h) for h in typing.get_args(hint)))
    if hint is type(None):
        return set()
    if isinstance(hint, type) and issubclass(hint, os.PathLike):
        return {str}
    return {hint} if hint in _KINDS else set(_KINDS)


def _checked_value(label: str, key: str, text: str, hint: Any) -> Any:
    """The option as typed, read as the option's type, or a ValueError naming the option and
    what it takes. Text options keep the text as typed (``path=007`` stays ``'007'``)."""
    value = _value(text)
    kinds = _accepted(hint)
    if isinstance(value, bool):
        ok = bool in kinds
    elif isinstance(value, int):
        ok = int in kinds or float in kinds
    elif isinstance(value, float):
        ok = float in kinds
    else:
        ok = str in kinds
    if not ok and str in kinds:  # a path or name that happens to read as a number
        return text
    if not ok:
        wanted = " or ".join(_KINDS[k] for k in _KINDS if k in kinds)
        raise ValueError(f"agent {label} option {key}={value!r} must be {wanted}")
    if isinstance(value, float) and not math.isfinite(value):  # inf or nan: no setting means that
        raise ValueError(f"agent {label} option {key}={text} must be a finite number")
    return float(value) if isinstance(value, int) and not isinstance(value, bool) and int not in kinds else value


def _type_hints(factory: Callable[..., Agent]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(factory.__init__ if isinstance(factory, type) else factory)
    except Exception:  # hints that do not resolve: leave the values as parsed
        return {}


def resolve(spec: str) -> tuple[str, Callable[..., Agent], dict[str, Any]]:
    """The registered name ``spec`` comes down to (a level's agent), its factory and its
    option values (a level's own settings and the spec's), checked: what ``make`` makes.
    Servers use it to vet a client's spec before making anything (``rummy_env.web.choices``)."""
    head, _, rest = spec.partition(":") if isinstance(spec, str) else (spec, "", "")
    short = getattr(_FACTORIES.get(head.strip()), "short_option", None) if isinstance(head, str) else None
    if short and rest.strip() and "=" not in rest:
        name, options = head.strip(), {short: rest.strip()}  # ppo:PATH, the short form of ppo:path=PATH
    else:
        name, options = _split(spec)
    label = repr(name)
    if name in LEVELS:
        base, base_options = _split(LEVELS[name])
        label = f"{name!r} (the level for {base!r})"
        name, options = base, {**base_options, **options}
    if name not in _FACTORIES:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(available())}")
    factory = _FACTORIES[name]
    allowed = list(inspect.signature(factory).parameters)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"agent {label} has no option(s) {unknown}; its options: {', '.join(allowed)}")
    hints = _type_hints(factory)
    return name, factory, {k: _checked_value(label, k, text, hints.get(k, Any)) for k, text in options.items()}


def make(spec: str, seed: Optional[int] = None) -> Agent:
    """The agent named by ``spec`` (a name, a level, with options), seeded with ``seed``."""
    _, factory, values = resolve(spec)
    seed = values.pop("seed", seed)
    agent = factory(seed=seed, **values)
    agent.name = spec
    return agent


def seed_of(spec: str, seed: Optional[int] = None) -> Optional[int]:
    """The seed ``make(spec, seed)`` gives the agent: the spec's own ``seed`` option if it has
    one, else ``seed``. Tournaments use it to derive an agent's key in each game without
    making an agent per game."""
    return resolve(spec)[2].get("seed", seed)
