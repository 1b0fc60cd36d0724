"""The agents a web client may seat: the registry's names and levels, with options that
name no file and buy no more thinking than the server allows, plus the agents the server's
operator named when starting it (``rummy serve --agent NAME=SPEC``).

Why a list and not any spec: every HTTP client is hostile. A spec can name a file
(``ppo:PATH``: the server would read any file it can, and say whether it exists) or ask
for unbounded work (``mcts:time=1e9``). So a client's spec is vetted before anything is
made: its agent must be one the server offers for the game, an option that names a file
(``Agent.file_options``) is refused, as is any text that is not a plain word (a file name
has a dot or a slash), and each option that buys thinking (``Agent.costs``: rough seconds
per unit in that game, so a search buys more playouts of a cheap game's hands) must be a
finite number within the server's ``max_think`` seconds a move. Policy files are offered
by the operator, by name, and a client picks the name; the operator's agents are made once at start, so a bad one fails
then, in one line.
"""

from __future__ import annotations

import inspect
import logging
import math
import re
import warnings
from typing import Any, Mapping, Optional, Sequence

from rummy_env import agents
from rummy_env.core.game import Game, games, get_game
from rummy_env.web import MAX_THINK
from rummy_env.web.sessions import WebError

LOG = logging.getLogger("rummy_env.web")
MAX_SPEC = 200  # characters in a client's agent spec
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")
WORD = re.compile(r"[A-Za-z0-9_-]{1,40}")  # the text a client may give an option: a word, never a file name


class AgentChoices:
    """What clients may choose: the registry's agents and ``named`` (operator NAME -> SPEC),
    thinking bounded by ``max_think`` seconds a move."""

    def __init__(self, named: Optional[Mapping[str, str]] = None, max_think: float = MAX_THINK) -> None:
        if not (isinstance(max_think, (int, float)) and 0 < max_think < math.inf):
            raise ValueError(f"--max-think must be a number of seconds > 0, got {max_think!r}")
        self.max_think = float(max_think)
        self.named: dict[str, tuple[str, str]] = {}  # NAME -> (SPEC, the game it plays)
        for name, spec in (named or {}).items():
            self.named[name] = (spec, self._check_named(name, spec))

    def _check_budgets(self, spec: str, game: Game) -> None:
        """A 400 when an option of ``spec`` that buys thinking (``Agent.costs``) asks for
        more than ``max_think`` seconds a move, or is not a finite number; the message names
        the range allowed. An option the spec leaves out counts at the agent's default (a
        level's own settings included), so a bare name cannot buy more either. Specs that do
        not parse are left to ``agents.resolve``."""
        try:
            with warnings.catch_warnings():  # a deprecated name warns once, when it is made
                warnings.simplefilter("ignore", DeprecationWarning)
                try:
                    resolved = agents.resolve(spec, game.name)
                    factory, options = resolved.factory, resolved.options
                except ValueError:  # a value resolve refuses (inf, nan): as typed, to name the range
                    options = agents.parse_spec(spec)[1]
                    factory = agents.resolve(spec.partition(":")[0], game.name).factory
        except ValueError:
            return
        defaults = {p.name: p.default for p in inspect.signature(factory).parameters.values()}
        costs = factory.costs(game.name, {**defaults, **options}) if hasattr(factory, "costs") else {}
        for key, cost in costs.items():
            value = options.get(key, defaults.get(key))
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue  # absent (no default: time=None), or text: resolve names what it must be
            limit = self.max_think / cost
            limit = math.floor(limit) if isinstance(value, int) else limit
            if not value <= limit:  # nan too
                given = "" if key in options else " (its default)"
                raise WebError(400, f"agent {spec!r}: {key}={value:g}{given} is not allowed here: {key} may be at "
                                    f"most {limit:g} on this server (about {self.max_think:g} s of thinking a move: "
                                    "the operator sets rummy serve --max-think SECONDS)")

    def _within_budget(self, spec: str, game: Game) -> bool:
        try:
            self._check_budgets(spec, game)
        except WebError:
            return False
        return True

    @staticmethod
    def parse(pairs: Sequence[str]) -> dict[str, str]:
        """``["NAME=SPEC", ...]`` (``rummy serve --agent``) as a mapping; a ValueError naming
        the bad entry."""
        named: dict[str, str] = {}
        for pair in pairs:
            name, eq, spec = pair.partition("=")
            name, spec = name.strip(), spec.strip()
            if not eq or not name or not spec:
                raise ValueError(f"--agent {pair!r} must look like NAME=SPEC, e.g. --agent mybot=ppo:runs/x/policy.pt "
                                 "(GAME/ before the agent for a game other than Gin: mybot=basic/ppo:runs/b/policy.pt)")
            if name in named:
                raise ValueError(f"--agent {name!r} is named twice")
            named[name] = spec
        return named

    @staticmethod
    def _check_named(name: str, spec: str) -> str:
        """The game the operator's agent ``spec`` plays, after making it once (a missing or
        unsafe file fails here, at start)."""
        if not NAME.fullmatch(name):
            raise ValueError(f"--agent {name}={spec}: a name is a letter, then up to 39 letters, digits, '_', '.' "
                             "or '-'")
        if any(name in agents.available(g) for g in games()):
            raise ValueError(f"--agent {name}={spec}: {name!r} is already an agent or level; choose another name")
        try:
            agent = agents.make(spec)
        except (ValueError, TypeError, OSError, ImportError) as exc:
            raise ValueError(f"--agent {name}={spec}: {exc}") from None
        return agents.plays(agent)

    def names(self, game: Game) -> list[str]:
        """The agents offered for ``game``: the registry's (names, then levels) that can be made
        as they are within this server's thinking limit, then the operator's. (A search whose
        default costs more is still there with a smaller budget: ``search:simulations=10``.)"""
        offered = [n for n in agents.available(game=game.name, required=False) if self._within_budget(n, game)]
        return offered + self.operators(game)

    def operators(self, game: Game) -> list[str]:
        """The operator's agents (``rummy serve --agent``) that play ``game``."""
        return [n for n, (_, g) in self.named.items() if g == game.name]

    def make(self, spec: Any, game: Game, seed: Optional[int]) -> tuple[agents.Agent, str]:
        """The agent a client's ``spec`` asks for in ``game`` and the name to show for it, or
        a 400 naming what is wrong and what is allowed."""
        if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC:
            raise WebError(400, f"an agent spec is a name such as 'heuristic' with options after a colon, at most "
                                f"{MAX_SPEC} characters; got {str(spec)[:60]!r}")
        spec = spec.strip()
        head, _, rest = spec.partition(":")
        if head.strip() in self.named:
            if rest.strip():
                raise WebError(400, f"agent {head.strip()!r} is set by this server's operator and takes no options")
            named, plays = self.named[head.strip()]
            if plays != game.name:
                raise WebError(400, f"agent {head.strip()!r} plays {get_game(plays).title}, not {game.title}; "
                                    f"choose one of {', '.join(self.names(game))}")
            try:
                return agents.make(named, seed=seed), head.strip()
            except (ValueError, TypeError, OSError, ImportError):  # its file changed since the start: the log says how
                LOG.exception("the operator's agent %s=%s could not be made", head.strip(), named)
                raise WebError(503, f"agent {head.strip()!r} cannot be made on this server now (its log says why)") from None
        self._check_budgets(spec, game)  # first: inf and nan are refused naming the range allowed
        try:
            with warnings.catch_warnings():  # a deprecated name is a client's choice, not the server's log's concern
                warnings.simplefilter("ignore", DeprecationWarning)
                resolved = agents.resolve(spec, game.name)
        except ValueError as exc:
            raise WebError(400, f"agent {spec!r}: {exc}; this server offers {', '.join(self.names(game))}") from None
        factory = resolved.factory
        for key, value in resolved.options.items():
            if key in getattr(factory, "file_options", ()) or (isinstance(value, str) and not WORD.fullmatch(value)):
                offered = ", ".join(self.operators(game)) or "none"
                raise WebError(400, f"agent {spec!r}: {key}={value} names a file, or is text other than a word, which "
                                    f"a web client cannot give; the server's operator offers files by name "
                                    f"(rummy serve --agent NAME=SPEC; offered here: {offered})")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                return agents.make(spec, seed=seed, game=game.name), spec
        except (ValueError, TypeError, OSError, ImportError) as exc:
            raise WebError(400, f"agent {spec!r}: {exc}") from None
