"""Tournament settings: one dataclass, from the command line or a YAML file.

The fields that decide which games are played (``IDENTITY``) are written at the top of
``results.jsonl``; a rerun with other values is refused instead of mixing results.
Workers, backend and batch may change between runs: every game's outcome depends only on
its own seeds, so results are the same whatever runs them.

``game`` is any registered game (``rummy_env.core.game``: ``gin``, the default, or
``basic``, alias ``rummy``). A game for two players only is played in pairs (each deal
twice, seats swapped); a game for more is played at tables of ``players_per_table``
agents (each deal once per seat rotation). The header of a Gin tournament holds no
``game`` (as in 0.1, so its results files resume unchanged); other games add ``game``
and ``players_per_table``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Optional

import numpy as np

from rummy_env.core.game import DEFAULT_GAME, games, get_game  # DEFAULT_GAME: a results header without a game is Gin's (0.1 wrote none)
from rummy_env.core.yaml_files import read_mapping

MODES = ("hands", "matches")
FORMATS = ("round_robin", "gauntlet")
BACKENDS = ("local", "ray")
BATCH = ("auto", "off")
IDENTITY = ("agents", "candidates", "format", "rules", "mode", "deals", "seed", "record")


@dataclass
class TournamentConfig:
    agents: list[str]
    """Agent specs (``agents.make``), e.g. ``["simple", "heuristic", "mcts:simulations=200"]``."""
    out: str = "runs/tournament"
    """Folder for results.jsonl, summary.json, report.md, pairs.csv and the plots."""
    rules: Optional[str] = None
    """Rules preset name or YAML path (default: the game's default preset, ``classic`` for
    Gin Rummy, ``basic`` for Basic Rummy)."""
    mode: str = "hands"
    """'hands' (one hand per game) or 'matches' (a whole match per game: to the target
    score; in Rommé a table of hands)."""
    deals: int = 100
    """Deals per pair; each is played twice with the seats swapped (duplicate). Rerunning a
    tournament with more deals grows it: its games are kept and the new deals played."""
    format: str = "round_robin"
    """'round_robin' (every pair) or 'gauntlet' (each candidate against every other agent)."""
    candidates: list[str] = field(default_factory=list)
    """Gauntlet only: the agents under test (each must also be in ``agents``)."""
    seed: int = 0
    """Deals and agent seeds derive from it: same seed, same games."""
    workers: int = 1
    """Local worker processes (backend 'local')."""
    backend: str = "local"
    """'local' (processes on this machine) or 'ray' (needs the ray extra)."""
    address: Optional[str] = None
    """Ray only: address of an existing cluster (default: start a local instance)."""
    record: bool = True
    """Keep every game's deck order and actions in results.jsonl (replayable)."""
    game: str = DEFAULT_GAME
    """A registered game: 'gin' (Gin Rummy, the default) or 'basic' (Basic Rummy; 'rummy'
    is accepted too). Stored by its registry name."""
    players_per_table: int = 2
    """Agents at each table, within the game's player counts (Basic Rummy: 2..4; Gin
    Rummy: 2). At tables, every group of that many agents meets (a gauntlet: every group
    with a candidate) and each deal is played once per seat rotation."""
    batch: str = "auto"
    """'auto': play the games of a pair or table thousands at once on the game's batch engine
    when the game has one (Gin Rummy: its random, simple, heuristic:knock=turn and ppo; Basic
    Rummy: its random and heuristic; Rommé: its random and heuristic), the games are single
    hands (mode 'hands') and every agent at the table has an array version; every other game
    one at a time. 'off': every game one at a time. The results are the same either way."""

    def __post_init__(self) -> None:
        self.check_types()
        if len(self.agents) < 2:
            raise ValueError(f"a tournament needs at least 2 agents, got {self.agents}")
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"agents are listed twice: {self.agents}")
        from rummy_env import agents as registry

        game = get_game(self.game)  # an unknown game names the registered ones
        self.game = game.name
        for spec in self.agents:
            registry.make(spec, game=game.name)  # a bad spec fails now, naming what is allowed
        if self.rules is None:
            self.rules = game.default_preset
        try:
            game.check_num_players(self.players_per_table)
        except ValueError as exc:
            raise ValueError(f"players_per_table must be {game.players_text} for {game.title} ({exc})") from None
        if self.players_per_table > len(self.agents):
            raise ValueError(f"players_per_table {self.players_per_table} is more than the {len(self.agents)} agents")
        rules = game.load_rules(self.rules)
        for name, value, allowed in (("mode", self.mode, MODES), ("format", self.format, FORMATS),
                                     ("backend", self.backend, BACKENDS), ("batch", self.batch, BATCH)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        if self.mode == "matches" and not rules.match:
            raise ValueError(f"mode 'matches' needs rules with a target score; {self.rules!r} has none")
        if self.format == "gauntlet":
            missing = [c for c in self.candidates if c not in self.agents]
            if not self.candidates or missing:
                raise ValueError(f"a gauntlet needs candidates that are among the agents; not found: {missing or 'none given'}")
        elif self.candidates:
            raise ValueError("candidates are only for format 'gauntlet'")

    def check_types(self) -> None:
        """Refuse a setting of the wrong type, naming it and what is allowed, before anything
        uses it (a YAML file can give any value: ``deals: two``, ``agents: random``). Run
        again by ``run`` before it writes, in case a setting was changed since."""
        for name in ("agents", "candidates"):
            specs = getattr(self, name)
            example = "e.g. [random, simple]" if name == "agents" else "e.g. [heuristic]"
            if isinstance(specs, str):
                raise ValueError(f"{name} must be a list of agent specs, {example}; got the text {specs!r}")
            if not isinstance(specs, (list, tuple)) or not all(isinstance(a, str) and a for a in specs):
                raise ValueError(f"{name} must be a list of agent specs, {example}; got {specs!r}")
            setattr(self, name, list(specs))
        for name, least in (("deals", 1), ("workers", 1), ("seed", 0), ("players_per_table", 2)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                raise ValueError(f"{name} must be a whole number >= {least}, got {value!r}")
            setattr(self, name, int(value))
        if not isinstance(self.record, (bool, np.bool_)):
            raise ValueError(f"record must be true or false, got {self.record!r}")
        self.record = bool(self.record)
        if not isinstance(self.game, str):
            raise ValueError(f"game must be the name of a game ({', '.join(games())}), got {self.game!r}")
        if isinstance(self.rules, PathLike):
            self.rules = str(self.rules)
        if self.rules is not None and not isinstance(self.rules, (str, Mapping)):
            raise ValueError(f"rules must be a preset name, a YAML path or a mapping of rule options, got {self.rules!r}")
        if isinstance(self.out, PathLike):
            self.out = str(self.out)
        if not isinstance(self.out, str) or not self.out:
            raise ValueError(f"out must be a folder path, got {self.out!r}")
        if self.address is not None and not isinstance(self.address, str):
            raise ValueError(f"address must be text (a Ray address) or null, got {self.address!r}")

    @property
    def pairs_format(self) -> bool:
        """Whether games are pairs with seats swapped (a game for two players only), not tables."""
        return get_game(self.game).max_players == 2

    def identity(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in IDENTITY}
        if self.game != DEFAULT_GAME:
            out.update(game=self.game, players_per_table=self.players_per_table)
        return out

    def tables(self) -> list[tuple[int, ...]]:
        """The agent indices of each table (every group of ``players_per_table``)."""
        groups = itertools.combinations(range(len(self.agents)), self.players_per_table)
        if self.format == "round_robin":
            return list(groups)
        cand = {self.agents.index(c) for c in self.candidates}
        return [g for g in groups if cand & set(g)]

    def pairs(self) -> list[tuple[int, int]]:
        """Index pairs (i, j) of agents that meet."""
        n = len(self.agents)
        if self.format == "round_robin":
            return [(i, j) for i in range(n) for j in range(i + 1, n)]
        cand = [self.agents.index(c) for c in self.candidates]
        out = []
        for i in cand:
            for j in range(n):
                if j != i and not (j in cand and j < i):
                    out.append((i, j))
        return out

    @property
    def out_dir(self) -> Path:
        return Path(self.out)


def load_config(path: Optional[str] = None, **overrides: Any) -> TournamentConfig:
    """Settings from a YAML file (optional) with command-line values taking precedence."""
    data: dict[str, Any] = {}
    if path is not None:
        data.update(read_mapping(path, "tournament config"))
    data.update({k: v for k, v in overrides.items() if v is not None})
    names = {f.name for f in dataclasses.fields(TournamentConfig)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"unknown tournament setting(s) {unknown}; allowed: {', '.join(sorted(names))}")
    if "agents" not in data:
        raise ValueError("no agents given: use --agents A B ... or 'agents:' in the config file")
    return TournamentConfig(**data)
