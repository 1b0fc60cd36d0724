"""The game interface: what every game provides, and the registry of games by name.

Why: everything above the games (the PettingZoo AEC base, the agents registry,
tournaments, results records, replay, reports, ``rummy play`` and the CLI's ``--game``)
reaches a game only through a ``Game`` got from ``get_game(name)``. So a new game is one
new package that subclasses ``Game`` and calls ``register_game``: it then plays in
tournaments, replays, ``rummy play`` and the generic conformance tests
(tests/core/test_conformance.py: PettingZoo's api and seed tests, invariants over random
games, no-leak by perturbing hidden cards, replay of recorded games) without a line
changed elsewhere.

A ``Game`` gives:

- its rules: ``load_rules(spec)`` (a preset name, YAML path, mapping or rules object),
  ``presets``, ``default_preset``; a variant is one more preset (``add_preset``);
- dealing: ``deal(rules, num_players, seed=..., deck=..., dealer=...)`` -> a ``GameState``
  (from a seed or generator, or an explicit deck order), and ``new_match``;
- the state's own protocol (``GameState``): legal actions and mask, ``step``, ``clone``,
  ``information_set(player)``, the hand's ``result`` (a ``HandResult``), ``render``;
- hidden cards: ``sample_world(information_set, rules, rng)``, a full state consistent with
  what one player knows (for determinised search), and ``redeal_hidden(state, player,
  rng)``, the true state with the cards that player cannot know dealt differently (for
  no-leak tests); by default the state class's own methods of those names;
- names and text: ``action_name``, ``describe_move`` (as the other players see it),
  ``explain(hand_result, names)``, ``shortcuts``, the letters a person types for its
  moves at the terminal (``rummy play``), and ``rules_summary``, the rules in brief for a
  language model's prompt (the ``llm`` agent);
- its envs and encoders: ``raw_env``/``env`` and ``encodings`` (name -> ``Encoding``;
  ``add_encoding`` registers one more);
- ``outcomes``: the names a ``HandResult.outcome`` can take, in report order;
- for people's screens (the web app, ``rummy serve``): ``view(information_set, rules)``,
  one seat's table as JSON built from its information set alone, and ``move_view``, how
  a legal move is offered (``rummy_env.core.view`` describes both shapes);
- for ``rummy train``, optionally its own training adapter (``training_module``: its
  own network, a vector rollout source); without one the generic trainer plays its hands
  over this interface alone;
- optionally, a vector engine of its own (``vector_module``): many hands stepped as
  arrays (``rummy_env.core.vector``), which the conformance suite plays against the pure
  game; ``vector`` gives it, or for a game without one its pure hands in a loop;
- optionally, many hands at once: a game with a batch engine sets ``batched`` and
  implements ``play_batched``, which plays many dealt hands together with agents' array
  policies (``BatchPolicy``: an agent's decisions over many games at once, offered by
  ``Agent.batch_policy``). Tournaments use it when every agent of a pair has one;
  other games, and other agents, play one hand at a time.

The package ``rummy_env`` lists its own games with ``provide_games``; games from other
packages register through the entry-point group ``rummy_env.games`` (``ENTRY_POINTS``:
each entry point a module that calls ``register_game`` on import). Both are imported on
the first lookup, so ``rummy_env.core`` names no game.
"""

from __future__ import annotations

import importlib
import warnings
from abc import ABC, abstractmethod
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any, Iterator, Mapping, NamedTuple, Optional, Protocol, Sequence, Union, runtime_checkable

import numpy as np

from rummy_env.core.errors import IllegalActionError  # noqa: F401  (part of the interface: imported from here)

Seed = Union[int, np.random.Generator, None]

DEFAULT_GAME = "gin"  # the game meant where none is named: the CLI's --game, agent specs, a 0.1 results file


def check_num_players(num_players: int, low: int, high: int) -> int:
    """``num_players`` if it is an integer in ``low..high``, else a ValueError saying what is allowed."""
    if isinstance(num_players, bool) or not isinstance(num_players, int) or not low <= num_players <= high:
        allowed = f"an integer {low}..{high}" if low < high else str(low)
        raise ValueError(f"num_players must be {allowed}, got {num_players!r}")
    return num_players


@runtime_checkable
class HandResult(Protocol):
    """How a hand ended: ``winner`` (a seat or None), its ``points``, zero-sum ``rewards`` per
    seat, ``outcome`` (one of the game's ``outcomes``) and ``to_dict()`` for records."""

    outcome: str
    winner: Optional[int]
    points: int

    @property
    def rewards(self) -> tuple[int, ...]: ...

    def to_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class GameState(Protocol):
    """One hand of a game: the single source of truth for its rules."""

    rules: Any
    num_players: int
    dealer: int
    current_player: int
    deck: Optional[tuple[int, ...]]  # the deal order, when the state was dealt (None for sampled worlds)
    result: Optional[HandResult]

    @property
    def is_over(self) -> bool: ...

    @property
    def actions(self) -> list[int]:
        """Every action played this hand, in order: with ``deck`` and ``dealer`` it replays the hand."""

    def legal_actions(self) -> list[int]: ...

    def legal_mask(self) -> np.ndarray: ...

    def is_legal(self, action: int) -> bool: ...

    def step(self, action: int) -> None: ...

    def clone(self) -> "GameState": ...

    def information_set(self, player: int) -> Any: ...

    def card_places(self) -> dict[str, list[int]]:
        """Where every card of the deck is now (place name -> card ids): the places
        partition the deck, an invariant the conformance tests check after every move.
        Each seat's hand is named ``hand {seat}`` and the stock ``stock`` (what the
        conformance tests take for the places other players cannot see)."""

    def redeal_hidden(self, player: int, rng: np.random.Generator) -> "GameState":
        """A copy with the cards ``player`` cannot know dealt differently among their places."""

    @classmethod
    def sample_from_information_set(cls, info: Any, rules: Any, rng: np.random.Generator) -> "GameState":
        """A full state consistent with ``info``, the hidden cards dealt at random."""

    def render(self, perspective: Optional[int] = None) -> str: ...


@runtime_checkable
class Match(Protocol):
    """Hands added up until the rules end the match (a target score; Rommé: a number of
    hands or a loss limit): ``new_hand`` deals the next one (dealer rotating), ``record``
    books its result, ``result()`` once ``is_over``."""

    dealer: int

    @property
    def is_over(self) -> bool: ...

    def new_hand(self, rng: np.random.Generator) -> GameState: ...

    def record(self, result: HandResult) -> None: ...

    @property
    def points(self) -> Sequence[int]:
        """The running score per seat (what observations and infos show during the match)."""

    def result(self) -> Any:
        """The final result: ``winner``, ``scores`` (per seat, what decides the match),
        ``bonus_rewards`` (per seat, zero-sum: what the env adds to the last hand's rewards
        so that each return is what the match awards) and ``to_dict()``."""


@runtime_checkable
class Encoding(Protocol):
    """An observation encoder: a player's information set -> float32 array.

    Built from the information set alone, so it cannot show a card the player does not
    know. ``scores`` are the match points per seat (None outside a match): the match's
    ``points`` (a game's match may give a tuple that carries more, as Rommé's hands
    played). ``high(rules)`` bounds every entry from above; an encoding whose entries can
    be negative also has ``low(rules)`` (without it the lower bound is 0)."""

    name: str

    def shape(self, rules: Any) -> tuple[int, ...]: ...

    def high(self, rules: Any) -> np.ndarray: ...

    def encode(self, info: Any, rules: Any, scores: Optional[Sequence[int]] = None) -> np.ndarray: ...


@runtime_checkable
class BatchPolicy(Protocol):
    """An agent's decisions as array operations over many games of its game's batch engine
    (``Game.play_batched``), the same moves its ``act`` makes one game at a time.

    Called with the engine, the ``rows`` (games) where this agent is to move, and per row
    the agent's 64-bit key in that game and the index of this decision among the agent's
    decisions of that game (``rummy_env.agents.draws``: random choices derive from those
    two, so they equal the per-game agent's); returns one action id per row (int64).
    ``observation`` names the engine encoding it reads (None: only the engine's arrays).
    """

    observation: Optional[str]

    def __call__(self, engine: Any, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray: ...


class BatchHand(NamedTuple):
    """A hand finished by ``Game.play_batched``: its index among the hands asked for, its
    result and every action played, in order (with the deck and dealer it replays)."""

    index: int
    result: HandResult
    actions: list[int]


class Game(ABC):
    """A game of the library; see the module docstring. Subclass, then ``register_game``."""

    name: str  # registry key, e.g. "gin"
    title: str  # for people, e.g. "Gin Rummy"
    aliases: tuple[str, ...] = ()  # other names ``get_game`` accepts
    env_name: str  # the PettingZoo env's name, e.g. "gin_rummy_v0"
    env_module: str  # the module of its ``raw_env`` class and ``env()``, e.g. "rummy_env.gin.env"
    view_module: Optional[str] = None  # the module of its ``view`` and ``move_view`` functions (``Game.view``)
    # the module of its training adapter (``ADAPTER``: its own network, a vector rollout source) for
    # ``rummy train``, imported only by training; None: the generic one (``rummy_env.train.adapter``)
    training_module: Optional[str] = None
    min_players: int = 2
    max_players: int = 2
    deck_size: int = 52  # the card ids of a deal order are 0..deck_size-1 (under the default rules: ``deck_size_of``)
    num_actions: int
    state_type: type  # the class of its hands (a ``GameState``)
    information_set_type: type  # what ``GameState.information_set`` returns
    outcomes: tuple[str, ...]  # HandResult.outcome values, in report order
    rules_type: type  # the rules dataclass (a ``rummy_env.core.rules.RuleOptions``)
    default_preset: str
    presets: dict[str, Any]
    encodings: dict[str, Encoding]
    state_size: int  # length of the env's ``state()`` vector
    batched: bool = False  # whether ``play_batched`` plays many hands at once (a batch engine)
    # the module whose ``engine(num_envs, num_players, **options)`` builds its vector engine
    # (``rummy_env.core.vector``: many hands stepped as arrays); None: it has none
    vector_module: Optional[str] = None
    # letter -> the moves it stands for at the terminal (``rummy play``): the start of their
    # names, then what the person types after the letter, e.g. {"x": "discard CARD"}
    # (rummy_env.agents.human); the same letter means the same kind of move in every game
    shortcuts: Mapping[str, str] = MappingProxyType({})
    # the rules in a few paragraphs, for a language model's system prompt (rummy_env.agents.llm,
    # which adds the rule options in play); "": none (the prompt then has only those options)
    rules_summary: str = ""
    # rough CPU seconds of one hand played out from the deal by a rollout agent named here
    # ("*": by any other, the dearest of the game's agents that a search may roll out with),
    # on a 2-core machine at the game's largest table: what the generic search declares a
    # playout costs, so that a server bounds its playouts per game (benchmarks/bench_playouts.py)
    playout_seconds: Mapping[str, float] = MappingProxyType({"*": 0.15})
    # the generic search's ``playouts=auto`` plays a round of at least this many playouts on the
    # game's vector engine, a smaller one in Python (``rummy_env.agents.search_playouts``): an
    # engine step costs one call of the rollout's array policy whatever the rows, and a round
    # as many steps as its longest playout (Basic Rummy's engine breaks even at 12 to 16)
    engine_playout_rows: int = 16
    # the lines of ``render()`` a frame (``render_mode="rgb_array"``) holds at full size, at
    # the largest table: the frames of a game have one size, and a longer text is drawn
    # smaller to fit (``rummy_env.core.render``)
    frame_lines: int = 24
    hand_cost: int = 1  # a random hand's cost relative to a Gin hand: suites that play many random hands
    # (tests/core/test_conformance.py) play about 1/hand_cost as many of this game's

    # ------------------------------------------------------------------ rules

    @abstractmethod
    def load_rules(self, spec: Any = None) -> Any:
        """Rules from a preset name, YAML path, mapping or rules object (None: the default)."""

    def preset_note(self, name: str) -> str:
        """A preset's description in one line, for people choosing it: ``PRESET_NOTES`` of the
        module of the game's ``rules_type`` (where its ``PRESETS`` are), or "" without one."""
        module = importlib.import_module(self.rules_type.__module__)
        return str(getattr(module, "PRESET_NOTES", {}).get(name, ""))

    def add_preset(self, name: str, rules: Any) -> None:
        """Make ``rules`` (a mapping, YAML path or rules object) available as preset ``name``."""
        if name in self.presets:
            raise ValueError(f"{self.title} already has a preset {name!r}")
        self.presets[name] = self.load_rules(rules)

    @property
    def players_text(self) -> str:
        """The player counts in words: "2" or "2..4"."""
        return str(self.min_players) if self.min_players == self.max_players else f"{self.min_players}..{self.max_players}"

    def check_num_players(self, num_players: int) -> int:
        """``num_players`` if this game seats that many, else a ValueError saying what is allowed."""
        return check_num_players(num_players, self.min_players, self.max_players)

    # ------------------------------------------------------------------ dealing and matches

    def deck_size_of(self, rules: Any) -> int:
        """The number of cards dealt under ``rules`` (card ids 0..n-1 of a deal order): ``deck_size``
        unless a game's rules change the pack (Rommé with 4 jokers)."""
        return self.deck_size

    def card_kind(self, card: int, rules: Any = None) -> int:
        """The kind of card id ``card`` of a deal order: cards of one kind are identical for
        every rule and every player, so which of them lies where must change nothing anyone
        sees (Rommé's two decks hold each card twice). By default every card is a kind of
        its own."""
        return int(card)

    @abstractmethod
    def deal(self, rules: Any, num_players: int, *, seed: Seed = None, deck: Optional[Sequence[int]] = None,
             dealer: Optional[int] = None) -> GameState:
        """A hand dealt from ``deck`` (an explicit order) or a shuffle by ``seed``; ``dealer``
        None is the game's default seat."""

    @abstractmethod
    def new_match(self, rules: Any, num_players: int, first_dealer: Optional[int] = None) -> Match:
        """A match under ``rules`` (to the target score, or as the game's rules end one)."""

    def match_goal(self, rules: Any) -> str:
        """How a match under ``rules`` ends, in words for people (``'to 100'``): the target
        score, which the rules of Gin Rummy and Basic Rummy hold; a game whose matches end
        otherwise says so in its own words."""
        return f"to {rules.target_score}"

    def play_batched(self, rules: Any, decks: np.ndarray, dealers: np.ndarray, seats: np.ndarray, keys: np.ndarray,
                     policies: Sequence[BatchPolicy], width: int = 2048) -> Iterator[list[BatchHand]]:
        """Play hands ``i`` = 0..M-1, dealt from ``decks[i]`` (M, deck_size) with dealer
        ``dealers[i]``, up to ``width`` at once on the game's batch engine; seat ``s`` of
        hand ``i`` is played by ``policies[seats[i, s]]`` with key ``keys[i, s]`` (uint64).
        Yields the hands finished at each step of the engine (any order). Only games with
        ``batched`` set implement it (a game with a vector engine by ``core.batch.OnEngine``);
        tournaments play the others one hand at a time."""
        raise NotImplementedError(f"{self.title} has no batch engine: its hands are played one at a time")

    def vector(self, num_envs: int, num_players: Optional[int] = None, **options: Any) -> Any:
        """A vector engine (``rummy_env.core.vector.VectorEngine``): ``num_envs`` hands at
        ``num_players`` (None: the fewest the game seats) stepped together as arrays;
        ``options`` are the engine's (``rules``, ``encoding``, ``seed``, ...). The game's own
        engine (``vector_module``) where it has one, else the pure hands stepped in a loop
        (``rummy_env.core.vector_states.StatesEngine``), so every game has one."""
        n = self.min_players if num_players is None else self.check_num_players(num_players)
        if self.vector_module is None:
            from rummy_env.core.vector_states import StatesEngine

            return StatesEngine(self, num_envs, n, **options)
        return importlib.import_module(self.vector_module).engine(num_envs, n, **options)

    # ------------------------------------------------------------------ hidden cards

    def sample_world(self, info: Any, rules: Any, rng: np.random.Generator) -> GameState:
        """A full state consistent with one player's information set, the hidden cards dealt
        uniformly at random (for determinised search): ``state_type.sample_from_information_set``."""
        return self.state_type.sample_from_information_set(info, rules, rng)

    def redeal_hidden(self, state: GameState, player: int, rng: np.random.Generator) -> GameState:
        """A copy of ``state`` with every card ``player`` cannot know dealt differently among
        the places it could be (for no-leak tests: what that player sees must not change):
        the state's own ``redeal_hidden``."""
        return state.redeal_hidden(player, rng)

    @abstractmethod
    def state_vector(self, state: GameState) -> np.ndarray:
        """The full state as a float32 vector of ``state_size`` (every hand, the stock, the
        pile): the env's ``state()``, for centralised critics."""

    # ------------------------------------------------------------------ names and text

    @abstractmethod
    def action_name(self, action: int, rules: Any = None) -> str:
        """A readable name of an action id, e.g. ``'discard 7D'``."""

    def describe_move(self, action: int, rules: Any = None) -> str:
        """An action as the other players see it (a face-down card stays hidden)."""
        return self.action_name(action, rules)

    def explain(self, result: Mapping[str, Any], names: Sequence[str]) -> str:
        """A finished hand (``HandResult.to_dict()``) in words, naming seats by ``names``."""
        if result["winner"] is None:
            return f"the hand ends without a winner ({result['outcome']}): no points"
        return f"{names[result['winner']]} wins the hand ({result['outcome']}): {result['points']} points"

    # ------------------------------------------------------------------ views for people

    @property
    def has_view(self) -> bool:
        """Whether the game draws people's screens (``view``): the web app offers only those."""
        return self.view_module is not None or type(self).view is not Game.view

    def view(self, info: Any, rules: Any) -> dict[str, Any]:
        """One seat's table as JSON (``rummy_env.core.view``), built from its information set
        ``info`` alone, so it shows nothing that seat may not see: ``view(info, rules)`` of
        ``view_module``, the game's own module (imported when first asked)."""
        if self.view_module is None:
            raise NotImplementedError(f"{self.title} has no view for people's screens (set Game.view_module)")
        return importlib.import_module(self.view_module).view(info, self.load_rules(rules))

    def move_view(self, action: int, rules: Any = None, info: Any = None) -> dict[str, Any]:
        """How a legal move is offered to a person (``rummy_env.core.view``): ``move_view(action,
        rules, info)`` of ``view_module`` (``info``: the mover's information set, or None);
        without one, a button labelled with the action's name."""
        if self.view_module is None:
            from rummy_env.core.view import move

            return move(self.action_name(action, rules))
        module = importlib.import_module(self.view_module)
        if info is None:
            return module.move_view(action, self.load_rules(rules))
        return module.move_view(action, self.load_rules(rules), info)

    def score_sheet(self, results: Sequence[Any], final: Any, rules: Any = None) -> dict[str, Any]:
        """A match's score sheet for people (``rummy_env.core.view.score_sheet``'s shape): a row
        per finished hand (``results``, its ``HandResult`` s) with its points and bonuses, and the
        totals, with the match's bonuses once ``final`` (its ``Match.result()``, or None while
        it goes on). ``score_sheet`` of ``view_module`` where it has one, else the plain sheet
        (the winner's points, the match's scores)."""
        from rummy_env.core import view

        module = None if self.view_module is None else importlib.import_module(self.view_module)
        own = getattr(module, "score_sheet", None)
        if own is None:
            return view.score_sheet(results, final, len(results[0].rewards) if results else 0)
        return own(results, final, self.load_rules(rules))

    # ------------------------------------------------------------------ envs and encodings

    def raw_env(self, num_players: Optional[int] = None, **kwargs: Any) -> Any:
        """The PettingZoo AEC env (illegal moves raise): ``raw_env`` of ``env_module``."""
        return importlib.import_module(self.env_module).raw_env(num_players=num_players, **kwargs)

    def env(self, num_players: Optional[int] = None, **kwargs: Any) -> Any:
        """The wrapped env for users (PettingZoo's illegal-move convention, order enforced)."""
        return importlib.import_module(self.env_module).env(num_players=num_players, **kwargs)

    def encoding(self, spec: Union[str, Encoding]) -> Encoding:
        """The registered encoding named ``spec``, or ``spec`` itself if it is an ``Encoding``
        object (an env can take one without registering it); else a ValueError listing the
        encodings."""
        if isinstance(spec, str):
            from rummy_env.core.encoding import lookup

            return lookup(self.encodings, spec)
        if not isinstance(spec, Encoding):
            raise TypeError(f"encoding must be a name ({', '.join(self.encodings)}) or an object with name, shape, high "
                            f"and encode (rummy_env.core.game.Encoding), got {type(spec).__name__}")
        return spec

    def add_encoding(self, encoding: Encoding) -> None:
        """Register one more observation encoder, usable as ``env(encoding=encoding.name)``."""
        if encoding.name in self.encodings:
            raise ValueError(f"{self.title} already has an encoding {encoding.name!r}")
        self.encodings[encoding.name] = encoding

    def __repr__(self) -> str:
        return f"<Game {self.name!r}: {self.title}>"


# ---------------------------------------------------------------------- registry

_GAMES: dict[str, Game] = {}
_ALIASES: dict[str, str] = {}
_PROVIDERS: list[str] = []  # modules that register games on import, loaded on the first lookup
_LOADED: set[str] = set()  # those imported already
_ENTRY_MODULES: list[list[str]] = []  # [the entry points' modules], read on the first lookup
ENTRY_POINTS = "rummy_env.games"  # the entry-point group of games from other packages


def register_game(game: Game) -> Game:
    """Make ``game`` available by its name and aliases; returns it. A name already taken is
    an error."""
    for name in (game.name, *game.aliases):
        if name in _GAMES or name in _ALIASES:
            raise ValueError(f"a game named {name!r} is already registered")
    _GAMES[game.name] = game
    for alias in game.aliases:
        _ALIASES[alias] = game.name
    return game


def provide_games(module: str) -> None:
    """Have the registry import ``module`` (which calls ``register_game``) on its first
    lookup: how a package lists its games without importing them at once."""
    _PROVIDERS.append(module)


def _load() -> None:
    """Import the providers and the entry points of installed packages not imported yet. A
    game package that fails to import is reported with a warning, not silently left out,
    and does not keep the others from loading."""
    if not _ENTRY_MODULES:  # scanning the installed packages costs milliseconds: once a process
        _ENTRY_MODULES.append([entry.value for entry in entry_points(group=ENTRY_POINTS)])
    for module in dict.fromkeys(_PROVIDERS + _ENTRY_MODULES[0]):
        if module not in _LOADED:
            _LOADED.add(module)
            try:
                importlib.import_module(module)
            except Exception as exc:  # a broken plugin must not break the library
                warnings.warn(f"the game module {module!r} failed to load and is left out: "
                              f"{type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=3)


def games() -> list[str]:
    """The names of the registered games."""
    _load()
    return list(_GAMES)


def get_game(name: Union[str, Game]) -> Game:
    """The game registered as ``name`` (or an alias); a ValueError lists the games."""
    if isinstance(name, Game):
        return name
    _load()
    key = _ALIASES.get(name, name) if isinstance(name, str) else name
    if key not in _GAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(sorted(_GAMES))}")  # sorted: import order varies
    return _GAMES[key]
