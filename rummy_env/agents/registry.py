"""Agents by name, per game: ``make("heuristic", game="basic")``, ``make("mcts:simulations=400")``,
``make("hard", game="romme")``.

One naming scheme for every game: a name says the *kind* of agent (``random``,
``heuristic``, ``search``, ``ppo``, ...) and the game comes from where it is used: the
``game`` argument, a tournament's ``game``, ``--game`` at the CLI, the env a Gymnasium
view wraps, the table in the web app. Without one it is ``DEFAULT_GAME`` (Gin Rummy), as
the CLI's ``--game`` defaults; where no game is at hand (``rummy serve --agent
NAME=SPEC``), ``GAME/NAME`` says it in the spec (``basic/ppo:runs/b/policy.pt``). Each game's agent package registers its own kinds
(``register``); an agent written once over the game interface is registered for every
game at once (``register_generic``: the generic ``random`` and ``search``), so a game
added later gets it by registering. A game's own agent of a kind takes precedence over a
generic one of that name.

A spec is ``NAME`` or ``NAME:OPTIONS`` where OPTIONS are ``key=value`` pairs separated by
commas (values parsed as int, float, true/false, else text). An agent whose class names a
``short_option`` also takes ``NAME:VALUE`` for that one option (``ppo:PATH`` is
``ppo:path=PATH``). Difficulty levels (``LEVEL_NAMES``: ``easy`` < ``medium`` < ``hard``
< ``expert``) are names for one game's agent settings (``levels(game)``), each measured
to beat the one below (docs/agents.md). Unknown names or options get an error listing
what is allowed, an option an agent refuses (``Agent.refused_options``: the ``llm``
agent's ``api_key``) one saying what to do instead; an option value of the wrong kind (``simulations=abc``,
``candidates=2.5``) is refused here, against the factory's type hints, before any game
starts; ranges are checked by the agents themselves.

The 0.2 names that carried their game (``rummy-heuristic``, ``romme-random``, ...) are
deprecated aliases (``register_alias``): they still make the same agent, with a
``DeprecationWarning`` naming the new spelling, and they fix the game they stand for.
"""

from __future__ import annotations

import inspect
import math
import os
import types
import typing
import warnings
from typing import Any, Callable, NamedTuple, Optional

from rummy_env.agents.base import Agent
from rummy_env.core.game import DEFAULT_GAME, get_game

LEVEL_NAMES = ("easy", "medium", "hard", "expert")  # weakest first

_FACTORIES: dict[str, dict[str, Callable[..., Agent]]] = {}  # game -> name -> factory
_GENERIC: dict[str, Callable[..., Agent]] = {}  # name -> factory(game=..., seed=..., **options), for every game
_ALIASES: dict[str, tuple[str, str]] = {}  # a deprecated name -> (game, name)
_LEVELS: dict[str, dict[str, str]] = {}  # game -> level -> agent spec


class Resolved(NamedTuple):
    """What a spec comes down to: the game, the registered name (a level's agent), its
    factory and its checked option values (a level's own settings and the spec's)."""

    game: str
    name: str
    factory: Callable[..., Agent]
    options: dict[str, Any]
    generic: bool  # one agent for every game: the factory takes ``game=``


def _game_name(game: Optional[str]) -> str:
    return get_game(DEFAULT_GAME if game is None else game).name


def _taken(name: str, game: Optional[str]) -> bool:
    """Whether ``name`` already means something for ``game``, or for every game when
    ``game`` is None (a generic name). A game's own agent may share a generic agent's name:
    for that game its own is made."""
    if name in _ALIASES or name in LEVEL_NAMES:
        return True
    if game is None:
        return name in _GENERIC
    return name in _FACTORIES.get(game, {}) or name in _LEVELS.get(game, {})


def register(name: str, factory: Callable[..., Agent], game: Optional[str] = None) -> None:
    """Make ``factory(seed=..., **options)`` available as ``make(name, game=game)``. The
    factory (an ``Agent`` class, or any callable with a ``game`` attribute) says which game
    it plays when ``game`` is not given. Names are per game: ``heuristic`` of Basic Rummy
    and ``heuristic`` of Gin Rummy are two registrations."""
    game = game if game is not None else getattr(factory, "game", None)
    if not isinstance(game, str):  # resolved in the game registry when used
        raise TypeError(f"{factory!r} does not say which game it plays (set its class attribute game)")
    game = get_game(game).name
    if _taken(name, game):
        raise ValueError(f"agent name {name!r} is taken for {game}")
    _FACTORIES.setdefault(game, {})[name] = factory


def register_generic(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``factory(game=..., seed=..., **options)`` available as ``make(name, game=g)``
    for every registered game ``g``: an agent written once over the game interface."""
    if _taken(name, None):
        raise ValueError(f"agent name {name!r} is taken")
    _GENERIC[name] = factory


def register_alias(alias: str, game: str, name: str) -> None:
    """Keep the old name ``alias`` working as ``name`` of ``game``, with a deprecation note."""
    if _taken(alias, None):
        raise ValueError(f"agent name {alias!r} is taken")
    _ALIASES[alias] = (get_game(game).name, name)


def register_level(game: str, level: str, spec: str) -> None:
    """Make the difficulty ``level`` (one of ``LEVEL_NAMES``) of ``game`` stand for the
    agent ``spec`` of that game; a game's agent package registers its levels, each measured
    to beat the one below."""
    game = get_game(game).name
    if level not in LEVEL_NAMES:
        raise ValueError(f"level {level!r} is not one of {', '.join(LEVEL_NAMES)}")
    if level in _LEVELS.get(game, {}):
        raise ValueError(f"{game} already has a level {level!r}")
    head = _split(spec)[0]
    if head not in _FACTORIES.get(game, {}) and head not in _GENERIC:
        raise ValueError(f"level {level!r} of {game}: unknown agent {spec!r}; register the agent first")
    _LEVELS.setdefault(game, {})[level] = spec


def levels(game: Optional[str] = None) -> dict[str, str]:
    """The difficulty levels of ``game`` (default ``DEFAULT_GAME``), weakest first: level -> spec."""
    table = _LEVELS.get(_game_name(game), {})
    return {level: table[level] for level in LEVEL_NAMES if level in table}


def available(game: Optional[str] = None, levels: bool = True, required: bool = True) -> list[str]:
    """The agent names ``make`` accepts for ``game`` (default ``DEFAULT_GAME``): the
    game's own, then the generic ones, then its levels (deprecated aliases left out).
    ``required=False`` leaves out the agents that cannot be made without options
    (``Agent.required_options``, such as a policy file)."""
    name = _game_name(game)
    own = list(_FACTORIES.get(name, {}))
    names = own + [n for n in _GENERIC if n not in own]
    if not required:
        names = [n for n in names if not getattr(factory_of(n, name), "required_options", ())]
    if levels:
        names += [lv for lv in LEVEL_NAMES if lv in _LEVELS.get(name, {})]
    return names


def factory_of(name: str, game: Optional[str] = None) -> Callable[..., Agent]:
    """The factory registered as ``name`` for ``game`` (its own, else the generic one)."""
    game = _game_name(game)
    factory = _FACTORIES.get(game, {}).get(name, _GENERIC.get(name))
    if factory is None:
        raise ValueError(f"unknown agent {name!r} for {get_game(game).title}; available: {', '.join(available(game))}")
    return factory


def default_opponent(game: str) -> str:
    """The opponent ``rummy play`` and the web app seat when none is named: the game's
    ``medium`` level, else the last registered of its agents that needs no extra (``Agent.extra``),
    so that every game plays on a bare install."""
    if "medium" in levels(game):
        return "medium"
    return [n for n in available(game, levels=False) if getattr(factory_of(n, game), "extra", None) is None][-1]


def plays(agent_or_factory: Any) -> str:
    """The registered game an agent (or a game's own factory) plays."""
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


def resolve(spec: str, game: Optional[str] = None) -> Resolved:
    """What ``make(spec, game=game)`` makes, checked, without making it: the game, the
    registered name ``spec`` comes down to (a level's agent), its factory and its option
    values. Servers use it to vet a client's spec before making anything
    (``rummy_env.web.choices``). A deprecated alias fixes its own game (another ``game``
    is an error) and warns."""
    head, sep, rest = spec.partition(":") if isinstance(spec, str) else (spec, "", "")
    head = head.strip() if isinstance(head, str) else head
    if isinstance(head, str) and "/" in head:  # GAME/NAME: the game said in the spec itself
        named, _, head = head.partition("/")
        named = get_game(named.strip()).name
        if game is not None and get_game(game).name != named:
            raise ValueError(f"agent {spec!r} is for {get_game(named).title}, not {get_game(game).title}")
        head, spec, game = head.strip(), head.strip() + sep + rest, named
    if isinstance(head, str) and head in _ALIASES:
        aliased, new = _ALIASES[head]
        if game is not None and get_game(game).name != aliased:
            raise ValueError(f"agent {head!r} is {get_game(aliased).title}'s {new!r}, not an agent of "
                             f"{get_game(game).title}; use {new!r} with this game")
        warnings.warn(f"agent name {head!r} is deprecated: it is {new!r} with game {aliased!r} "
                      f"(make({new!r}, game={aliased!r}); --game {aliased} at the command line)",
                      DeprecationWarning, stacklevel=3)
        head, spec, game = new, new + sep + rest, aliased
    game = _game_name(game)
    own = _FACTORIES.get(game, {})
    short = getattr(own.get(head, _GENERIC.get(head)), "short_option", None) if isinstance(head, str) else None
    if short and rest.strip() and "=" not in rest:
        name, options = head, {short: rest.strip()}  # ppo:PATH, the short form of ppo:path=PATH
    else:
        name, options = _split(spec)
    label = repr(name)
    table = _LEVELS.get(game, {})
    if name in table:
        base, base_options = _split(table[name])
        label = f"{name!r} (the {get_game(game).title} level for {base!r})"
        name, options = base, {**base_options, **options}
    elif name in LEVEL_NAMES:
        raise ValueError(f"{get_game(game).title} has no level {name!r}; its levels: {', '.join(levels(game)) or 'none'}")
    if name not in own and name not in _GENERIC:
        elsewhere = [g for g, t in _FACTORIES.items() if name in t]
        hint = f" ({name!r} is an agent of {', '.join(get_game(g).title for g in elsewhere)})" if elsewhere else ""
        raise ValueError(f"unknown agent {name!r} for {get_game(game).title}{hint}; available: {', '.join(available(game))}")
    generic = name not in own
    factory = _GENERIC[name] if generic else own[name]
    refused = getattr(factory, "refused_options", {})
    for key in sorted(set(options) & set(refused)):  # its value is not repeated: it may be a secret
        raise ValueError(f"agent {label} option {key} is refused: {refused[key]}")
    allowed = [p for p in inspect.signature(factory).parameters if not (generic and p == "game")]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"agent {label} has no option(s) {unknown}; its options: {', '.join(allowed)}")
    hints = _type_hints(factory)
    values = {k: _checked_value(label, k, text, hints.get(k, Any)) for k, text in options.items()}
    return Resolved(game, name, factory, values, generic)


def make(spec: str, seed: Optional[int] = None, game: Optional[str] = None) -> Agent:
    """The agent named by ``spec`` (a name, a level, with options) for ``game`` (default
    ``DEFAULT_GAME``), seeded with ``seed``."""
    resolved = resolve(spec, game)
    values = dict(resolved.options)
    seed = values.pop("seed", seed)
    if resolved.generic:
        agent = resolved.factory(game=resolved.game, seed=seed, **values)
    else:
        agent = resolved.factory(seed=seed, **values)
    agent.name = spec
    return agent


def seed_of(spec: str, seed: Optional[int] = None, game: Optional[str] = None) -> Optional[int]:
    """The seed ``make(spec, seed, game)`` gives the agent: the spec's own ``seed`` option if
    it has one, else ``seed``. Tournaments use it to derive an agent's key in each game
    without making an agent per game."""
    return resolve(spec, game).options.get("seed", seed)
