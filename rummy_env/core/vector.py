"""What a game's vector engine offers: many hands stepped together as arrays.

Why a protocol: training rollouts, search playouts, tournaments of array agents and
benchmarks want thousands of hands at once, and each game writes its own engine (its
rules as array operations or compiled loops, ``rummy_env.gin.vector``). What they share
is the shape of the conversation, so that a caller (and the conformance suite, which
plays every registered engine deal for deal against its pure game) needs no game's name:

- ``Game.vector(num_envs, num_players=..., rules=..., encoding=..., seed=...)`` makes one
  (``Game.vector_module``: the module whose ``engine`` function builds it);
- ``reset(decks=None, dealers=None)`` deals every game (a shuffle, or explicit deal orders
  ``(N, deck_size)`` and dealers ``(N,)``) and ``step(actions)`` plays one action per game,
  for whoever is to move there; both return a ``VectorStep``: the player to move (N,),
  their observation (None without an encoding), the action mask (N, num_actions), the
  step's rewards (N, num_players) and which games ended (a game that ends is dealt again
  at once, so every row always holds a live game);
- ``deal_rows(rows, decks=None, dealers=None)`` deals some games anew, the others playing on;
- ``observe(players=None, out=None)``, ``action_mask()``, ``random_actions(rng)``;
- optionally ``load_states(rows, states)`` (``LoadsStates``): games ``rows`` made to hold
  the game's own pure states (``GameState``, mid-hand) and play on from where each stands,
  as that state would. The generic search plays its playouts on an engine that has it
  (``rummy_env.agents.search``); an engine without it leaves them in Python.

An engine writes observations in any encoding that has a batch writer (``BatchEncoding``:
``encode_batch(engine, players, out)``). A game's ``flat`` and ``planes`` encodings have
one (``rummy_env.core.encoding``): they ask the engine for its flat rows
(``engine.observe_flat``, written by the game in batch from the game's layout) and lay
them out as the single-hand encoder does. A user's encoding gets into an engine by
giving it ``encode_batch`` too (reading the engine's arrays), with no change here.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Protocol, Sequence, runtime_checkable

import numpy as np


@runtime_checkable
class VectorStep(Protocol):
    """What ``reset`` and ``step`` return (arrays over the N games); an engine's own result
    type may carry more (Gin's: the showdown's outcome, knocker and deadwoods)."""

    player: np.ndarray  # (N,) the player to move now (after any new deal)
    observation: Optional[np.ndarray]  # (N, ...) their observation; None without an encoding
    action_mask: np.ndarray  # (N, num_actions) the legal actions now
    rewards: np.ndarray  # (N, num_players) of the step just taken
    terminated: np.ndarray  # (N,) the games the step ended (dealt again since)


@runtime_checkable
class BatchEncoding(Protocol):
    """An observation encoding (``rummy_env.core.game.Encoding``) that a vector engine can
    write for many games at once: ``encode_batch(engine, players, out)`` gives the
    observations (N, *shape) of ``players`` (None: the player to move in each game),
    written into ``out`` when it is given (float32 of that shape) and returned. Tests hold
    it equal, row for row, to ``encode`` of each game's information set."""

    name: str

    def shape(self, rules: Any) -> tuple[int, ...]: ...

    def encode_batch(self, engine: Any, players: Optional[np.ndarray] = None,
                     out: Optional[np.ndarray] = None) -> np.ndarray: ...


@runtime_checkable
class VectorEngine(Protocol):
    """N hands of one game as arrays (module docstring)."""

    num_envs: int
    num_players: int
    rules: Any
    encoding: Optional[str]  # the name of the encoding it writes (None: no observations)
    current: np.ndarray  # (N,) the player to move in each game

    def reset(self, seed: Optional[int] = None, decks: Optional[np.ndarray] = None,
              dealers: Optional[np.ndarray] = None) -> VectorStep: ...

    def deal_rows(self, rows: np.ndarray, decks: Optional[np.ndarray] = None,
                  dealers: Optional[np.ndarray] = None) -> None: ...

    def step(self, actions: np.ndarray) -> VectorStep: ...

    def action_mask(self) -> np.ndarray: ...

    def observe(self, players: Optional[np.ndarray] = None, out: Optional[np.ndarray] = None) -> np.ndarray: ...

    def random_actions(self, rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class LoadsStates(Protocol):
    """An engine that can take the game's pure states into its games (optional: module
    docstring). ``load_states(rows, states)``: ``rows`` distinct game indices, ``states``
    one ``GameState`` per row of the engine's table size and rules, none of them over (a
    ValueError says which is not). Afterwards each row's mask, observations, steps, rewards
    and result are those the state would give stepped with the same actions; the others
    play on untouched. Tests hold it so over many random positions of the game."""

    def load_states(self, rows: np.ndarray, states: Sequence[Any]) -> None: ...


def batch_encoding(game: Any, spec: Any) -> Optional[BatchEncoding]:
    """The encoding an engine of ``game`` writes for ``spec``: None for None (no
    observations), else the game's encoding of that name (or the object itself), which
    must have a batch writer; a ValueError names the encodings that have one."""
    if spec is None:
        return None
    encoding = game.encoding(spec)
    if not callable(getattr(encoding, "encode_batch", None)):
        writers = [name for name, e in game.encodings.items() if callable(getattr(e, "encode_batch", None))]
        raise ValueError(f"the {game.title} vector engine writes only encodings with a batch writer (encode_batch): "
                         f"{', '.join(map(repr, writers))} or None (no observations); {encoding.name!r} has none")
    return encoding


def checked_deal(num_envs: int, num_players: int, deck_size: int, rows: np.ndarray, decks: Any = None,
                 dealers: Any = None) -> tuple[np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]:
    """What every engine's ``reset`` and ``deal_rows`` accept, checked once for all: ``rows``
    (distinct game indices, as intp), ``decks`` (len(rows), deck_size) of permutations of the
    card ids and ``dealers`` (len(rows),) of seats, each None for a shuffle; or a ValueError
    naming what is wrong and what is allowed."""
    rows = np.asarray(rows)
    if rows.ndim != 1 or (rows.size and rows.dtype.kind not in "iu"):
        raise ValueError(f"rows must be a 1-d integer array of game indices, got {rows.dtype} {rows.shape}")
    if rows.size and (rows.min() < 0 or rows.max() >= num_envs or np.unique(rows).size != rows.size):
        raise ValueError(f"rows must be distinct game indices in 0..{num_envs - 1}")
    count = rows.size
    if decks is not None:
        decks = np.asarray(decks)
        if decks.shape != (count, deck_size) or decks.dtype.kind not in "iu":
            raise ValueError(f"decks must have shape ({count}, {deck_size}), one deal order per game, of integer "
                             f"card ids; got {decks.dtype} {decks.shape}")
        bad = np.flatnonzero((np.sort(decks, axis=1) != np.arange(deck_size)).any(axis=1))
        if bad.size:
            raise ValueError(f"decks[{bad[0]}] must be a permutation of the {deck_size} card ids 0..{deck_size - 1}")
    if dealers is not None:
        dealers = np.asarray(dealers)
        if (dealers.shape != (count,) or dealers.dtype.kind not in "iu"
                or not ((dealers >= 0) & (dealers < num_players)).all()):
            raise ValueError(f"dealers must have shape ({count},) with seats 0..{num_players - 1}; "
                             f"got {dealers.dtype} {dealers.shape}")
    return rows.astype(np.intp), decks, dealers


class EngineBase:
    """What every game's own engine shares: its size, rules and encoding set up the same way
    (``_set_up``), and ``observe`` in that encoding (``BatchEncoding.encode_batch``)."""

    num_envs: int
    observation_shape: Optional[tuple[int, ...]]
    _encoder: Any

    def _set_up(self, game: Any, num_envs: Any, num_players: int, rules: Any, encoding: Any) -> None:
        """``num_envs`` checked (a positive integer), ``num_players`` and ``rules`` (checked and
        loaded by the caller) kept, and ``encoding`` looked up for ``game`` (None: none)."""
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.num_envs = int(num_envs)
        self.num_players = num_players
        self.rules = rules
        self._encoder = batch_encoding(game, encoding)
        self.encoding = None if self._encoder is None else self._encoder.name
        self.observation_shape = None if self._encoder is None else tuple(self._encoder.shape(rules))

    def observe(self, players: Optional[np.ndarray] = None, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Observations (N, ...) of ``players`` (default: the player to move in each game) in
        the engine's encoding; with ``out`` (float32, of their shape; a view into a larger
        array is fine) they are written there and ``out`` is returned."""
        if self._encoder is None:
            raise ValueError("this engine was made with encoding=None: it has no observations; give an encoding name")
        assert self.observation_shape is not None
        check_out(out, (self.num_envs, *self.observation_shape))
        return self._encoder.encode_batch(self, players, out)


def checked_actions(num_envs: int, num_actions: int, mask: np.ndarray, actions: Any, active: Any,
                    illegal: Callable[[np.ndarray, np.ndarray], Exception]) -> np.ndarray:
    """What every engine's ``step`` accepts, checked once for all before any game moves:
    ``actions`` an integer array (N,), ``active`` None (every game) or a bool array (N,),
    and each active game's action legal in ``mask`` (N, num_actions); otherwise a
    ValueError, or ``illegal(bad games, actions)``, the engine's own error naming them.
    Returns the actions as int64, -1 where a game does not move."""
    a = np.asarray(actions)
    if a.shape != (num_envs,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be an integer array of shape ({num_envs},), one per game; got {a.dtype} {a.shape}")
    if active is None:
        active = np.ones(num_envs, dtype=bool)
    else:
        active = np.asarray(active)
        if active.shape != (num_envs,) or active.dtype != bool:
            raise ValueError(f"active must be a bool array of shape ({num_envs},)")
    in_range = (a >= 0) & (a < num_actions) & active
    legal = ~active
    rows = np.flatnonzero(in_range)
    legal[rows] = mask[rows, a[rows]] == 1
    if not legal.all():
        raise illegal(np.flatnonzero(~legal), a)
    return np.where(active, a, -1).astype(np.int64)


def check_out(out: Optional[np.ndarray], shape: tuple[int, ...]) -> None:
    """A ValueError unless ``out`` is None or float32 of ``shape`` (where an engine writes)."""
    if out is not None and (out.dtype != np.float32 or out.shape != shape):
        raise ValueError(f"out must be float32 of shape {shape}, got {out.dtype} {out.shape}")
