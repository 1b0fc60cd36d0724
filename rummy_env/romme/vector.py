"""Many Rommé hands stepped together as arrays: the engine for rollouts, tournaments of
array agents and benchmarks (``rummy_env.core.vector`` says what every engine offers).

``VectorRomme(num_envs, num_players)`` holds N hands at one table size (2 to 6 players).
``step(actions)`` takes one action per game, for whoever is to move there, and returns,
batched: the player to move next, that player's observation (the encodings of
``romme_v0``), the action mask, the step's rewards per seat (the hand's points, zero-sum,
when it ended) and which games ended, with each ended hand's result as the pure game
gives it. A game that ends is dealt again at once, so every row always holds a live hand.

The rules are those of ``rummy_env.romme.game`` (the single source of truth), stepped in
compiled loops over the games (``rummy_env.romme.vector_jit``, numba) that call the
game's own compiled legal mask and observation writer per game. Without numba (or with
``RUMMY_ENV_NO_NUMBA=1``, or where the compiled engine does not play a few hundred moves
exactly as the pure game: a warning says why) the game's engine is the pure hands stepped
in a loop (``rummy_env.core.vector_states.StatesEngine``): ``engine`` ("auto", the
default; "compiled"; "states") chooses. Both deal alike from one seed (per game: the
dealer, then the deck's shuffle, from one numpy generator), so they play the same games;
tests hold every step of the two equal.

The engine keeps kinds, not physical cards (``vector_jit`` says why that plays and shows
exactly the pure game's hands), and each game's deal order, from which a turnover's
shuffle is drawn as the pure game draws it (the hand's own seed and the turnover's
number). ``load_states(rows, states)`` puts pure hands (``RommeState``, mid-hand) into
rows, to play on from there exactly as they would: the generic search plays its playouts
so (``rummy_env.agents.search_playouts``); the pure hands in a loop cannot. Hands are
single hands (no table totals in observations, as ``episode="hand"``).
``encoding`` names any of the game's encodings with a batch writer (``flat``, ``planes``,
or a user's with ``encode_batch``) or None for no observations.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from rummy_env.core.compiled import Compiled
from rummy_env.core.game import IllegalActionError, get_game
from rummy_env.core.vector import EngineBase, check_out, checked_actions, checked_deal
from rummy_env.core.vector_states import chosen_engine
from rummy_env.romme.cards import FIRST_JOKER, KINDS, NUM_KINDS, num_physical
from rummy_env.romme.game import (
    DISCARD, DRAW_STOCK, LEGAL_KERNEL, MAX_TABLE_MELDS, NUM_ACTIONS, PICK, TAKE_DISCARD, Phase, RommeHandResult,
    RommeState, _meld_code, _seed_of, action_name,
)
from rummy_env.romme.layout import FLAT_SIZE
from rummy_env.romme.rules import MAX_PLAYERS, RommeRules, RommeRulesSpec, check_num_players, load_romme_rules

# how a hand ended, by the code ``vector_jit.apply_actions`` gives: (outcome, stalemate reason)
OUTCOMES = (("out", ""), ("hand_rummy", ""), ("stalemate", "stock"), ("stalemate", "max_turns"))
# Room for the legal ids of a position (a row of the mask holds more only in rare
# positions: a long hand that is out, with many table melds; ``random_actions`` then reads the mask)
MAX_LEGAL = 256
# The bit of ``passes`` (and of ``VectorRomme.passed``) that marks a draw from the stock with
# the upcard on top of the pile, the kinds 0..52 being bits 0..52
PASSED_UPCARD = NUM_KINDS  # (``vector_jit`` sets it so too: it cannot import this module)
# Rows of the solver's answers kept per game of the batch (``legal_jit._rules_of``; the
# table holds at least ``legal_jit.KNOWN_ROWS``): at 8,192 games the default table forgot
# answers before the batch's next step could use them
ANSWERS_PER_GAME = 64


class RommeStep(NamedTuple):
    """What ``reset`` and ``step`` return (``rummy_env.core.vector.VectorStep``), and per
    game the result of a hand the step ended (None elsewhere), equal to the pure game's."""

    player: np.ndarray
    observation: Optional[np.ndarray]  # None when the engine was made with encoding=None
    action_mask: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    results: list[Optional[RommeHandResult]]


class VectorRomme(EngineBase):
    """N hands of Rommé at ``num_players`` as arrays, stepped by compiled kernels (module
    docstring). Build it with ``engine`` (or ``Game.vector``), which falls back to the pure
    hands where the kernels cannot be used; made directly it needs them (``kernels``: the
    module, None for the one decided for this process; the self-check passes the module it
    checks)."""

    def __init__(self, num_envs: int, num_players: int = 2, rules: RommeRulesSpec = None, encoding: Any = "flat",
                 seed: Optional[int] = None, kernels: Any = None) -> None:
        self._set_up(get_game("romme"), num_envs, check_num_players(num_players), load_romme_rules(rules), encoding)
        self._jit = compiled_engine() if kernels is None else kernels
        if self._jit is None:
            raise ValueError("VectorRomme needs numba (pip install 'rummy-env[fast]'), RUMMY_ENV_NO_NUMBA unset and "
                             "kernels that compile here (a warning said why not); Game.vector or engine() fall back "
                             "to the pure hands")
        self.engine = "compiled"
        self._rng = np.random.default_rng(seed)
        self._size = num_physical(self.rules)
        r = self.rules
        self._game_rules = (int(r.take_discard_before_out == "meld"), int(r.turnover == "flip"), r.max_turns,
                            r.hand_rummy_multiplier, int(r.never_out_double), int(r.deal_extra_card), self._size)
        n, p = self.num_envs, self.num_players
        self.st = np.zeros((n, self._jit.NUM_FIELDS), dtype=np.int64)  # the turn's numbers (vector_jit's columns)
        self.hands = np.zeros((n, p, NUM_KINDS), dtype=np.uint8)  # kind counts per seat
        self.known = np.zeros((n, p, NUM_KINDS), dtype=np.uint8)  # cards known to be in each hand
        self.discarded = np.zeros((n, p, NUM_KINDS), dtype=np.uint8)  # each seat's discards this hand
        self.came_out = np.zeros((n, p), dtype=np.uint8)
        self.passed = np.zeros((n, p), dtype=np.int64)  # per seat the kinds it let go by (``passes``), as bits
        self.sizes = np.zeros((n, p), dtype=np.uint8)  # cards in each hand
        self.stock = np.zeros((n, self._size), dtype=np.int8)  # kinds; top is stock[st[STOCK_LEN] - 1]
        self.pile = np.zeros((n, self._size), dtype=np.int8)  # kinds, bottom to top
        self.codes = np.zeros((n, MAX_TABLE_MELDS, 5), dtype=np.int64)  # each table meld's reading (vector_jit)
        self.owners = np.zeros((n, MAX_TABLE_MELDS), dtype=np.uint8)
        self.decks = np.zeros((n, self._size), dtype=np.int8)  # each hand's deal order (physical ids): its seed
        self._seeds: dict[int, int] = {}  # row -> the hand's own seed, once a turnover asked for it
        self._rows = np.arange(n)
        self._mask: Optional[np.ndarray] = None
        self._num_legal = np.zeros(n, dtype=np.int16)
        self._legal_ids = np.zeros((n, MAX_LEGAL), dtype=np.int16)  # only [:num_legal] per row is written

    @property
    def current(self) -> np.ndarray:
        """(N,) the player to move in each game."""
        return self.st[:, self._jit.CUR]

    def __getstate__(self) -> dict:
        """Pickled (worker processes, checkpoints) without the kernels' module: an unpickled
        engine looks them up again in its process."""
        return {**self.__dict__, "_jit": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._jit = compiled_engine()
        if self._jit is None:
            raise ValueError("this VectorRomme was pickled where its compiled engine was used, and it is not used in "
                             "this process (numba missing or RUMMY_ENV_NO_NUMBA set)")

    def _kernel_rules(self) -> tuple:
        """What the game's compiled mask reads of the rules, and the solver's answers kept
        under them (``legal_jit._rules_of``: room for a few dozen answers per game, the
        questions of a batch's positions to come back in its next steps), with its scratch."""
        from rummy_env.romme import legal_jit

        flags, pen, answers = legal_jit._rules_of(self.rules, ANSWERS_PER_GAME * self.num_envs)
        return flags, pen, legal_jit.thread_scratch(), answers

    # ------------------------------------------------------------------ dealing

    def reset(self, seed: Optional[int] = None, decks: Optional[np.ndarray] = None,
              dealers: Optional[np.ndarray] = None) -> RommeStep:
        """Deal every game anew: shuffled (from ``seed`` when given, else the engine's
        generator), or from explicit ``decks`` (N, pack size) and ``dealers`` (N,)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.deal_rows(self._rows, decks, dealers)
        n = self.num_envs
        return self._result(np.zeros((n, self.num_players), dtype=np.float32), np.zeros(n, dtype=bool), [None] * n)

    def deal_rows(self, rows: np.ndarray, decks: Optional[np.ndarray] = None,
                  dealers: Optional[np.ndarray] = None) -> None:
        """Deal games ``rows`` (distinct indices) anew, the others left as they are: from
        ``decks`` (len(rows), pack size) and ``dealers`` where given, else from the
        generator. Tournaments deal each row its next hand this way as hands finish."""
        self._deal(*checked_deal(self.num_envs, self.num_players, self._size, rows, decks, dealers))

    def _deal(self, rows: np.ndarray, decks: Optional[np.ndarray], dealers: Optional[np.ndarray]) -> None:
        """Deal ``rows`` (intp) from checked ``decks`` and ``dealers`` (None: from the generator)."""
        if decks is None or dealers is None:  # per game the dealer, then the shuffle: as StatesEngine deals
            drawn_decks = np.empty((rows.size, self._size), dtype=np.int8)
            drawn_dealers = np.empty(rows.size, dtype=np.int8)
            for j in range(rows.size):
                drawn_dealers[j] = self._rng.integers(self.num_players) if dealers is None else dealers[j]
                drawn_decks[j] = self._rng.permutation(self._size) if decks is None else decks[j]
            decks, dealers = drawn_decks, drawn_dealers
        decks = decks.astype(np.int8)
        self.decks[rows] = decks
        for row in rows.tolist():
            self._seeds.pop(row, None)
        self._jit.deal_games(rows, decks, dealers.astype(np.int64), self.num_players, self._game_rules, self.st,
                             self.hands, self.known, self.discarded, self.came_out, self.sizes, self.stock, self.pile, self.passed)
        self._mask = None

    def load_states(self, rows: np.ndarray, states: Sequence[RommeState]) -> None:
        """Put the pure hands ``states`` (``RommeState``s of this engine's table size and
        rules, none over) into games ``rows`` (distinct indices), the others left as they
        are: each row then plays on from where its state stands, its masks, observations,
        steps (a turnover's shuffle from the state's own seed) and result those of the
        state stepped alike (``rummy_env.core.vector.LoadsStates``; the generic search plays
        its playouts so). Physical cards become kinds (``vector_jit`` says why nothing is
        lost): the card taken from the pile and the joker taken by a swap become the flags
        the engine keeps of them, each seat's discards and the kinds it let go by are read
        from the state's ``history``; its ``deck`` is not taken."""
        rows = checked_deal(self.num_envs, self.num_players, self._size, rows)[0]
        states = list(states)
        if len(states) != rows.size:
            raise ValueError(f"load_states needs one state per row: {rows.size} rows, {len(states)} states")
        for k, state in enumerate(states):
            if not isinstance(state, RommeState):
                raise ValueError(f"states[{k}] must be a Rommé state (RommeState), got {type(state).__name__}")
            if state.num_players != self.num_players or state.rules != self.rules:
                raise ValueError(f"states[{k}] must be a hand at this engine's {self.num_players} players and rules; "
                                 f"it has {state.num_players} players and rules {state.rules}")
            if state.phase == Phase.OVER:
                raise ValueError(f"states[{k}] is a hand that is over: an engine's games are always live hands")
        jit = self._jit
        for row, state in zip(rows.tolist(), states):
            self._load(row, state, jit)
        self._mask = None

    def _load(self, g: int, state: RommeState, jit: Any) -> None:
        """Game ``g`` made to hold ``state`` (checked by ``load_states``)."""
        n = self.num_players
        st = self.st[g]
        st[:] = 0
        cur = state.current_player
        held = state.hands[cur]
        taken, swapped = state.taken_card, state.swapped_joker
        pending_cards = [c for c, _ in state.pending]
        natm = jokm = 0
        for c, k in state.pending:
            if c < FIRST_JOKER:
                natm |= 1 << k
            else:
                jokm |= 1 << k
        for field, value in ((jit.CUR, cur), (jit.DEALER, state.dealer), (jit.PHASE, int(state.phase)),
                             (jit.TURN, state.turn), (jit.TURNOVERS, state.turnovers),
                             (jit.PUBLIC, state.stock_public), (jit.POINTS, state.turn_points),
                             (jit.MELDS, state.turn_melds), (jit.RUN, state.turn_run),
                             (jit.OUT_START, state.out_at_turn_start),
                             (jit.TAKEN, -1 if taken is None else KINDS[taken]),
                             (jit.HELD, state.taken_held),
                             (jit.IN_PENDING, taken is not None and taken in pending_cards),
                             (jit.MUST, state.must_meld_taken),
                             (jit.DEBT, swapped is not None and swapped in held),
                             (jit.NATM, natm), (jit.JOKM, jokm), (jit.STOCK_LEN, len(state.stock)),
                             (jit.PILE_LEN, len(state.discard_pile)), (jit.NUM_TABLE, len(state.table))):
            st[field] = int(value)
        masks, up_stays = passes(state.history, n, self.rules)
        st[jit.UP_STAYS] = up_stays
        self.passed[g] = masks
        kinds = np.asarray(KINDS, dtype=np.intp)
        for seat in range(n):
            self.hands[g, seat] = np.bincount(kinds[state.hands[seat]], minlength=NUM_KINDS)
            self.known[g, seat] = np.bincount(kinds[state.known[seat]], minlength=NUM_KINDS)
        discarded = np.zeros((n, NUM_KINDS), dtype=np.int64)
        for seat, action in state.history:
            if DISCARD <= action < PICK:
                discarded[seat, action - DISCARD] += 1
        self.discarded[g] = np.minimum(discarded, 255)
        self.came_out[g] = state.came_out
        self.sizes[g] = [len(h) for h in state.hands]
        self.stock[g, : len(state.stock)] = kinds[state.stock]
        self.pile[g, : len(state.discard_pile)] = kinds[state.discard_pile]
        for slot, meld in enumerate(state.table):
            self.codes[g, slot] = _meld_code(meld.meld)
            self.owners[g, slot] = meld.owner
        self._seeds[g] = state.seed  # the turnovers' shuffles: the hand's own seed, whatever dealt it

    # ------------------------------------------------------------------ stepping

    def action_mask(self) -> np.ndarray:
        """int8 (N, 5776): the legal actions of the player to move in each game."""
        if self._mask is None:
            mask = np.empty((self.num_envs, NUM_ACTIONS), dtype=np.int8)  # each row zeroed by the kernel
            flags, pen, scratch, answers = self._kernel_rules()
            self._jit.legal_moves(self.st, self.hands, self.came_out, self.pile, self.codes,
                                  self.rules.take_discard_before_out == "meld", flags, pen, scratch, answers, mask,
                                  self._num_legal, self._legal_ids)
            self._mask = mask
        return self._mask

    def random_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game from one uniform draw each: the legal
        action of rank floor(u x number legal) in id order (as every engine draws them)."""
        u = rng.random(self.num_envs)
        mask = self.action_mask()
        out = np.empty(self.num_envs, dtype=np.intp)
        self._jit.random_legal(self._legal_ids, self._num_legal, mask, u, out)
        return out

    def step(self, actions: np.ndarray, active: Optional[np.ndarray] = None) -> RommeStep:
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
        shuffle = np.zeros(n, dtype=bool)
        flags, pen, scratch, answers = self._kernel_rules()
        self._jit.apply_actions(a, self.num_players, self.st, self.hands, self.known, self.discarded, self.came_out,
                                self.sizes, self.stock, self.pile, self.codes, self.owners, self._game_rules, flags,
                                pen, scratch, answers, rewards, terminated, outcome, with_discard, shuffle, self.passed)
        for g in np.flatnonzero(shuffle & ~terminated).tolist():
            self._shuffle_stock(g)
        results: list[Optional[RommeHandResult]] = [None] * n
        done = np.flatnonzero(terminated)
        if done.size:
            for g in done.tolist():
                results[g] = self._hand_result(g, int(outcome[g]), bool(with_discard[g]), rewards[g])
            self._deal(done, None, None)
        self._mask = None
        return self._result(rewards, terminated, results)

    def _shuffle_stock(self, g: int) -> None:
        """Order game ``g``'s new stock (the pile below its top, laid in pile order by the
        kernel) as ``RommeState._end_turn`` shuffles it: a generator seeded by the hand's own
        seed and the turnover's number."""
        jit = self._jit
        seed = self._seeds.get(g)
        if seed is None:
            seed = self._seeds[g] = _seed_of(self.decks[g].tolist())
        size = int(self.st[g, jit.STOCK_LEN])
        order = np.random.default_rng([seed, int(self.st[g, jit.TURNOVERS])]).permutation(size)
        self.stock[g, :size] = self.stock[g, :size][order]

    def _illegal(self, bad: np.ndarray, actions: np.ndarray) -> IllegalActionError:
        """The error for illegal ``actions`` in games ``bad``: the first one's move and legal moves."""
        g = int(bad[0])
        action = int(actions[g])
        legal = ", ".join(f"{x} ({action_name(x)})" for x in np.flatnonzero(self.action_mask()[g]).tolist())
        more = f" (and {bad.size - 1} more game(s))" if bad.size > 1 else ""
        if not 0 <= action < NUM_ACTIONS:
            what = f"action must be an integer action id 0..{NUM_ACTIONS - 1}, got {action}"
        else:
            what = (f"illegal action {action} ({action_name(action)}) for player {int(self.current[g])} in phase "
                    f"{Phase(int(self.st[g, self._jit.PHASE])).name}")
        return IllegalActionError(f"Rommé game {g}: {what}; legal: {legal}{more}")

    def _hand_result(self, g: int, code: int, with_discard: bool, rewards: np.ndarray) -> RommeHandResult:
        """The pure game's result of the hand game ``g`` ended (``code``: ``OUTCOMES``), read
        before the game is dealt again: the winner is the player who moved, the others
        paid what their rewards say."""
        outcome, reason = OUTCOMES[code]
        n = self.num_players
        came_out = tuple(bool(x) for x in self.came_out[g])
        if outcome == "stalemate":
            return RommeHandResult(outcome, None, 0, (0,) * n, (), came_out, reason=reason)
        winner = int(self.current[g])
        penalties = tuple(0 if seat == winner else -int(rewards[seat]) for seat in range(n))
        hands = tuple(tuple(int(k) for k in np.repeat(np.arange(NUM_KINDS), self.hands[g, seat]))
                      for seat in range(n))
        return RommeHandResult(outcome, winner, int(rewards[winner]), penalties, hands, came_out, with_discard)

    def _result(self, rewards: np.ndarray, terminated: np.ndarray, results: list) -> RommeStep:
        return RommeStep(self.current.astype(np.int64), None if self._encoder is None else self.observe(),
                         self.action_mask(), rewards, terminated, results)

    # ------------------------------------------------------------------ observations


    def observe_flat(self, players: Optional[np.ndarray] = None, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The ``flat`` observations (N, 3288) of ``players`` (default: the player to move in
        each game), written by the game's compiled writer (``rummy_env.romme.encoding_jit``)
        in one compiled loop; into ``out`` when given. The batch writer every encoding built
        on the layout reads (``rummy_env.core.encoding``)."""
        check_out(out, (self.num_envs, FLAT_SIZE))
        if players is None:
            seats = self.current
        else:
            seats = np.asarray(players)
            if (seats.shape != (self.num_envs,) or seats.dtype.kind not in "iu"
                    or not ((seats >= 0) & (seats < self.num_players)).all()):
                raise ValueError(f"players must be seats 0..{self.num_players - 1}, one per game ({self.num_envs},)")
        # each row is zeroed by the kernel before it is written (in cache), not here
        flat = np.empty((self.num_envs, FLAT_SIZE), dtype=np.float32) if out is None else out
        from rummy_env.romme.encoding_jit import _rules_numbers

        self._jit.observe_flat(seats.astype(np.int64), self.num_players, self.st, self.hands, self.known,
                               self.discarded, self.came_out, self.sizes, self.stock, self.pile, self.codes,
                               self.owners, _rules_numbers(self.rules), flat)
        return flat


def passes(history: Sequence[tuple[int, int]], num_players: int, rules: RommeRules) -> tuple[list[int], bool]:
    """What a hand's public history (``(seat, action)`` pairs from the deal) says each seat let
    go by: per seat, as bits, the kinds that lay on top of the discard pile when it drew from
    the stock instead, and bit ``vector_jit.PASSED_UPCARD`` if that top was the upcard while
    it still lay at the bottom of the pile; and whether it still lies there (never taken,
    never turned over into the stock). The history does not name the upcard (the pile shows
    it while it stays): the pile is replayed from the public moves, turnovers included."""
    masks = [0] * num_players
    stock = num_physical(rules) - rules.cards_dealt(True) - (num_players - 1) * rules.cards_dealt(False) - 1
    pile: list[int] = [-1]  # kinds, -1 the upcard while it stays
    for seat, action in history:
        if action == DRAW_STOCK:
            if pile:
                masks[seat] |= 1 << (PASSED_UPCARD if pile[-1] < 0 else pile[-1])
            stock -= 1
        elif action == TAKE_DISCARD:
            pile.pop()
        elif DISCARD <= action < PICK:
            pile.append(action - DISCARD)
            if stock == 0 and len(pile) > 1:  # the stock is turned over: the pile keeps its top
                stock, pile = len(pile) - 1, pile[-1:]
    return masks, bool(pile) and pile[0] < 0


def engine(num_envs: int, num_players: int = 2, engine: str = "auto", **options: Any) -> Any:
    """The vector engine for ``Game.vector``: ``VectorRomme`` (``engine="compiled"``), or
    the pure hands stepped in a loop (``"states"``: ``StatesEngine``), or (``"auto"``) the
    compiled one where it can be used, else the pure hands. ``options``: ``rules``,
    ``encoding``, ``seed``."""
    return chosen_engine(get_game("romme"), engine, compiled_engine, VectorRomme, num_envs, num_players, **options)


def _load_engine() -> Any:
    from rummy_env.romme import vector_jit

    return vector_jit


def compiled_engine() -> Any:
    """``rummy_env.romme.vector_jit`` when numba is installed and not switched off
    (``RUMMY_ENV_NO_NUMBA=1``), the game's compiled mask is in use, and the compiled engine
    plays a few hundred moves exactly as the pure hands do; else None (with one warning
    when the kernels exist but fail). Decided once per process."""
    return COMPILED_ENGINE.get()


# rules that reach the kernels' branches within a few hundred moves of random play: a flipped
# stock turned over, jokers side by side and around the corner, going out without a discard
_CHECK_RULES = ({"turnover": "flip", "max_turns": 60},
                {"go_out_without_discard": True, "take_discard_before_out": "free", "adjacent_jokers": True,
                 "aces_around_the_corner": True, "deal_extra_card": False, "never_out_double": True},
                {"come_out_points": 40, "come_out_needs_run": True, "naturals_per_meld": "more_than_jokers",
                 "jokers": 4, "max_turns": 40})


def _self_check(module: Any) -> str:
    """'' when the compiled engine plays 8 games for 120 moves, at 2, 4 and 6 players,
    exactly as the pure hands do (the same seed deals the same games): every player,
    mask, observation, reward and result."""
    from rummy_env.core.vector_states import StatesEngine

    for n, rules in zip((2, 4, MAX_PLAYERS), _CHECK_RULES):
        fast = VectorRomme(8, n, rules=rules, seed=n, kernels=module)
        pure = StatesEngine(get_game("romme"), 8, n, rules=rules, seed=n)
        got, res = fast.reset(), pure.reset()
        rng = np.random.default_rng(n)
        for _ in range(120):
            if not (all(np.array_equal(x, y) for x, y in zip(got[:5], res[:5])) and got.results == res.results):
                return "the compiled engine disagrees with the pure game"
            # half the moves the highest legal id in play (melds, lay-offs and swaps: hands go
            # out) and a draw from the stock (it runs out and is turned over)
            last = NUM_ACTIONS - 1 - np.argmax(res.action_mask[:, ::-1] != 0, axis=1)
            last[(last == TAKE_DISCARD) & (res.action_mask[:, DRAW_STOCK] == 1)] = DRAW_STOCK
            actions = np.where(rng.random(8) < 0.5, last, pure.random_actions(rng))
            got, res = fast.step(actions), pure.step(actions)
    return ""


# the compiled engine, used where it plays a few hundred moves exactly as the pure hands
# (``rummy_env.core.compiled``), and only with the game's compiled mask (which it calls)
COMPILED_ENGINE = Compiled("the compiled Rommé vector engine", _load_engine, _self_check,
                           "Rommé's vector engine steps the pure hands in a loop", needs=LEGAL_KERNEL)
