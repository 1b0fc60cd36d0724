"""Many Gin Rummy hands stepped together as arrays: the engine for training throughput.

``VectorGinRummy(num_envs)`` holds N independent hands. Each ``step(actions)`` takes one
action per game, for whichever player is to move there, and returns, batched: the
player to move next, that player's observation (the encodings of ``gin_rummy_v0``), the
action mask, the rewards of both seats and which games ended. A game that ends is dealt
again at once (its final rewards and showdown are in the returned ``StepResult``; the
observation is the new hand's first), so every row always holds a live game.

The rules are those of ``rummy_env.gin.game`` (the single source of truth), re-expressed as
array operations over all games; tests play the same deals and actions through both and
compare every observation, mask, reward and outcome. Knock legality, observations and the
showdown (lay-offs included) use the batch meld solver: no Python loop over games.

Two engines play the same games: ``engine="compiled"`` steps every game in compiled loops
(``rummy_env.gin.vector_jit``, numba: the ``fast`` or ``train`` extra), ``engine="arrays"``
as numpy array operations; ``"auto"`` (the default) takes the compiled one when numba is
installed, not switched off (``RUMMY_ENV_NO_NUMBA=1``) and its kernels agree with the
array path on a few hundred moves (checked once per process; a warning says why not).
Dealing draws from the same numpy generator on both, so a seed gives the same games, and
tests hold every array of the two equal, step for step, under every rule option.
Hands are single hands (no match scores in observations, as ``episode="hand"``).
``encoding`` names any of the game's encodings that has a batch writer (``flat`` and
``planes``, or one a user registered with ``encode_batch``: ``rummy_env.core.vector``);
``encoding=None`` skips the observations (``StepResult.observation`` is None), for callers
that read the engine's arrays instead, such as search rollouts.

Outcome codes in ``StepResult.outcome``: see ``OUTCOMES`` (-1 for games still running).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from rummy_env.gin import encoding as enc
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, card_value
from rummy_env.core.compiled import Compiled
from rummy_env.core.game import get_game
from rummy_env.core.vector import EngineBase, batch_encoding, check_out, checked_actions, checked_deal
from rummy_env.gin.game import BIG_GIN, DISCARD, HAND_SIZE, KNOCK, NUM_ACTIONS, GinRummyState, IllegalActionError, Phase
from rummy_env.gin.rules import RulesSpec, load_rules
from rummy_env.gin.scoring import OUTCOMES, Outcome, score_showdown

REWARDS = ("points", "scaled", "win_loss")
ENGINES = ("auto", "compiled", "arrays")  # "auto": compiled when numba is there and agrees, else arrays
_BITS = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)
_ONE = np.uint64(1)
_STOCK_START = 2 * HAND_SIZE + 1  # deck index of the top of the stock


class StepResult(NamedTuple):
    """What ``reset``/``step`` return; arrays over the N games.

    ``player``, ``observation`` and ``action_mask`` describe the position now to play
    (after any automatic new deal). ``rewards`` (N, 2) and ``terminated`` are for the
    step just taken; for the games that ended, ``outcome``, ``winner`` (-1: nobody),
    ``points``, ``knocker`` (-1: no knock) and both deadwoods describe the showdown.
    """

    player: np.ndarray
    observation: Optional[np.ndarray]  # None when the engine was made with encoding=None
    action_mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    outcome: np.ndarray
    winner: np.ndarray
    points: np.ndarray
    knocker: np.ndarray
    knocker_deadwood: np.ndarray
    defender_deadwood: np.ndarray


class VectorGinRummy(EngineBase):
    """N hands of Gin Rummy as arrays. See the module docstring."""

    def __init__(
        self,
        num_envs: int,
        rules: RulesSpec = "classic",
        encoding: Any = "flat",
        reward: str = "points",
        seed: Optional[int] = None,
        engine: str = "auto",
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.num_envs = int(num_envs)
        self.num_players = 2
        self.rules = load_rules(rules)
        self._encoder = batch_encoding(get_game("gin"), encoding)
        self.encoding = None if self._encoder is None else self._encoder.name
        self.reward_mode = reward
        self.observation_shape = None if self._encoder is None else tuple(self._encoder.shape(self.rules))
        self._opts = {"aces_high": self.rules.aces_high, "five_under_ten": self.rules.five_under_ten}
        self._rng = np.random.default_rng(seed)
        n = self.num_envs
        self.decks = np.zeros((n, NUM_CARDS), dtype=np.int8)
        self.dealer = np.zeros(n, dtype=np.int8)
        self.hands = np.zeros((n, 2), dtype=np.uint64)
        self.stock_next = np.zeros(n, dtype=np.int16)  # deck index of the stock's top card
        self.pile = np.zeros((n, NUM_CARDS), dtype=np.int8)
        self.pile_len = np.zeros(n, dtype=np.int16)
        self.pile_mask = np.zeros(n, dtype=np.uint64)
        self.current = np.zeros(n, dtype=np.int8)
        self.phase = np.zeros(n, dtype=np.int8)
        self.turn = np.zeros(n, dtype=np.int16)
        self.passes = np.zeros(n, dtype=np.int8)
        self.must_draw_stock = np.zeros(n, dtype=bool)
        self.taken = np.full(n, -1, dtype=np.int8)
        # per seat, the card it took from the pile at its latest draw (-1: from the stock, or
        # no draw yet): public, and not recoverable from the other arrays; the heuristic's
        # knock estimate reads the opponent's (``rummy_env.agents.gin.knock_vector``)
        self.took = np.full((n, 2), -1, dtype=np.int8)
        # the rules' guards against endless hands (``GinRummyState.repeated`` and ``upcard_draws``)
        self.repeated = np.zeros(n, dtype=bool)
        self.upcard_draws = np.zeros(n, dtype=np.int16)
        self.knock_limit = np.zeros(n, dtype=np.int16)
        self.known = np.zeros((n, 2), dtype=np.uint64)
        self.discarded = np.zeros((n, 2), dtype=np.uint64)
        self.passed = np.zeros((n, 2), dtype=np.uint64)
        self._mask: Optional[np.ndarray] = None
        self._after: Optional[np.ndarray] = None
        self._deadwood: Optional[np.ndarray] = None  # the mover's least deadwood (compiled engine)
        self._hand_deadwood: Optional[np.ndarray] = None  # (N, 2) each seat's (compiled engine; None: to solve)
        self._rows = np.arange(n)
        self._jit: Any = None
        module = None if engine == "arrays" else compiled_engine()
        if engine == "compiled" and module is None:
            raise ValueError("engine='compiled' needs numba (pip install 'rummy-env[fast]'), RUMMY_ENV_NO_NUMBA unset "
                             "and kernels that compile here (a warning said why not); use engine='auto' or 'arrays'")
        self.engine = "arrays"
        if module is not None:
            self._use_compiled(module)

    def __getstate__(self) -> dict:
        """Pickled (checkpoints, worker processes) without the kernels' module: an unpickled
        engine looks them up again (the array path if the new process has none)."""
        state = dict(self.__dict__)
        state["_jit"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.engine == "compiled":
            module = compiled_engine()
            if module is None:
                self.engine = "arrays"
            else:
                self._jit = module

    def _use_compiled(self, module: Any) -> None:
        """Step with ``module``'s kernels (``rummy_env.gin.vector_jit``) from now on."""
        self._jit, self.engine = module, "compiled"
        self._tables = _jit_tables(self.rules)
        # the knock limit of a deal by the upcard's rank (Oklahoma), or the rules' limit
        ranks = np.arange(13)
        values = np.array([card_value(r, self.rules.five_under_ten) for r in ranks], dtype=np.int16)
        self._upcard_limits = (np.where(ranks == 0, 0, values) if self.rules.oklahoma
                               else np.full(13, self.rules.knock_limit)).astype(np.int16)
        self._mask = self._hand_deadwood = None

    # ------------------------------------------------------------------ dealing

    def reset(
        self, seed: Optional[int] = None, decks: Optional[np.ndarray] = None, dealers: Optional[np.ndarray] = None
    ) -> StepResult:
        """Deal every game anew (shuffled, or from explicit ``decks`` (N, 52) and ``dealers``)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.deal_rows(self._rows, decks, dealers)
        return self._result(np.zeros((self.num_envs, 2), dtype=np.float32), np.zeros(self.num_envs, dtype=bool), None)

    def deal_rows(self, rows: np.ndarray, decks: Optional[np.ndarray] = None,
                  dealers: Optional[np.ndarray] = None) -> None:
        """Deal games ``rows`` anew (the others play on): shuffled, or from explicit ``decks``
        (len(rows), 52) and ``dealers`` (len(rows),)."""
        self._deal(*checked_deal(self.num_envs, 2, NUM_CARDS, rows, decks, dealers))

    def _deal(self, rows: np.ndarray, decks: Optional[np.ndarray] = None, dealers: Optional[np.ndarray] = None) -> None:
        """Deal ``rows`` (intp) from checked ``decks`` and ``dealers`` (None: shuffled)."""
        n = rows.size
        if decks is None:
            decks = np.argsort(self._rng.random((n, NUM_CARDS)), axis=1).astype(np.int8)
        else:
            decks = decks.astype(np.int8)
        if dealers is None:
            dealers = self._rng.integers(0, 2, size=n)
        if self._jit is not None:
            if self._hand_deadwood is None:  # the other games' hands keep theirs
                self._hand_deadwood = melds.min_deadwood(self.hands, **self._opts)
            self._jit.deal_games(
                rows.astype(np.intp), decks, dealers.astype(np.int8), self._upcard_limits,
                int(Phase.OFFER if self.rules.first_upcard_pass else Phase.DRAW), self.decks, self.dealer, self.hands,
                self.stock_next, self.pile, self.pile_len, self.pile_mask, self.current, self.phase, self.turn,
                self.passes, self.must_draw_stock, self.taken, self.took, self.knock_limit, self.known, self.discarded,
                self.passed, self.repeated, self.upcard_draws, *self._tables, self._hand_deadwood)
            self._mask = None
            return
        bits = _BITS[decks.astype(np.intp)]
        first = np.bitwise_or.reduce(bits[:, :HAND_SIZE], axis=1)
        second = np.bitwise_or.reduce(bits[:, HAND_SIZE : 2 * HAND_SIZE], axis=1)
        dealers = dealers.astype(np.int8)
        self.decks[rows] = decks
        self.dealer[rows] = dealers
        self.hands[rows, 1 - dealers] = first
        self.hands[rows, dealers] = second
        self.stock_next[rows] = _STOCK_START
        upcard = decks[:, 2 * HAND_SIZE]
        self.pile[rows, 0] = upcard
        self.pile_len[rows] = 1
        self.pile_mask[rows] = _BITS[upcard.astype(np.intp)]
        self.current[rows] = 1 - dealers
        self.phase[rows] = Phase.OFFER if self.rules.first_upcard_pass else Phase.DRAW
        self.turn[rows] = 0
        self.passes[rows] = 0
        self.must_draw_stock[rows] = False
        self.taken[rows] = -1
        self.took[rows] = -1
        self.repeated[rows] = False
        self.upcard_draws[rows] = 0
        if self.rules.oklahoma:
            ranks = upcard % 13
            values = np.array([card_value(r, self.rules.five_under_ten) for r in range(13)], dtype=np.int16)
            self.knock_limit[rows] = np.where(ranks == 0, 0, values[ranks])
        else:
            self.knock_limit[rows] = self.rules.knock_limit
        for arr in (self.known, self.discarded, self.passed):
            arr[rows] = 0
        if self._hand_deadwood is not None:
            self._hand_deadwood[rows] = melds.min_deadwood(self.hands[rows], **self._opts)
        self._mask = None

    def load_states(self, rows, states: Sequence[GinRummyState]) -> None:
        """Put positions of the pure game into games ``rows`` (one state each, any point of
        a hand that is not over), to play on from there; search uses it to play many
        sampled worlds out at once. The stock keeps its order; the rest of a row's deck
        (the deal order, which only dealing reads) is filled with the other cards."""
        rows = np.asarray(rows, dtype=np.intp)
        if rows.shape != (len(states),):
            raise ValueError(f"rows must be a 1-d array with one game per state, got {rows.shape} for {len(states)} states")
        if rows.size and (rows.min() < 0 or rows.max() >= self.num_envs or np.unique(rows).size != rows.size):
            raise ValueError(f"rows must be distinct game indices in 0..{self.num_envs - 1}")
        for g, s in zip(rows.tolist(), states):
            if s.rules != self.rules:
                raise ValueError(f"state for game {g} has rules {s.rules}, this engine plays {self.rules}")
            if s.phase == Phase.OVER:
                raise ValueError(f"state for game {g} is a finished hand; only live positions can be loaded")
            stock = s.stock[::-1]  # top first
            self.decks[g] = [c for c in range(NUM_CARDS) if c not in set(stock)] + stock
            self.stock_next[g] = NUM_CARDS - len(stock)
            self.dealer[g] = s.dealer
            self.hands[g] = s.hands
            self.pile[g, : len(s.discard_pile)] = s.discard_pile
            self.pile_len[g] = len(s.discard_pile)
            self.pile_mask[g] = sum(1 << c for c in s.discard_pile)
            self.current[g] = s.current_player
            self.phase[g] = s.phase
            self.turn[g] = s.turn
            self.passes[g] = s.offer_passes
            self.must_draw_stock[g] = s.must_draw_stock
            self.taken[g] = -1 if s.taken_card is None else s.taken_card
            for seat in (0, 1):
                draws = [c for who, event, c in s.public_history if who == seat and event in ("draw_stock", "take_discard")]
                self.took[g, seat] = draws[-1] if draws else -1
            self.repeated[g] = s.repeated
            self.upcard_draws[g] = s.upcard_draws
            self.knock_limit[g] = s.knock_limit
            self.known[g] = s.known
            self.discarded[g] = s.discarded
            self.passed[g] = s.passed
        self._mask = self._hand_deadwood = None

    _STATE = ("decks", "dealer", "hands", "stock_next", "pile", "pile_len", "pile_mask", "current", "phase", "turn",
              "passes", "must_draw_stock", "taken", "took", "repeated", "upcard_draws", "knock_limit", "known", "discarded",
              "passed")

    def copy_games(self, source: VectorGinRummy, source_rows: np.ndarray | Sequence[int],
                   rows: np.ndarray | Sequence[int]) -> None:
        """Put the positions of games ``source_rows`` of engine ``source`` into games
        ``rows`` of this one (the same source row may fill several), whole: hands,
        stock order, pile and what each player has seen. Rollouts use it to play one
        position on many times, each copy's stock reordered by the caller."""
        source_rows = np.asarray(source_rows, dtype=np.intp)
        rows = np.asarray(rows, dtype=np.intp)
        if source.rules != self.rules:
            raise ValueError(f"the source engine plays {source.rules}, this one {self.rules}")
        if source_rows.ndim != 1 or rows.shape != source_rows.shape:
            raise ValueError(f"source_rows and rows must be 1-d and of one length, got {source_rows.shape} and {rows.shape}")
        if rows.size and (rows.min() < 0 or rows.max() >= self.num_envs or np.unique(rows).size != rows.size):
            raise ValueError(f"rows must be distinct game indices in 0..{self.num_envs - 1}")
        if source_rows.size and (source_rows.min() < 0 or source_rows.max() >= source.num_envs):
            raise ValueError(f"source_rows must be game indices in 0..{source.num_envs - 1}")
        for name in self._STATE:
            getattr(self, name)[rows] = getattr(source, name)[source_rows]
        self._mask = self._hand_deadwood = None

    def snapshot(self) -> dict[str, Any]:
        """Every game's position and the dealing generator, as plain data (arrays, ints,
        a dict): what a training checkpoint keeps of the games in progress, so that it can
        be read back without unpickling objects (``restore``)."""
        return self.snapshot_of(vars(self))

    @classmethod
    def snapshot_of(cls, attributes: dict[str, Any]) -> dict[str, Any]:
        """``snapshot()`` of an engine whose attributes are ``attributes``: its own, or those
        a rummy-env 0.2 checkpoint pickled, read as data (``rummy_env.train.rollout.state_of_v1``)."""
        return {"num_envs": int(attributes["num_envs"]), "rng": attributes["_rng"].bit_generator.state,
                "arrays": {name: np.array(attributes[name]) for name in cls._STATE}}

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Continue from ``snapshot()``'s output (of an engine with the same number of games
        and rules); refused, naming the field, when it does not fit this engine."""
        if not isinstance(snapshot, dict) or snapshot.get("num_envs") != self.num_envs:
            held = snapshot.get("num_envs") if isinstance(snapshot, dict) else None
            raise ValueError(f"the snapshot holds {held} games; this engine plays {self.num_envs}")
        arrays = snapshot.get("arrays")
        if not isinstance(arrays, dict) or set(arrays) != set(self._STATE):
            raise ValueError(f"a snapshot's arrays must be exactly {', '.join(self._STATE)}")
        held = {name: np.asarray(arrays[name]) for name in self._STATE}  # tensors too (a checkpoint's)
        for name, theirs in held.items():
            mine = getattr(self, name)
            if theirs.shape != mine.shape or theirs.dtype != mine.dtype:
                raise ValueError(f"snapshot array {name} is {theirs.dtype}{list(theirs.shape)}; "
                                 f"this engine's is {mine.dtype}{list(mine.shape)}")
        rng = np.random.default_rng()
        rng.bit_generator.state = snapshot["rng"]  # checks the generator's kind and state
        for name, theirs in held.items():
            getattr(self, name)[...] = theirs
        self._rng = rng
        self._mask = self._hand_deadwood = None

    # ------------------------------------------------------------------ stepping

    def action_mask(self) -> np.ndarray:
        """int8 (N, 108) mask of legal actions for the player to move in each game."""
        if self._mask is None:
            self._mask, self._after = self._legal()
        return self._mask

    def discard_deadwood(self) -> np.ndarray:
        """int16 (N, 52): in games in the discard phase, the deadwood the player to move keeps
        after discarding each card (-1 for cards not held); -1 everywhere in other games."""
        self.action_mask()
        assert self._after is not None
        return self._after

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action in every game (intp, (N,)), from one uniform draw
        per game: the legal action of rank floor(u x number legal) in id order. The
        cheapest random player (rollouts, benchmarks); both engines give the same actions."""
        u = rng.random(self.num_envs)
        mask = self.action_mask()
        if self._jit is not None:
            out = np.empty(self.num_envs, dtype=np.intp)
            self._jit.random_legal(self._legal_ids, self._num_legal, u, out)
            return out
        k = (u * mask.sum(axis=1)).astype(np.intp)
        return (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1)

    def _legal(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_envs
        mask = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        after = np.full((n, NUM_CARDS), -1, dtype=np.int16)
        if self._jit is not None:
            if self._hand_deadwood is None:
                self._hand_deadwood = melds.min_deadwood(self.hands, **self._opts)
            self._deadwood = np.empty(n, dtype=np.int16)
            self._num_legal = np.empty(n, dtype=np.int16)
            self._legal_ids = np.empty((n, NUM_ACTIONS), dtype=np.int16)  # only [:num_legal] per row is written
            self._jit.legal_moves(self.hands, self.current, self.phase, self.must_draw_stock, self.pile, self.pile_len,
                                  self.taken, self.stock_next, self.knock_limit, self.rules.big_gin, self.rules.wall_knock,
                                  self.rules.discard_taken_card, *self._tables, self._hand_deadwood, mask, after,
                                  self._deadwood, self._num_legal, self._legal_ids)
            return mask, after
        offer = self.phase == Phase.OFFER
        # the wall (``wall_knock``): the draw phase with 2 cards left in the stock
        wall = (self.phase == Phase.DRAW) & (NUM_CARDS - self.stock_next <= 2) & self.rules.wall_knock
        draw = (self.phase == Phase.DRAW) & ~wall
        mask[offer, 1] = 1
        mask[offer, 2] = 1
        mask[draw, 0] = 1
        mask[draw, 1] = ~self.must_draw_stock[draw] & (self.pile_len[draw] > 0)
        at_wall = np.flatnonzero(wall)
        if at_wall.size:
            mask[at_wall, 2] = 1
            top = self.pile[at_wall, self.pile_len[at_wall] - 1].astype(np.intp)
            dd = melds.discard_deadwood(self.hands[at_wall, self.current[at_wall]] | _BITS[top], **self._opts)
            if not self.rules.discard_taken_card:
                dd[np.arange(at_wall.size), top] = -1
            mask[at_wall, 1] = ((dd >= 0) & (dd <= self.knock_limit[at_wall, None])).any(axis=1)
        rows = np.flatnonzero(self.phase == Phase.DISCARD)
        if rows.size:
            hand = self.hands[rows, self.current[rows]]
            held = (hand[:, None] & _BITS) != 0
            taken = self.taken[rows]
            allowed = held.copy()
            has_taken = taken >= 0
            if not self.rules.discard_taken_card:
                allowed[np.flatnonzero(has_taken), taken[has_taken]] = False
            # having taken the discard at the wall: knocks only
            wall_take = has_taken & (NUM_CARDS - self.stock_next[rows] <= 2) & self.rules.wall_knock
            dd = melds.discard_deadwood(hand, **self._opts)
            after[rows] = dd
            mask[rows, DISCARD : DISCARD + NUM_CARDS] = allowed & ~wall_take[:, None]
            mask[rows, KNOCK : KNOCK + NUM_CARDS] = allowed & (dd <= self.knock_limit[rows, None])
            if self.rules.big_gin:
                # 11 cards never split into 3-card melds only, so Big Gin leaves some discard at 0.
                maybe = np.flatnonzero(((dd == 0) & held).any(axis=1))
                if maybe.size:
                    full = melds.min_deadwood(hand[maybe], **self._opts) == 0
                    mask[rows[maybe[full]], BIG_GIN] = 1
        return mask, after

    def step(self, actions, active: Optional[np.ndarray] = None) -> StepResult:
        """Apply one action per game; returns the next positions (see ``StepResult``).

        ``active`` (N,) bool, optional: only those games move; the others' actions are
        ignored and their positions stay as they are.
        """
        mask = self.action_mask()

        def illegal(bad: np.ndarray, a: np.ndarray) -> IllegalActionError:
            detail = "; ".join(f"game {g}: action {int(a[g])}, legal {np.flatnonzero(mask[g]).tolist()}" for g in bad[:5])
            return IllegalActionError(f"illegal actions in {bad.size} game(s): {detail}")

        a = checked_actions(self.num_envs, NUM_ACTIONS, mask, actions, active, illegal).astype(np.intp)
        n = self.num_envs
        rewards = np.zeros((n, 2), dtype=np.float32)
        terminated = np.zeros(n, dtype=bool)
        out = _Outcome(n)
        p = self.current.astype(np.intp)

        if self._jit is not None:
            showdowns = np.empty(n, dtype=np.intp)
            count = self._jit.apply_actions(
                a, self.hands, self.known, self.discarded, self.passed, self.pile, self.pile_len, self.pile_mask,
                self.taken, self.took, self.phase, self.current, self.passes, self.must_draw_stock, self.decks,
                self.stock_next, self.turn, self.repeated, self.upcard_draws, self.rules.max_turns,
                self.rules.wall_knock, self.rules.max_upcard_draws, self._after, self._hand_deadwood, terminated,
                out.outcome, showdowns)
            if count:
                rows = showdowns[:count]
                self._showdown(rows, a[rows], p[rows], rewards, out)
                terminated[rows] = True
            return self._finish(rewards, terminated, out)

        stock_size = NUM_CARDS - self.stock_next
        wall = (self.phase == Phase.DRAW) & (stock_size <= 2) & self.rules.wall_knock  # before the moves
        take = np.flatnonzero(a == 1)
        if take.size and self.rules.max_upcard_draws:
            counted = take[(self.phase[take] == Phase.DRAW) & ~wall[take]]
            self.upcard_draws[counted] += 1
            capped = counted[self.upcard_draws[counted] >= self.rules.max_upcard_draws]  # drawn; the card stays
            terminated[capped] = True
            out.outcome[capped] = Outcome.DRAW
            take = np.setdiff1d(take, capped)
        if take.size:
            top = self.pile[take, self.pile_len[take] - 1].astype(np.intp)
            bit = _BITS[top]
            self.hands[take, p[take]] |= bit
            self.known[take, p[take]] |= bit
            self.pile_len[take] -= 1
            self.pile_mask[take] &= ~bit
            self.taken[take] = top
            self.took[take, p[take]] = top
            self.phase[take] = Phase.DISCARD

        walled = np.flatnonzero((a == 2) & wall)
        if walled.size:  # a pass at the wall draws the hand
            top = self.pile[walled, self.pile_len[walled] - 1].astype(np.intp)
            self.passed[walled, p[walled]] |= _BITS[top]
            terminated[walled] = True
            out.outcome[walled] = Outcome.DRAW
        passing = np.flatnonzero((a == 2) & ~wall)
        if passing.size:
            top = self.pile[passing, self.pile_len[passing] - 1].astype(np.intp)
            self.passed[passing, p[passing]] |= _BITS[top]
            self.passes[passing] += 1
            self.current[passing] = 1 - p[passing]
            both = passing[self.passes[passing] == 2]
            self.phase[both] = Phase.DRAW
            self.must_draw_stock[both] = True

        stock = np.flatnonzero(a == 0)
        if stock.size:
            declined = stock[(self.pile_len[stock] > 0) & ~self.must_draw_stock[stock]]
            top = self.pile[declined, self.pile_len[declined] - 1].astype(np.intp)
            self.passed[declined, p[declined]] |= _BITS[top]
            card = self.decks[stock, self.stock_next[stock]].astype(np.intp)
            self.stock_next[stock] += 1
            self.hands[stock, p[stock]] |= _BITS[card]
            self.must_draw_stock[stock] = False
            self.taken[stock] = -1
            self.took[stock, p[stock]] = -1
            self.phase[stock] = Phase.DISCARD

        disc = np.flatnonzero((a >= DISCARD) & (a < KNOCK))
        if disc.size:
            card = a[disc] - DISCARD
            bit = _BITS[card]
            pd = p[disc]
            self.hands[disc, pd] &= ~bit
            self.known[disc, pd] &= ~bit
            self.discarded[disc, pd] |= bit
            self.pile[disc, self.pile_len[disc]] = card
            self.pile_len[disc] += 1
            self.pile_mask[disc] |= bit
            thrown_back = card == self.taken[disc]  # only with discard_taken_card
            self.taken[disc] = -1
            self.turn[disc] += 1
            repeated = thrown_back & self.repeated[disc]
            self.repeated[disc] = thrown_back
            at_wall = NUM_CARDS - self.stock_next[disc] <= 2
            # the checks in the pure game's order: a second throw-back, the wall, max_turns
            ended = repeated | np.where(at_wall, not self.rules.wall_knock, self.turn[disc] >= self.rules.max_turns)
            done = disc[ended]
            terminated[done] = True
            out.outcome[done] = Outcome.DRAW
            go_on = disc[~ended]
            self.current[go_on] = 1 - pd[~ended]
            self.phase[go_on] = Phase.DRAW

        showdown = np.flatnonzero(a >= KNOCK)
        if showdown.size:
            self._showdown(showdown, a[showdown], p[showdown], rewards, out)
            terminated[showdown] = True

        return self._finish(rewards, terminated, out)

    def _finish(self, rewards: np.ndarray, terminated: np.ndarray, out: "_Outcome") -> StepResult:
        """Deal the games that ended again, and the result of the step."""
        finished = np.flatnonzero(terminated)
        if finished.size:
            self._deal(finished)
        self._mask = None
        return self._result(rewards, terminated, out)

    def _showdown(self, rows, actions, knocker, rewards, out: "_Outcome") -> None:
        r = self.rules
        big = actions == BIG_GIN
        knocks = ~big
        card = actions[knocks] - KNOCK
        self.hands[rows[knocks], knocker[knocks]] &= ~_BITS[card]
        kd, dd = melds.showdown_deadwood(self.hands[rows, knocker], self.hands[rows, 1 - knocker], **self._opts)
        outcome, points = score_showdown(kd, dd, r, big)
        kd, dd = kd.astype(np.int32), dd.astype(np.int32)
        winner = np.select([outcome == Outcome.UNDERCUT, outcome == Outcome.TIE], [1 - knocker, -1], knocker)
        out.outcome[rows] = outcome
        out.points[rows] = points
        out.winner[rows] = winner
        out.knocker[rows] = knocker
        out.knocker_deadwood[rows] = kd
        out.defender_deadwood[rows] = dd
        scored = rows[winner >= 0]
        w = winner[winner >= 0]
        value = points[winner >= 0].astype(np.float32)
        if self.reward_mode == "scaled":
            value = value / 100.0
        elif self.reward_mode == "win_loss":
            value = np.sign(value)  # a win of 0 points (Big Gin against 0 with bonus 0) counts 0
        rewards[scored, w] = value
        rewards[scored, 1 - w] = -value

    # ------------------------------------------------------------------ observations

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, out: Optional["_Outcome"]) -> StepResult:
        out = out if out is not None else _Outcome(self.num_envs)
        mask = self.action_mask()
        return StepResult(
            player=self.current.copy(),
            observation=None if self.encoding is None else self.observe(),
            action_mask=mask,
            rewards=rewards,
            terminated=terminated,
            outcome=out.outcome,
            winner=out.winner,
            points=out.points,
            knocker=out.knocker,
            knocker_deadwood=out.knocker_deadwood,
            defender_deadwood=out.defender_deadwood,
        )


    def observe_flat(self, players: Optional[np.ndarray] = None, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The ``flat`` observations (N, flat size) of ``players`` (default: the player to move
        in each game), written from the game's layout (``rummy_env.gin.layout``) by the
        compiled kernel or the array operations; into ``out`` when given. The batch writer
        that every encoding built on the layout reads (``rummy_env.core.encoding``)."""
        check_out(out, (self.num_envs, enc.FLAT_SIZE))
        self.action_mask()
        if players is None and self._jit is not None:
            flat = np.empty((self.num_envs, enc.FLAT_SIZE), dtype=np.float32) if out is None else out
            self._jit.observe_flat(self.hands, self.current, self.pile, self.pile_len, self.pile_mask, self.known,
                                   self.discarded, self.passed, self.taken, self._after, self._deadwood, self.phase,
                                   self.stock_next, self.knock_limit, self.turn, self.dealer, self.rules.max_turns, flat)
            return flat
        p = self.current.astype(np.intp) if players is None else np.asarray(players, dtype=np.intp)
        q = 1 - p
        rows = self._rows
        hand = self.hands[rows, p]
        has_top = self.pile_len > 0
        top = np.where(has_top, _BITS[self.pile[rows, np.maximum(self.pile_len - 1, 0)].astype(np.intp)], np.uint64(0))
        taken = np.where(self.taken >= 0, _BITS[np.maximum(self.taken, 0).astype(np.intp)], np.uint64(0))
        assert self._after is not None
        after = self._after
        if players is not None:  # the stored per-card deadwood is for the player to move
            other = np.flatnonzero((p != self.current) & (np.bitwise_count(hand) == 11))
            after = after.copy()
            if other.size:
                after[other] = melds.discard_deadwood(hand[other], **self._opts)
        flat = enc.encode_batch(
            hand=hand,
            top=top,
            pile=self.pile_mask,
            opponent_known=self.known[rows, q],
            opponent_discarded=self.discarded[rows, q],
            opponent_passed=self.passed[rows, q],
            taken=taken,
            after_discard=after,
            deadwood=melds.min_deadwood(hand, **self._opts),
            phase=self.phase,
            stock_size=NUM_CARDS - self.stock_next,
            knock_limit=self.knock_limit,
            turn=self.turn,
            is_dealer=(self.dealer == p).astype(np.float32),
            rules=self.rules,
        )
        if out is not None:
            out[...] = flat
            return out
        return flat


def engine(num_envs: int, num_players: int = 2, **options: Any) -> VectorGinRummy:
    """The vector engine for ``Game.vector``: ``VectorGinRummy(num_envs, **options)`` (two
    players, as every hand of Gin Rummy)."""
    if num_players != 2:
        raise ValueError(f"Gin Rummy is played by 2 players, got {num_players}")
    return VectorGinRummy(num_envs, **options)


class _Outcome:
    """Per-game showdown arrays for one step (-1 where a game did not end that way)."""

    def __init__(self, n: int) -> None:
        self.outcome = np.full(n, -1, dtype=np.int8)
        self.winner = np.full(n, -1, dtype=np.int8)
        self.points = np.zeros(n, dtype=np.int32)
        self.knocker = np.full(n, -1, dtype=np.int8)
        self.knocker_deadwood = np.full(n, -1, dtype=np.int32)
        self.defender_deadwood = np.full(n, -1, dtype=np.int32)


def _load_engine() -> Any:
    from rummy_env.gin import vector_jit

    return vector_jit


def compiled_engine() -> Any:
    """``rummy_env.gin.vector_jit`` when numba is installed and not switched off
    (``RUMMY_ENV_NO_NUMBA=1``), the meld solver's kernels are in use, and the compiled
    step plays a few hundred moves exactly as the array path does; else None (with one
    warning when the kernels exist but fail). Decided once per process."""
    return COMPILED_ENGINE.get()


def _self_check(module: Any) -> str:
    """'' when the compiled step plays 48 games for 120 moves exactly as the array path."""
    engines = [VectorGinRummy(48, rules=r, seed=3, engine="arrays") for r in ("classic", "openspiel")]
    twins = [VectorGinRummy(48, rules=r, seed=3, engine="arrays") for r in ("classic", "openspiel")]
    for twin in twins:
        twin._use_compiled(module)
    for plain, fast in zip(engines, twins):
        res, got = plain.reset(), fast.reset()
        rng = np.random.default_rng(0)
        for _ in range(120):
            if not all(np.array_equal(x, y) for x, y in zip(res, got)):
                return "the compiled step disagrees with the array operations"
            actions = plain.random_actions(rng)
            res, got = plain.step(actions), fast.step(actions)
    return ""


# the compiled step, used where the meld solver's kernels are and it plays a few hundred
# moves exactly as the array path does (``rummy_env.core.compiled``)
COMPILED_ENGINE = Compiled("the compiled vector engine", _load_engine, _self_check,
                           "VectorGinRummy runs as numpy array operations", needs=melds.KERNELS)


def _jit_tables(rules: Any) -> tuple[np.ndarray, ...]:
    """The meld solver's tables as ``vector_jit``'s kernels take them: (dead, dead_minus,
    opt4, opt3); int16 deadwood tables, which keep more of them in the cache."""
    from rummy_env.core import melds_jit

    t = melds._tables(rules.aces_high, rules.five_under_ten)
    _, _, opt4, opt3 = melds_jit.kernel_tables(rules.aces_high, rules.five_under_ten)
    return t.dead, t.dead_minus, opt4, opt3
