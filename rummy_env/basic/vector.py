"""Many Basic Rummy hands stepped together as arrays: the engine for rollouts, tournaments
of array agents and benchmarks (``rummy_env.core.vector`` says what every engine offers).

``VectorBasicRummy(num_envs, num_players)`` holds N hands at one table size (2 to 4
players). ``step(actions)`` takes one action per game, for whoever is to move there, and
returns, batched: the player to move next, that player's observation (the encodings of
``basic_rummy_v0``), the action mask, the step's rewards per seat (the hand's points, zero-sum,
when it ended) and which games ended, with each ended hand's result as the pure game
gives it. A game that ends is dealt again at once, so every row always holds a live hand.

The rules are those of ``rummy_env.basic.game`` (the single source of truth), stepped in
compiled loops over the games (``rummy_env.basic.vector_jit``, numba). Without numba
(or with ``RUMMY_ENV_NO_NUMBA=1``, or where the compiled engine does not play a few
hundred moves exactly as the pure game: a warning says why) the game's engine is the
pure hands stepped in a loop (``rummy_env.core.vector_states.StatesEngine``): ``engine``
("auto", the default; "compiled"; "states") chooses. Both deal alike from one seed (per
game: the dealer, then the deck's shuffle, from one numpy generator), so they play the
same games; tests hold every step of the two equal, under every rule option.

``load_states(rows, states)`` puts pure hands (``BasicRummyState``, mid-hand) into rows,
to play on from there exactly as they would: the generic search plays its playouts so
(``rummy_env.agents.search_playouts``). The pure hands in a loop cannot.

Hands are single hands (no match scores in observations, as ``episode="hand"``).
``encoding`` names any of the game's encodings with a batch writer (``flat``, ``planes``,
or a user's with ``encode_batch``) or None for no observations.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from rummy_env.basic.game import (
    DRAW_STOCK, MAX_TABLE_MELDS, NUM_ACTIONS, TAKE_DISCARD, BasicRummyState, Phase, RummyHandResult, action_name,
)
from rummy_env.basic.layout import FLAT_SIZE
from rummy_env.basic.rules import MAX_PLAYERS, RummyRulesSpec, check_num_players, load_rummy_rules
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.compiled import Compiled
from rummy_env.core.game import IllegalActionError, get_game
from rummy_env.core.vector import EngineBase, check_out, checked_actions, checked_deal
from rummy_env.core.vector_states import chosen_engine

# how a hand ended, by the code ``vector_jit.apply_actions`` gives: (outcome, stalemate reason)
OUTCOMES = (("out", ""), ("rummy", ""), ("stalemate", "stock"), ("stalemate", "max_turns"))
# Room for the legal ids of a position: 2 draws; in play a hand of at most 11 cards gives
# at most 11 discards, 11 sets (two ranks of four cards: 5 each, and one of three), 45
# runs (11 cards of one suit in a row) and 33 lay-offs (a card fits at most 3 table melds:
# its rank's set and the runs of its suit ending just below and starting just above it).
MAX_LEGAL = 128


class BasicStep(NamedTuple):
    """What ``reset`` and ``step`` return (``rummy_env.core.vector.VectorStep``), and per
    game the result of a hand the step ended (None elsewhere), equal to the pure game's."""

    player: np.ndarray
    observation: Optional[np.ndarray]  # None when the engine was made with encoding=None
    action_mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    results: list[Optional[RummyHandResult]]


class VectorBasicRummy(EngineBase):
    """N hands of Basic Rummy at ``num_players`` as arrays, stepped by compiled kernels
    (module docstring). Build it with ``engine`` (or ``Game.vector``), which falls back to
    the pure hands where the kernels cannot be used; made directly it needs them
    (``kernels``: the module, None for the one decided for this process; the self-check
    passes the module it checks)."""

    def __init__(self, num_envs: int, num_players: int = 2, rules: RummyRulesSpec = None, encoding: Any = "flat",
                 seed: Optional[int] = None, kernels: Any = None) -> None:
        self._set_up(get_game("basic"), num_envs, check_num_players(num_players), load_rummy_rules(rules), encoding)
        self._jit = compiled_engine() if kernels is None else kernels
        if self._jit is None:
            raise ValueError("VectorBasicRummy needs numba (pip install 'rummy-env[fast]'), RUMMY_ENV_NO_NUMBA unset "
                             "and kernels that compile here (a warning said why not); Game.vector or engine() "
                             "fall back to the pure hands")
        self.engine = "compiled"
        self._rng = np.random.default_rng(seed)
        self._melds = self._jit.meld_masks(self.rules.aces_high)
        self._hand_size = self.rules.cards_per_hand(self.num_players)
        n, p = self.num_envs, self.num_players
        self.hands = np.zeros((n, p), dtype=np.uint64)
        self.known = np.zeros((n, p), dtype=np.uint64)  # cards known to be in each hand (taken, or from a public stock)
        self.played = np.zeros((n, p), dtype=np.uint64)  # cards each seat put on the table
        self.discarded = np.zeros((n, p), dtype=np.uint64)
        self.has_melded = np.zeros((n, p), dtype=bool)
        self.stock = np.zeros((n, NUM_CARDS), dtype=np.int8)  # top is stock[stock_len - 1]
        self.stock_len = np.zeros(n, dtype=np.int16)
        self.stock_mask = np.zeros(n, dtype=np.uint64)
        self.pile = np.zeros((n, NUM_CARDS), dtype=np.int8)  # bottom to top; top is pile[pile_len - 1]
        self.pile_len = np.zeros(n, dtype=np.int16)
        self.pile_mask = np.zeros(n, dtype=np.uint64)
        self.table_cards = np.zeros((n, MAX_TABLE_MELDS), dtype=np.uint64)  # the melds on the table, in the order laid down
        self.table_ext = np.zeros((n, MAX_TABLE_MELDS), dtype=np.uint64)  # per meld, the cards that can be laid off onto it
        self.table_run = np.zeros((n, MAX_TABLE_MELDS), dtype=bool)
        self.table_owner = np.zeros((n, MAX_TABLE_MELDS), dtype=np.int8)
        self.num_table = np.zeros(n, dtype=np.int8)
        self.dealer = np.zeros(n, dtype=np.int8)
        self.current = np.zeros(n, dtype=np.int8)
        self.phase = np.zeros(n, dtype=np.int8)
        self.turn = np.zeros(n, dtype=np.int32)
        self.turnovers = np.zeros(n, dtype=np.int32)
        self.stock_public = np.zeros(n, dtype=bool)  # the stock was turned over: its order is public
        self.taken = np.full(n, -1, dtype=np.int8)  # the card taken from the pile this turn (-1: none)
        self.rummy_possible = np.zeros(n, dtype=bool)  # the player to move had nothing on the table at the turn's start
        self._rows = np.arange(n)
        self._mask: Optional[np.ndarray] = None
        self._num_legal = np.zeros(n, dtype=np.int16)
        self._legal_ids = np.zeros((n, MAX_LEGAL), dtype=np.int16)  # only [:num_legal] per row is written

    def __getstate__(self) -> dict:
        """Pickled (worker processes, checkpoints) without the kernels' module: an unpickled
        engine looks them up again in its process."""
        return {**self.__dict__, "_jit": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._jit = compiled_engine()
        if self._jit is None:
            raise ValueError("this VectorBasicRummy was pickled where its compiled engine was used, and it is not "
                             "used in this process (numba missing or RUMMY_ENV_NO_NUMBA set)")

    # ------------------------------------------------------------------ dealing

    def reset(self, seed: Optional[int] = None, decks: Optional[np.ndarray] = None,
              dealers: Optional[np.ndarray] = None) -> BasicStep:
        """Deal every game anew: shuffled (from ``seed`` when given, else the engine's
        generator), or from explicit ``decks`` (N, 52) and ``dealers`` (N,)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.deal_rows(self._rows, decks, dealers)
        n = self.num_envs
        return self._result(np.zeros((n, self.num_players), dtype=np.float32), np.zeros(n, dtype=bool), [None] * n)

    def deal_rows(self, rows: np.ndarray, decks: Optional[np.ndarray] = None,
                  dealers: Optional[np.ndarray] = None) -> None:
        """Deal games ``rows`` (distinct indices) anew, the others left as they are: from
        ``decks`` (len(rows), 52) and ``dealers`` where given, else from the generator.
        Tournaments deal each row its next hand this way as hands finish."""
        self._deal(*checked_deal(self.num_envs, self.num_players, NUM_CARDS, rows, decks, dealers))

    def _deal(self, rows: np.ndarray, decks: Optional[np.ndarray], dealers: Optional[np.ndarray]) -> None:
        """Deal ``rows`` (intp) from checked ``decks`` and ``dealers`` (None: from the generator)."""
        if decks is None or dealers is None:  # per game the dealer, then the shuffle: as StatesEngine deals
            drawn_decks = np.empty((rows.size, NUM_CARDS), dtype=np.int8)
            drawn_dealers = np.empty(rows.size, dtype=np.int8)
            for j in range(rows.size):
                drawn_dealers[j] = self._rng.integers(self.num_players) if dealers is None else dealers[j]
                drawn_decks[j] = self._rng.permutation(NUM_CARDS) if decks is None else decks[j]
            decks, dealers = drawn_decks, drawn_dealers
        self._jit.deal_games(rows, decks.astype(np.int8), dealers.astype(np.int8), self.num_players, self._hand_size,
                             self.hands, self.known, self.played, self.discarded, self.has_melded, self.stock,
                             self.stock_len, self.stock_mask, self.pile, self.pile_len, self.pile_mask, self.num_table,
                             self.dealer, self.current, self.phase, self.turn, self.turnovers, self.stock_public,
                             self.taken, self.rummy_possible)
        self._mask = None

    def load_states(self, rows: np.ndarray, states: Sequence[BasicRummyState]) -> None:
        """Put the pure hands ``states`` (``BasicRummyState``s of this engine's table size and
        rules, none over) into games ``rows`` (distinct indices), the others left as they
        are: each row then plays on from where its state stands, its masks, observations,
        steps and result those of the state stepped alike (``rummy_env.core.vector.LoadsStates``;
        the generic search plays its playouts so). The engine keeps no history, so a state's
        ``history`` and ``deck`` are not taken; everything an observation or a rule reads is."""
        rows = checked_deal(self.num_envs, self.num_players, NUM_CARDS, rows)[0]
        states = list(states)
        if len(states) != rows.size:
            raise ValueError(f"load_states needs one state per row: {rows.size} rows, {len(states)} states")
        for k, state in enumerate(states):
            if not isinstance(state, BasicRummyState):
                raise ValueError(f"states[{k}] must be a Basic Rummy state (BasicRummyState), "
                                 f"got {type(state).__name__}")
            if state.num_players != self.num_players or state.rules != self.rules:
                raise ValueError(f"states[{k}] must be a hand at this engine's {self.num_players} players and rules; "
                                 f"it has {state.num_players} players and rules {state.rules}")
            if state.phase == Phase.OVER:
                raise ValueError(f"states[{k}] is a hand that is over: an engine's games are always live hands")
        if not states:
            return
        for name in ("hands", "known", "played", "discarded", "has_melded"):
            getattr(self, name)[rows] = [getattr(state, name) for state in states]
        scalars = [(s.dealer, s.current_player, int(s.phase), s.turn, s.turnovers, s.stock_public,
                    -1 if s.taken_card is None else s.taken_card, s.rummy_possible, len(s.stock),
                    len(s.discard_pile), s.pile_mask, len(s.table)) for s in states]
        (self.dealer[rows], self.current[rows], self.phase[rows], self.turn[rows], self.turnovers[rows],
         self.stock_public[rows], self.taken[rows], self.rummy_possible[rows], self.stock_len[rows],
         self.pile_len[rows], self.pile_mask[rows], self.num_table[rows]) = zip(*scalars)
        for row, state in zip(rows.tolist(), states):
            stock_mask = 0
            for c in state.stock:
                stock_mask |= 1 << c
            self.stock[row, : len(state.stock)] = state.stock
            self.stock_mask[row] = stock_mask
            self.pile[row, : len(state.discard_pile)] = state.discard_pile
            table = state.table
            self.table_cards[row, : len(table)] = [m.cards for m in table]
            self.table_run[row, : len(table)] = [m.is_run for m in table]
            self.table_owner[row, : len(table)] = [m.owner for m in table]
            self.table_ext[row, : len(table)] = state.table_ext
        self._mask = None

    # ------------------------------------------------------------------ stepping

    def action_mask(self) -> np.ndarray:
        """int8 (N, 1267): the legal actions of the player to move in each game."""
        if self._mask is None:
            mask = np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.int8)
            r = self.rules
            self._jit.legal_moves(self.hands, self.current, self.phase, self.taken, self.stock_len, self.pile_len,
                                  self.has_melded, self.table_cards, self.table_ext, self.table_run, self.num_table,
                                  self._melds, r.aces_high, r.layoff_needs_own_meld, r.go_out_without_discard, mask,
                                  self._num_legal, self._legal_ids)
            if self._num_legal.max() > MAX_LEGAL:  # the bound above is wrong: say so rather than play on
                raise RuntimeError(f"a position has {self._num_legal.max()} legal actions, more than MAX_LEGAL; "
                                   "please report this bug")
            self._mask = mask
        return self._mask

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game from one uniform draw each: the legal
        action of rank floor(u x number legal) in id order (as every engine draws them)."""
        u = rng.random(self.num_envs)
        self.action_mask()
        out = np.empty(self.num_envs, dtype=np.intp)
        self._jit.random_legal(self._legal_ids, self._num_legal, u, out)
        return out

    def step(self, actions: np.ndarray, active: Optional[np.ndarray] = None) -> BasicStep:
        """One action per game for the player to move there; an illegal one raises
        ``IllegalActionError`` naming the game's row and its legal actions, with nothing
        changed. ``active`` (N,) bool, optional: only those games move (the others'
        actions are ignored). A game that ends is dealt again."""
        n = self.num_envs
        a = checked_actions(n, NUM_ACTIONS, self.action_mask(), actions, active, self._illegal)
        rewards = np.zeros((n, self.num_players), dtype=np.float32)
        terminated = np.zeros(n, dtype=bool)
        outcome = np.full(n, -1, dtype=np.int8)
        with_discard = np.zeros(n, dtype=bool)
        r = self.rules
        self._jit.apply_actions(a, self.num_players, self.hands, self.known, self.played, self.discarded,
                                self.has_melded, self.stock, self.stock_len, self.stock_mask, self.pile, self.pile_len,
                                self.pile_mask, self.table_cards, self.table_ext, self.table_run, self.table_owner,
                                self.num_table, self.current, self.phase, self.turn, self.turnovers, self.stock_public,
                                self.taken, self.rummy_possible, self._melds, r.aces_high, r.stock_turnovers,
                                r.max_turns, r.rummy_multiplier, rewards, terminated, outcome, with_discard)
        results: list[Optional[RummyHandResult]] = [None] * n
        done = np.flatnonzero(terminated)
        if done.size:
            for g in done.tolist():
                results[g] = self._hand_result(g, int(outcome[g]), bool(with_discard[g]), rewards[g])
            self._deal(done, None, None)
        self._mask = None
        return self._result(rewards, terminated, results)

    def _illegal(self, bad: np.ndarray, actions: np.ndarray) -> IllegalActionError:
        """The error for illegal ``actions`` in games ``bad``: the first one's move and legal moves."""
        g = int(bad[0])
        action = int(actions[g])
        legal = ", ".join(f"{x} ({action_name(x, self.rules.aces_high)})"
                          for x in np.flatnonzero(self.action_mask()[g]).tolist())
        more = f" (and {bad.size - 1} more game(s))" if bad.size > 1 else ""
        if not 0 <= action < NUM_ACTIONS:
            what = f"action must be an integer action id 0..{NUM_ACTIONS - 1}, got {action}"
        else:
            what = (f"illegal action {action} ({action_name(action, self.rules.aces_high)}) for player "
                    f"{int(self.current[g])} in phase {Phase(int(self.phase[g])).name}")
        return IllegalActionError(f"game {g}: {what}; legal: {legal}{more}")

    def _hand_result(self, g: int, code: int, with_discard: bool, rewards: np.ndarray) -> RummyHandResult:
        """The pure game's result of the hand game ``g`` ended (``code``: ``OUTCOMES``), read
        before the game is dealt again: the winner is the player who moved, the others
        paid what their rewards say."""
        outcome, reason = OUTCOMES[code]
        n = self.num_players
        if outcome == "stalemate":
            return RummyHandResult(outcome, None, 0, (0,) * n, (0,) * n, reason=reason)
        winner = int(self.current[g])
        penalties = tuple(0 if seat == winner else -int(rewards[seat]) for seat in range(n))
        return RummyHandResult(outcome, winner, int(rewards[winner]), penalties,
                               tuple(int(h) for h in self.hands[g]), with_discard=with_discard)

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, results: list) -> BasicStep:
        return BasicStep(self.current.astype(np.int64), None if self._encoder is None else self.observe(),
                         self.action_mask(), rewards, terminated, results)

    # ------------------------------------------------------------------ observations


    def observe_flat(self, players: Optional[np.ndarray] = None, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The ``flat`` observations (N, 910) of ``players`` (default: the player to move in
        each game), written from the game's layout (``rummy_env.basic.layout``) by one
        compiled loop; into ``out`` when given. The batch writer every encoding built on the
        layout reads (``rummy_env.core.encoding``)."""
        check_out(out, (self.num_envs, FLAT_SIZE))
        if players is None:
            seats = self.current
        else:
            seats = np.asarray(players)
            if (seats.shape != (self.num_envs,) or seats.dtype.kind not in "iu"
                    or not ((seats >= 0) & (seats < self.num_players)).all()):
                raise ValueError(f"players must be seats 0..{self.num_players - 1}, one per game ({self.num_envs},)")
        flat = np.empty((self.num_envs, FLAT_SIZE), dtype=np.float32) if out is None else out
        self._jit.observe_flat(seats.astype(np.int64), self.num_players, self.hands, self.known, self.played,
                               self.discarded, self.has_melded, self.stock_len, self.stock_mask, self.stock_public,
                               self.pile, self.pile_len, self.pile_mask, self.table_ext, self.num_table, self.dealer,
                               self.phase, self.turn, self.turnovers, self.taken, self.rummy_possible,
                               self.rules.stock_turnovers, self.rules.max_turns, flat)
        return flat


def engine(num_envs: int, num_players: int = 2, engine: str = "auto", **options: Any) -> Any:
    """The vector engine for ``Game.vector``: ``VectorBasicRummy`` (``engine="compiled"``),
    or the pure hands stepped in a loop (``"states"``: ``StatesEngine``), or (``"auto"``)
    the compiled one where it can be used, else the pure hands. ``options``: ``rules``,
    ``encoding``, ``seed``."""
    return chosen_engine(get_game("basic"), engine, compiled_engine, VectorBasicRummy, num_envs, num_players, **options)


def _load_engine() -> Any:
    from rummy_env.basic import vector_jit

    return vector_jit


def compiled_engine() -> Any:
    """``rummy_env.basic.vector_jit`` when numba is installed and not switched off
    (``RUMMY_ENV_NO_NUMBA=1``) and the compiled engine plays a few hundred moves exactly
    as the pure hands do; else None (with one warning when the kernels exist but fail).
    Decided once per process."""
    return COMPILED_ENGINE.get()


# rules that reach every branch of the kernels within a few hundred moves of random play
_CHECK_RULES = ({}, {"aces": "high", "layoff_needs_own_meld": False, "go_out_without_discard": False,
                     "rummy_multiplier": 3, "hand_size": 10, "max_turns": 60}, {"stock_turnovers": 0, "hand_size": 3})


def _self_check(module: Any) -> str:
    """'' when the compiled engine plays 16 games for 150 moves, at 2, 3 and 4 players,
    exactly as the pure hands do (the same seed deals the same games): every player,
    mask, observation, reward and result, hands going out, with rummy, and stalemates."""
    from rummy_env.core.vector_states import StatesEngine

    for n, rules in zip(range(2, MAX_PLAYERS + 1), _CHECK_RULES):
        fast = VectorBasicRummy(16, n, rules=rules, seed=n, kernels=module)
        pure = StatesEngine(get_game("basic"), 16, n, rules=rules, seed=n)
        got, res = fast.reset(), pure.reset()
        rng = np.random.default_rng(n)
        for _ in range(150):
            if not (all(np.array_equal(x, y) for x, y in zip(got[:5], res[:5])) and got.results == res.results):
                return "the compiled engine disagrees with the pure game"
            # half the moves the highest legal id in play (a meld or lay-off where there is one: hands
            # go out) and a draw from the stock (it runs out and is turned over)
            last = NUM_ACTIONS - 1 - np.argmax(res.action_mask[:, ::-1] != 0, axis=1)
            last[last == TAKE_DISCARD] = DRAW_STOCK
            actions = np.where(rng.random(16) < 0.5, last, pure.random_actions(rng))
            got, res = fast.step(actions), pure.step(actions)
    return ""


# the compiled engine, used where it plays a few hundred moves exactly as the pure hands
# (``rummy_env.core.compiled``)
COMPILED_ENGINE = Compiled("the compiled Basic Rummy vector engine", _load_engine, _self_check,
                           "Basic Rummy's vector engine steps the pure hands in a loop")
