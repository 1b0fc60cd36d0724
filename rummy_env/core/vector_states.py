"""A vector engine for any registered game: N pure hands stepped one after another.

Why: everything that works over a vector engine (``rummy_env.core.vector``: training
rollouts, search playouts, tournaments of array agents, benchmarks) then works for every
game, before the game has an engine of its own and where its compiled engine cannot be
used (no numba, ``RUMMY_ENV_NO_NUMBA=1``). Each row is the game's own state
(``Game.deal``), so this engine is the rules exactly and the reference a game's fast engine
is held to; its cost is the pure game's per move, in a Python loop over the rows.
``chosen_engine`` is what each game's ``engine`` function does: its compiled engine where
it can be used, else this one.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional

import numpy as np

from rummy_env.core.errors import IllegalActionError
from rummy_env.core.vector import batch_encoding, check_out, checked_deal


class StatesStep(NamedTuple):
    """What ``reset`` and ``step`` return (``rummy_env.core.vector.VectorStep``), and per
    game the result of a hand the step ended (None elsewhere)."""

    player: np.ndarray
    observation: Optional[np.ndarray]
    action_mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    results: list[Optional[Any]]  # the HandResult of each hand that ended


class StatesEngine:
    """``num_envs`` hands of ``game`` (a ``rummy_env.core.game.Game``, which makes these
    engines: so it is not imported here) at ``num_players``, each a pure state (module docstring).

    ``encoding``: a name of the game's encodings or an encoding object (any: each row is
    encoded from its information set; one with a batch writer writes its rows itself), or
    None for no observations. Rewards are each hand's ``result.rewards`` (points per seat)."""

    def __init__(self, game: Any, num_envs: int, num_players: Optional[int] = None, rules: Any = None,
                 encoding: Any = "flat", seed: Optional[int] = None) -> None:
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.game = game
        self.num_envs = int(num_envs)
        self.num_players = game.min_players if num_players is None else game.check_num_players(num_players)
        self.rules = game.load_rules(rules)
        self._encoder = None if encoding is None else game.encoding(encoding)
        self.encoding = None if self._encoder is None else self._encoder.name
        self.observation_shape = None if self._encoder is None else tuple(self._encoder.shape(self.rules))
        self._flat = batch_encoding(game, "flat") if "flat" in game.encodings else None
        self._rng = np.random.default_rng(seed)
        self.states: list[Any] = [None] * self.num_envs
        self._mask: Optional[np.ndarray] = None

    @property
    def current(self) -> np.ndarray:
        """(N,) the player to move in each game (0 before the first ``reset``)."""
        return np.array([0 if s is None else s.current_player for s in self.states], dtype=np.int64)

    def reset(self, seed: Optional[int] = None, decks: Optional[np.ndarray] = None,
              dealers: Optional[np.ndarray] = None) -> StatesStep:
        """Deal every game anew: shuffled, or from explicit ``decks`` (N, deck size) and ``dealers`` (N,)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.num_envs
        self.deal_rows(np.arange(n), decks, dealers)
        return self._result(np.zeros((n, self.num_players), dtype=np.float32), np.zeros(n, dtype=bool), [None] * n)

    def deal_rows(self, rows: np.ndarray, decks: Optional[np.ndarray] = None,
                  dealers: Optional[np.ndarray] = None) -> None:
        """Deal games ``rows`` anew (the others play on): shuffled, or from explicit ``decks``
        (len(rows), deck size) and ``dealers`` (len(rows),)."""
        size = self.game.deck_size_of(self.rules)
        rows, decks, dealers = checked_deal(self.num_envs, self.num_players, size, rows, decks, dealers)
        for k, row in enumerate(rows.tolist()):
            self._deal(row, None if decks is None else decks[k], None if dealers is None else int(dealers[k]))

    def _deal(self, row: int, deck: Optional[np.ndarray] = None, dealer: Optional[int] = None) -> None:
        if dealer is None:
            dealer = int(self._rng.integers(self.num_players))
        if deck is None:
            self.states[row] = self.game.deal(self.rules, self.num_players, seed=self._rng, dealer=dealer)
        else:
            self.states[row] = self.game.deal(self.rules, self.num_players, deck=deck.tolist(), dealer=dealer)
        self._mask = None

    def action_mask(self) -> np.ndarray:
        """int8 (N, num_actions): the legal actions of the player to move in each game."""
        if self._mask is None:
            self._mask = np.stack([s.legal_mask() for s in self.states]).astype(np.int8)
        return self._mask

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game from one uniform draw each: the legal
        action of rank floor(u x number legal) in id order (as every engine draws them)."""
        u = rng.random(self.num_envs)
        mask = self.action_mask()
        k = (u * mask.sum(axis=1)).astype(np.intp)
        return (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1)

    def step(self, actions: np.ndarray) -> StatesStep:
        """One action per game for the player to move there; a game that ends is dealt again.
        An illegal action raises ``IllegalActionError`` naming the game's row and its legal
        actions, before any game moves."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game; got {actions.shape}")
        n = self.num_envs
        mask = self.action_mask()
        inside = (actions >= 0) & (actions < mask.shape[1])
        legal = inside & (mask[np.arange(n), np.where(inside, actions, 0)] != 0)
        if not legal.all():  # checked before any game moves: an illegal action changes nothing
            i = int(np.flatnonzero(~legal)[0])
            try:  # the game's own words for it (an illegal step changes nothing)
                self.states[i].step(int(actions[i]))
            except ValueError as e:
                raise IllegalActionError(f"game {i}: {e}") from None
            raise IllegalActionError(f"game {i}: action {actions[i]} is not legal; legal: {np.flatnonzero(mask[i]).tolist()}")
        rewards = np.zeros((n, self.num_players), dtype=np.float32)
        terminated = np.zeros(n, dtype=bool)
        results: list[Optional[Any]] = [None] * n
        for i, state in enumerate(self.states):
            state.step(int(actions[i]))
            if state.is_over:
                rewards[i] = state.result.rewards
                terminated[i] = True
                results[i] = state.result
                self._deal(i)
        self._mask = None
        return self._result(rewards, terminated, results)

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, results: list) -> StatesStep:
        return StatesStep(self.current, None if self._encoder is None else self.observe(), self.action_mask(),
                          rewards, terminated, results)

    def _players(self, players: Optional[np.ndarray]) -> np.ndarray:
        return self.current if players is None else np.asarray(players, dtype=np.int64)

    def observe(self, players: Optional[np.ndarray] = None, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Observations (N, ...) of ``players`` (default: the player to move in each game)
        in the engine's encoding, into ``out`` when given."""
        if self._encoder is None:
            raise ValueError("this engine was made with encoding=None: it has no observations; give an encoding name")
        assert self.observation_shape is not None
        check_out(out, (self.num_envs, *self.observation_shape))
        if callable(getattr(self._encoder, "encode_batch", None)):
            return self._encoder.encode_batch(self, players, out)
        return self._rows(self._encoder, players, out)

    def observe_flat(self, players: Optional[np.ndarray] = None, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The ``flat`` observations of ``players``, each encoded from its information set."""
        if self._flat is None:
            raise ValueError(f"{self.game.title} has no 'flat' encoding")
        return self._rows(self._flat, players, out)

    def _rows(self, encoder: Any, players: Optional[np.ndarray], out: Optional[np.ndarray]) -> np.ndarray:
        seats = self._players(players)
        rows = [encoder.encode(s.information_set(int(p)), self.rules) for s, p in zip(self.states, seats)]
        if out is None:
            return np.stack(rows).astype(np.float32, copy=False)
        out[...] = rows
        return out


ENGINES = ("auto", "compiled", "states")  # "auto": the game's compiled engine where it agrees, else states


def chosen_engine(game: Any, kind: str, compiled: Callable[[], Any], make: Callable[..., Any], num_envs: int,
                  num_players: int, **options: Any) -> Any:
    """What a game's ``engine`` function (its ``vector_module``'s, ``Game.vector``) gives:
    the compiled engine ``make(num_envs, num_players, kernels=..., **options)`` (``kind``
    ``"compiled"``), the pure hands of ``game`` stepped in a loop (``"states"``:
    ``StatesEngine``), or (``"auto"``) the compiled one where ``compiled()`` gives its
    kernels (numba there, and the engine agreeing with the pure hands), else the pure hands.
    ``game``: the registered ``Game``."""
    if kind not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {kind!r}")
    module = None if kind == "states" else compiled()
    if module is None:
        if kind == "compiled":
            raise ValueError("engine='compiled' needs numba (pip install 'rummy-env[fast]'), RUMMY_ENV_NO_NUMBA unset "
                             "and kernels that compile here (a warning said why not); use engine='auto' or 'states'")
        return StatesEngine(game, num_envs, num_players, **options)
    return make(num_envs, num_players, kernels=module, **options)
