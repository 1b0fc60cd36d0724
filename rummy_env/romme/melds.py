"""Rommé's melds and the exact meld solver, batch-first over hands of kind counts.

Why a solver of its own. Gin's solver (``rummy_env.core.melds``) works on 52-bit masks
of one deck without jokers, where within a suit every block of three or more cards is a
run. Rommé's hands hold two copies of a card and jokers that stand for any card a meld
needs, so that shortcut is gone: here the search is over melds.

How it stays exact. Take the lowest natural card still undecided: it is either left in
hand or in one meld with other cards still undecided (which are all higher). So a search
over "the lowest card: left, or each meld holding it", with the cards still undecided as
the state, sees every arrangement of disjoint melds; states repeat, so each is solved
once (memoised). The melds a hand can form are listed once per hand (``_candidates``),
one per distinct *use of cards* (the natural cards and the number of jokers): two
readings of the same cards (a joker at either end of a run) leave the same cards, so
only the more valuable one is kept. A meld may use a joker where the hand holds the
natural card: that card is then free for another meld, so those uses are listed too.

What each state keeps depends on the question, through a *context*: the melds' value so
far capped at the coming-out threshold, whether a run was laid, whether the card just
taken was used, and how many cards were left (capped at ``keep``). For each context the
state keeps the best completion: least penalty, then most value (``_Search``). The
least penalty of a hand has a single context; coming out up to (points + 1) x 2 x 2 x
(keep + 1). Whether a hand can come out at all (``can_come_out``) keeps the most value per
context instead, without the value in the context (2 x 2 x (keep + 1) at most).

Melds on the table (``Meld``) are readings: a run knows its suit, where it starts and
which of its places are jokers; a set knows its rank, its natural suits and the suits its
jokers stand for. Which missing suits those are matters to no rule (a joker in a set may
be swapped for any missing suit of its rank), so a set names the lowest missing suits.

With numba installed, the searches (batches and single hands) run as compiled loops
(``rummy_env.romme.melds_jit``), decided once per process like Gin's solver
(``RUMMY_ENV_NO_NUMBA=1`` keeps them off; kernels that fail to compile or disagree with
the Python search on a few hands are dropped with one warning). The Python search here is
the fallback and the reference they are tested against; both give the same numbers and
the same arrangements.

The meld being built (``completions``) is asked about for every card at every step of
the game's legal mask, so it has fast paths of its own: ``next_cards`` says for all 52
kinds at once which may go into it next, and ``_completions`` lists its completions
visiting only the windows that can hold them (both compiled too, under the same switch).
``_completions_reference`` keeps the plain enumeration they are tested against.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple, Optional, Union

import numpy as np

from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from rummy_env.core.compiled import Compiled, self_check
from rummy_env.romme.cards import (
    JOKER, NUM_KINDS, RANK_VALUES, TWO_JOKERS, check_counts, kind_str, parse_hand, parse_kind, penalty_values,
)
from rummy_env.romme.rules import RommeRules, RommeRulesSpec, load_romme_rules

MAX_HAND_CARDS = 20  # the solver's limit (a Rommé hand holds at most 15 cards)
MAX_RUN = NUM_RANKS  # a run holds each rank at most once
HandLike = Union[str, np.ndarray, "list[int]"]

# POSITION_VALUE[p]: the worth in a run of the card at position p (rank p % 13): the ace
# 1 at position 0 (low: A-2-3), 11 at 13 (high: Q-K-A, or K-A-2 around the corner)
POSITION_VALUE = tuple(1 if p == 0 else RANK_VALUES[p % NUM_RANKS] for p in range(2 * NUM_RANKS))


def _rules(rules: RommeRulesSpec) -> RommeRules:
    return rules if isinstance(rules, RommeRules) else load_romme_rules(rules)


# ----------------------------------------------------------------------------- melds


@dataclass(frozen=True)
class Meld:
    """One meld as it lies on the table: a reading of its cards.

    ``kind`` is ``'set'`` or ``'run'``.

    A set: ``rank`` (0 = ace .. 12 = king), ``suits`` (its natural cards' suits,
    increasing) and ``joker_suits`` (the suits its jokers stand for: the lowest suits
    missing, since which missing suit a set's joker stands for matters to no rule).

    A run: ``suit``, ``start`` and ``length``: it covers the positions ``start`` ..
    ``start + length - 1``, position ``p`` holding rank ``p % 13``: position 0 is the ace
    low (A-2-3), 13 the ace high (Q-K-A); around the corner a run goes on past 13 (K-A-2
    is start 12, length 3). ``start`` is 0..12. ``joker_places`` are the offsets (0 ..
    ``length - 1``, increasing) where jokers stand.

    Build them with ``Meld.make_set``, ``Meld.make_run`` or ``parse_meld``; whether one is
    legal under a set of rules is ``is_legal(rules)``.
    """

    kind: str
    rank: int = -1
    suits: tuple[int, ...] = ()
    joker_suits: tuple[int, ...] = ()
    suit: int = -1
    start: int = 0
    length: int = 0
    joker_places: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == "set":
            if not 0 <= self.rank < NUM_RANKS:
                raise ValueError(f"a set's rank is 0..12, got {self.rank}")
            everything = self.suits + self.joker_suits
            if len(set(everything)) != len(everything) or not all(0 <= s < NUM_SUITS for s in everything):
                raise ValueError(f"a set's suits must be distinct suits 0..3, got {self.suits} and jokers {self.joker_suits}")
            if list(self.suits) != sorted(self.suits) or list(self.joker_suits) != sorted(self.joker_suits):
                raise ValueError("a set's suits and joker suits are listed in increasing order")
        elif self.kind == "run":
            if not 0 <= self.suit < NUM_SUITS:
                raise ValueError(f"a run's suit is 0..3, got {self.suit}")
            if not 0 <= self.start < NUM_RANKS or not 1 <= self.length <= MAX_RUN:
                raise ValueError(f"a run starts at 0..12 and holds 1..13 cards, got start {self.start}, "
                                 f"length {self.length}")
            places = self.joker_places
            if list(places) != sorted(set(places)) or not all(0 <= t < self.length for t in places):
                raise ValueError(f"a run's joker places are distinct offsets 0..{self.length - 1} in increasing "
                                 f"order, got {places}")
        else:
            raise ValueError(f"a meld is a 'set' or a 'run', got {self.kind!r}")

    # -------------------------------------------------------------- construction

    @classmethod
    def make_set(cls, rank: int, suits, jokers: int = 0) -> "Meld":
        """A set of ``rank`` with natural cards of ``suits`` and ``jokers`` jokers (standing
        for the lowest missing suits)."""
        suits = tuple(sorted(int(s) for s in suits))
        missing = [s for s in range(NUM_SUITS) if s not in suits]
        if jokers > len(missing):
            raise ValueError(f"a set holds at most 4 cards: {len(suits)} natural and {jokers} jokers")
        return cls("set", rank=int(rank), suits=suits, joker_suits=tuple(missing[:jokers]))

    @classmethod
    def make_run(cls, suit: int, start: int, length: int, joker_places=()) -> "Meld":
        """A run of ``suit`` over positions ``start`` .. ``start + length - 1`` with jokers at
        the offsets ``joker_places``."""
        return cls("run", suit=int(suit), start=int(start), length=int(length),
                   joker_places=tuple(sorted(int(t) for t in joker_places)))

    # -------------------------------------------------------------- reading

    @property
    def is_run(self) -> bool:
        return self.kind == "run"

    @property
    def size(self) -> int:
        return len(self.suits) + len(self.joker_suits) if self.kind == "set" else self.length

    @property
    def num_jokers(self) -> int:
        return len(self.joker_suits) if self.kind == "set" else len(self.joker_places)

    @property
    def positions(self) -> tuple[int, ...]:
        """A run's positions (``start`` ..); a set has none."""
        return tuple(range(self.start, self.start + self.length)) if self.kind == "run" else ()

    @property
    def represented(self) -> tuple[int, ...]:
        """The card (kind) at each place: a run in run order, a set in suit order; a joker's
        place holds the card it stands for."""
        if self.kind == "set":
            return tuple(sorted(s * NUM_RANKS + self.rank for s in self.suits + self.joker_suits))
        return tuple(self.suit * NUM_RANKS + p % NUM_RANKS for p in self.positions)

    @property
    def is_joker(self) -> tuple[bool, ...]:
        """Per place of ``represented``: whether a joker stands there."""
        if self.kind == "set":
            return tuple(s in self.joker_suits for s in sorted(self.suits + self.joker_suits))
        return tuple(t in self.joker_places for t in range(self.length))

    @property
    def naturals(self) -> tuple[int, ...]:
        """The kinds of its natural cards (a run in run order, a set in suit order)."""
        return tuple(k for k, j in zip(self.represented, self.is_joker) if not j)

    @property
    def stands_for(self) -> tuple[int, ...]:
        """The kinds its jokers stand for (in the order of ``represented``)."""
        return tuple(k for k, j in zip(self.represented, self.is_joker) if j)

    @property
    def value(self) -> int:
        """Its worth for coming out: every card at its value (``cards.card_value``: ace 11,
        face cards 10), a joker as the card it stands for, and the ace 1 where it stands low
        in a run (A-2-3 is worth 6, Q-K-A 31)."""
        if self.kind == "set":
            return RANK_VALUES[self.rank] * self.size
        return sum(POSITION_VALUE[p] for p in self.positions)

    def cards(self) -> np.ndarray:
        """The (53,) kind counts of the cards it holds: its natural cards and, at ``JOKER``,
        its jokers."""
        out = np.zeros(NUM_KINDS, dtype=np.uint8)
        for k in self.naturals:
            out[k] += 1
        out[JOKER] = self.num_jokers
        return out

    def text(self, symbols: bool = False) -> str:
        """``'5H [6H] 7H'``: its places in order, a joker as the card it stands for in brackets."""
        return " ".join(f"[{kind_str(k, symbols)}]" if j else kind_str(k, symbols)
                        for k, j in zip(self.represented, self.is_joker))

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"<{self.kind} {self.text()}>"

    # -------------------------------------------------------------- rules

    def problem(self, rules: RommeRulesSpec = None) -> str:
        """'' if this is a legal meld under ``rules``, else why not."""
        r = _rules(rules)
        if self.size < 3:
            return f"a meld holds at least 3 cards, this one {self.size}"
        if not r.allows_naturals(self.size - self.num_jokers, self.num_jokers):
            need = "at least 2 natural cards" if r.naturals_per_meld == "at_least_two" else "more natural cards than jokers"
            return f"a meld needs {need}: {self.size - self.num_jokers} natural, {self.num_jokers} jokers"
        if self.kind == "run":
            end = self.start + self.length - 1
            if not r.aces_around_the_corner and end > NUM_RANKS:
                return "a run may not turn the corner (K-A-2) under these rules"
            places = set(self.joker_places)
            if not r.adjacent_jokers and any(t + 1 in places for t in places):
                return "two jokers may not stand side by side in a run under these rules"
        return ""

    def is_legal(self, rules: RommeRulesSpec = None) -> bool:
        """Whether this reading is a legal meld under ``rules`` (the default preset if None)."""
        return not self.problem(rules)


def parse_meld(text: str, rules: RommeRulesSpec = None) -> Meld:
    """A meld from its text, e.g. ``'5H [6H] 7H'`` (a joker as the card it stands for, in
    brackets) or ``'QS KS AS'``; a run is written in run order (its first card sets where it
    starts: ``'AS 2S 3S'`` is the ace low, ``'KS AS 2S'`` turns the corner), a set in any
    order. Refused (ValueError) if it is no legal meld under ``rules``."""
    tokens = text.replace(",", " ").split()
    cards, jokers = [], []
    for tok in tokens:
        joker = tok.startswith("[") and tok.endswith("]")
        kind = parse_kind(tok[1:-1] if joker else tok)
        if kind == JOKER:
            raise ValueError(f"in a meld's text a joker is written as the card it stands for in brackets, "
                             f"e.g. '[6H]'; got {tok!r} in {text!r}")
        cards.append(kind)
        jokers.append(joker)
    if len(cards) < 3:
        raise ValueError(f"a meld holds at least 3 cards, got {text!r}")
    ranks = {k % NUM_RANKS for k in cards}
    if len(ranks) == 1:
        suits = [k // NUM_RANKS for k in cards]
        if len(set(suits)) != len(suits):
            raise ValueError(f"a set's cards must be of different suits: {text!r}")
        meld = Meld.make_set(cards[0] % NUM_RANKS, [s for s, j in zip(suits, jokers) if not j], sum(jokers))
    else:
        suit = cards[0] // NUM_RANKS
        if any(k // NUM_RANKS != suit for k in cards):
            raise ValueError(f"a run's cards are of one suit: {text!r}")
        start = cards[0] % NUM_RANKS
        for t, k in enumerate(cards):
            if (start + t) % NUM_RANKS != k % NUM_RANKS:
                raise ValueError(f"a run's cards follow each other in order: {text!r}")
        meld = Meld.make_run(suit, start, len(cards), [t for t, j in enumerate(jokers) if j])
    problem = meld.problem(rules)
    if problem:
        raise ValueError(f"{text!r} is no meld: {problem}")
    return meld


# ----------------------------------------------------------------------------- readings


@functools.lru_cache(maxsize=None)
def _windows(around_the_corner: bool) -> tuple[tuple[int, int], ...]:
    """Every (start, length) a run of 3+ cards may cover: no corner means positions 0..13."""
    out = []
    for start in range(NUM_RANKS):
        longest = MAX_RUN if around_the_corner else min(MAX_RUN, NUM_RANKS + 1 - start)
        out += [(start, length) for length in range(3, longest + 1)]
    return tuple(out)


def _hand(hand: HandLike) -> np.ndarray:
    """One hand's (53,) counts (text is parsed), checked."""
    if isinstance(hand, str):
        return parse_hand(hand)
    c = check_counts(hand)
    if c.ndim != 1:
        raise ValueError(f"one hand of 53 kind counts expected, got shape {c.shape}")
    return c


def melds_of(counts, jokers: Optional[int] = None, rules: RommeRulesSpec = None) -> list[Meld]:
    """Every distinct legal reading of exactly these cards as one meld (empty if none).

    ``counts``: the cards' kind counts (53 entries, or text such as ``'5H 7H JK'``); with
    ``jokers`` given, the joker count replaces entry 52 (so ``counts`` may hold the 52
    natural kinds only). A run with a joker at either end stands at two places, both
    listed; a set is one reading whatever its jokers stand for. Sorted: sets, then runs
    by start and joker places.
    """
    r = _rules(rules)
    if isinstance(counts, str):
        c = parse_hand(counts).astype(np.int64)
    else:
        c = np.asarray(counts, dtype=np.int64).ravel()
        if c.size == NUM_CARDS:
            c = np.append(c, 0)
        c = check_counts(c).astype(np.int64)
    if jokers is not None:
        if not 0 <= int(jokers) <= 6:
            raise ValueError(f"jokers must be 0..6, got {jokers}")
        c[JOKER] = int(jokers)
    j = int(c[JOKER])
    naturals = [k for k in range(NUM_CARDS) if c[k]]
    if (c[:NUM_CARDS] > 1).any() or len(naturals) + j < 3:
        return []
    out: list[Meld] = []
    ranks = {k % NUM_RANKS for k in naturals}
    suits = {k // NUM_RANKS for k in naturals}
    if len(ranks) == 1 and naturals:
        rank = ranks.pop()
        if len(naturals) + j <= NUM_SUITS:
            m = Meld.make_set(rank, [k // NUM_RANKS for k in naturals], j)
            if m.is_legal(r):
                out.append(m)
    if len(suits) == 1 and naturals:
        suit = suits.pop()
        held = {k % NUM_RANKS for k in naturals}
        for start, length in _windows(r.aces_around_the_corner):
            if length != len(naturals) + j:
                continue
            ranks_here = [(start + t) % NUM_RANKS for t in range(length)]
            if not held <= set(ranks_here):
                continue
            m = Meld.make_run(suit, start, length, [t for t, q in enumerate(ranks_here) if q not in held])
            if m.is_legal(r):
                out.append(m)
    return out


def is_meld(counts, jokers: Optional[int] = None, rules: RommeRulesSpec = None) -> bool:
    """Whether these cards (as for ``melds_of``) can be read as one legal meld."""
    return bool(melds_of(counts, jokers, rules))


# ----------------------------------------------------------------------------- the search


class Arrangement(NamedTuple):
    """Disjoint melds from a hand and the cards left: ``left`` lists the kinds left in hand
    (increasing, jokers last as ``JOKER``), ``penalty`` their penalty and ``value`` the
    melds' worth together."""

    melds: tuple[Meld, ...]
    left: tuple[int, ...]
    penalty: int
    value: int

    def left_counts(self) -> np.ndarray:
        """``left`` as (53,) kind counts."""
        out = np.zeros(NUM_KINDS, dtype=np.uint8)
        for k in self.left:
            out[k] += 1
        return out

    @property
    def has_run(self) -> bool:
        return any(m.is_run for m in self.melds)

    def __str__(self) -> str:
        melds = " | ".join(str(m) for m in self.melds) or "no melds"
        left = " ".join(kind_str(k) for k in self.left) or "nothing"
        return f"{melds}; left {left} ({self.penalty}); worth {self.value}"


class _Candidate(NamedTuple):
    """A use of cards as one meld, for the search: the hand's slots of its natural cards
    (increasing), its jokers, its worth, whether a run, and its reading."""

    slots: tuple[int, ...]
    jokers: int
    value: int
    run: bool
    meld: Meld


def _candidates(kinds: list[int], index: dict[int, int], jokers: int, rules: RommeRules) -> list[list[_Candidate]]:
    """Per slot of the hand (its held natural kinds, increasing), the melds whose lowest
    natural card is that kind: one per distinct (natural cards, jokers), the most valuable
    reading (the first found among equals). The order (sets by rank, suits and jokers; runs
    by suit, start, length, then joker places) is the compiled kernels' too."""
    held = set(kinds)
    out: list[list[_Candidate]] = [[] for _ in kinds]
    allows = rules.allows_naturals
    for rank in range(NUM_RANKS):
        suits = [s for s in range(NUM_SUITS) if s * NUM_RANKS + rank in held]
        if len(suits) < 2:
            continue
        for mask in range(1, 1 << NUM_SUITS):
            chosen = [s for s in range(NUM_SUITS) if mask >> s & 1]
            if any(s not in suits for s in chosen):
                continue
            n = len(chosen)
            for j in range(0, min(jokers, NUM_SUITS - n) + 1):
                if n + j >= 3 and allows(n, j):
                    slots = tuple(index[s * NUM_RANKS + rank] for s in chosen)
                    meld = Meld.make_set(rank, chosen, j)
                    out[slots[0]].append(_Candidate(slots, j, meld.value, False, meld))
    for suit in range(NUM_SUITS):
        if sum(1 for k in kinds if k // NUM_RANKS == suit) < 2:
            continue
        best: dict[tuple[int, int], int] = {}  # (natural rank mask, jokers) -> where in found
        found: list[_Candidate] = []
        too_long = -1  # windows from this start at least this long miss too many cards
        for start, length in _windows(rules.aces_around_the_corner):
            if length == 3:
                too_long = MAX_RUN + 1
            if length >= too_long:
                continue
            ranks = [(start + t) % NUM_RANKS for t in range(length)]
            have = [t for t, q in enumerate(ranks) if suit * NUM_RANKS + q in held]
            missing = [t for t, q in enumerate(ranks) if suit * NUM_RANKS + q not in held]
            if len(missing) > jokers:
                too_long = length
                continue
            if len(have) < 2:
                continue
            for extra in range(0, jokers - len(missing) + 1):
                for subs in itertools.combinations(have, extra):
                    places = tuple(sorted(missing + list(subs)))
                    j = len(places)
                    if not allows(length - j, j):
                        continue
                    if not rules.adjacent_jokers and any(places[i + 1] == places[i] + 1 for i in range(j - 1)):
                        continue
                    nat_ranks = [ranks[t] for t in range(length) if t not in places]
                    key = (sum(1 << q for q in nat_ranks), j)
                    meld = Meld.make_run(suit, start, length, places)
                    value = meld.value
                    if key in best:
                        if value > found[best[key]].value:
                            found[best[key]] = found[best[key]]._replace(value=value, meld=meld)
                        continue
                    slots = tuple(sorted(index[suit * NUM_RANKS + q] for q in nat_ranks))
                    best[key] = len(found)
                    found.append(_Candidate(slots, j, value, True, meld))
        for cand in found:
            out[cand.slots[0]].append(cand)
    return out


class _Search:
    """The memoised search of one hand (see the module docstring).

    ``target``: the value the melds must reach (0: none); ``need_run``: a run must be
    among them; ``need``: a kind (or ``JOKER``) that must be in a meld (None: none), or
    ``TWO_JOKERS``: two jokers in the melds (a joker owed by a swap and the joker taken from
    the pile both played: ``RommeState._queries``);
    ``keep``: the fewest cards to leave in hand; ``by_value``: keep the most value per
    context (feasibility) instead of the least penalty then most value, and no value in
    the context. A context is ``((v * R + r) * N + n) * L + l``."""

    def __init__(self, counts: np.ndarray, rules: RommeRules, target: int = 0, need_run: bool = False,
                 need: Optional[int] = None, keep: int = 0, by_value: bool = False):
        c = counts.astype(np.int64)
        self.kinds = [k for k in range(NUM_CARDS) if c[k]]
        index = {k: i for i, k in enumerate(self.kinds)}
        self.jokers = int(c[JOKER])
        pen = penalty_values(rules)
        self.pen = [int(pen[k]) for k in self.kinds]
        self.joker_pen = int(pen[JOKER])
        self.cands = _candidates(self.kinds, index, self.jokers, rules)
        self.V = 1 if by_value else target + 1
        self.R = 2 if need_run else 1
        self.N = 3 if need == TWO_JOKERS else 2 if need is not None else 1  # jokers used so far, up to two
        self.L = keep + 1
        self.target, self.keep, self.by_value = target, keep, by_value
        need_slot = index.get(need, -1) if need is not None and need < JOKER else -1
        # per candidate: its context (v, r, n, l=0) parts
        self.cand_ctx = [[(min(cd.value, target) if not by_value else 0, int(cd.run and need_run),
                           min(cd.jokers, self.N - 1) if need is not None and need >= JOKER
                           else int(need_slot >= 0 and need_slot in cd.slots))
                          for cd in per] for per in self.cands]
        self.need_slot = need_slot
        self.radix = [1] * len(self.kinds)
        acc = 1
        for i, k in enumerate(self.kinds):
            self.radix[i] = acc
            acc *= int(c[k]) + 1
        self.joker_radix = acc
        self.rem = [int(c[k]) for k in self.kinds]
        self.memo: dict[int, dict[int, tuple[int, int, int, int]]] = {}
        self.root = sum(r * n for r, n in zip(self.radix, self.rem)) + self.joker_radix * self.jokers
        self.rem_j = self.jokers

    def ctx(self, v: int, r: int, n: int, l: int) -> int:
        return ((v * self.R + r) * self.N + n) * self.L + l

    def split(self, ctx: int) -> tuple[int, int, int, int]:
        ctx, l = divmod(ctx, self.L)
        ctx, n = divmod(ctx, self.N)
        v, r = divmod(ctx, self.R)
        return v, r, n, l

    def better(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        """Whether objective (penalty, value) ``a`` beats ``b``."""
        if self.by_value:
            return a[1] > b[1]
        return a[0] < b[0] or (a[0] == b[0] and a[1] > b[1])

    def table(self, state: int) -> dict[int, tuple[int, int, int, int]]:
        """Context -> (penalty, value, choice, child context) of the best completion of the
        cards still undecided (``self.rem``, ``self.rem_j``, index ``state``); choice -1 is
        "leave the lowest card", -2 the end (jokers left), else a candidate's number."""
        got = self.memo.get(state)
        if got is not None:
            return got
        rem = self.rem
        low = next((i for i, n in enumerate(rem) if n), -1)
        out: dict[int, tuple[int, int, int, int]] = {}
        if low < 0:
            out[self.ctx(0, 0, 0, min(self.rem_j, self.keep))] = (self.rem_j * self.joker_pen, 0, -2, 0)
            self.memo[state] = out
            return out
        split, keep, target = self.split, self.keep, self.target
        # leave one card of the lowest kind
        rem[low] -= 1
        child = self.table(state - self.radix[low])
        rem[low] += 1
        p = self.pen[low]
        for cctx, (pen, val, _, _) in sorted(child.items()):
            v, r, n, l = split(cctx)
            key = self.ctx(v, r, n, min(l + 1, keep))
            cand = (pen + p, val)
            old = out.get(key)
            if old is None or self.better(cand, old[:2]):
                out[key] = (cand[0], cand[1], -1, cctx)
        # or meld it
        for number, (cd, (mv, mr, mn)) in enumerate(zip(self.cands[low], self.cand_ctx[low])):
            if cd.jokers > self.rem_j or any(rem[s] == 0 for s in cd.slots):
                continue
            delta = sum(self.radix[s] for s in cd.slots) + self.joker_radix * cd.jokers
            for s in cd.slots:
                rem[s] -= 1
            self.rem_j -= cd.jokers
            child = self.table(state - delta)
            for s in cd.slots:
                rem[s] += 1
            self.rem_j += cd.jokers
            for cctx, (pen, val, _, _) in sorted(child.items()):
                v, r, n, l = split(cctx)
                key = self.ctx(min(v + mv, target) if self.V > 1 else 0, r | mr, min(n + mn, self.N - 1), l)
                cand = (pen, val + cd.value)
                old = out.get(key)
                if old is None or self.better(cand, old[:2]):
                    out[key] = (cand[0], cand[1], number, cctx)
        self.memo[state] = out
        return out

    def full(self) -> int:
        """The context every condition asks for."""
        return self.ctx(self.V - 1, self.R - 1, self.N - 1, self.keep)

    def best(self) -> Optional[tuple[int, int]]:
        """(penalty, value) of the best arrangement meeting every condition (None if none)."""
        got = self.table(self.root).get(self.full())
        return None if got is None else got[:2]

    def arrangement(self) -> Optional[Arrangement]:
        """The best arrangement meeting every condition, or None."""
        ctx = self.full()
        state = self.root
        rem, rem_j = list(self.rem), self.rem_j
        melds: list[Meld] = []
        left: list[int] = []
        got = self.table(state).get(ctx)
        if got is None:
            return None
        penalty, value = got[0], got[1]
        while True:
            _, _, choice, child_ctx = self.memo[state][ctx]
            low = next((i for i, n in enumerate(rem) if n), -1)
            if choice == -2:
                left += [JOKER] * rem_j
                break
            if choice == -1:
                rem[low] -= 1
                left.append(self.kinds[low])
                state -= self.radix[low]
            else:
                cd = self.cands[low][choice]
                for s in cd.slots:
                    rem[s] -= 1
                rem_j -= cd.jokers
                state -= sum(self.radix[s] for s in cd.slots) + self.joker_radix * cd.jokers
                melds.append(cd.meld)
            ctx = child_ctx
        return Arrangement(tuple(melds), tuple(sorted(left)), penalty, value)


# ----------------------------------------------------------------------------- compiled kernels


# ``rummy_env.romme.melds_jit`` when numba is installed, not switched off
# (``RUMMY_ENV_NO_NUMBA=1``) and its kernels compile and agree with the Python search on a
# few hands (``melds_jit.self_check``); else None, and everything runs the Python search.
# Decided once per process, on the first call that would use them (``rummy_env.core.compiled``).
KERNELS = Compiled("the Rommé solver's numba kernels", "rummy_env.romme.melds_jit", self_check,
                   "it runs its Python search")
_kernels = KERNELS.get  # rummy_env.romme.melds_jit or None: what the solver's functions read


# ----------------------------------------------------------------------------- the solver


def _hands(hands, rules: RommeRules) -> np.ndarray:
    """(..., 53) uint8 counts of checked hands of at most ``MAX_HAND_CARDS`` cards and at
    most ``rules.jokers`` jokers."""
    h = check_counts(hands)
    if h.size:
        n = h.sum(axis=-1).max()  # (numpy sums uint8 counts in a wide integer)
        if n > MAX_HAND_CARDS:
            raise ValueError(f"the meld solver takes hands of at most {MAX_HAND_CARDS} cards, got one of {n}")
        if h[..., JOKER].max() > rules.jokers:
            raise ValueError(f"a hand holds {h[..., JOKER].max()} jokers; the rules have {rules.jokers}")
    return h


def _need(need_card: Optional[int], hand: np.ndarray) -> Optional[int]:
    if need_card is None:
        return None
    if isinstance(need_card, str):
        need_card = parse_kind(need_card)
    need = int(need_card)
    if not 0 <= need < NUM_KINDS:
        raise ValueError(f"need_card is a kind 0..52 (52 the joker), got {need_card}")
    if hand[need] == 0:
        raise ValueError(f"need_card {kind_str(need)} is not in the hand")
    return need


def _keep(keep: Optional[int], rules: RommeRules) -> int:
    if keep is None:
        return 0 if rules.go_out_without_discard else 1
    if isinstance(keep, bool) or int(keep) != keep or keep < 0:
        raise ValueError(f"keep is a number of cards >= 0, got {keep!r}")
    return int(keep)


@functools.lru_cache(maxsize=1 << 14)
def _python_least_penalty(hand: bytes, rules: RommeRules) -> int:
    counts = np.frombuffer(hand, dtype=np.uint8)
    return _Search(counts, rules).best()[0]  # type: ignore[index]


def least_penalty(hands, rules: RommeRulesSpec = None) -> np.ndarray:
    """The least penalty left in hand after melding any disjoint melds, for hands of kind
    counts of shape (..., 53) (int64, shape (...)).

    No threshold and no discard: every card may be melded (use ``come_out`` for a first
    meld's conditions). Penalties: ``cards.penalty_values`` (ace 11, joker
    ``rules.joker_penalty``)."""
    r = _rules(rules)
    h = _hands(hands, r)
    flat = h.reshape(-1, NUM_KINDS)
    kernels = _kernels() if flat.shape[0] else None
    if kernels is not None:
        out = kernels.least_penalty(flat, r)
    else:
        out = np.array([_python_least_penalty(row.tobytes(), r) for row in flat], dtype=np.int64)
    return out.reshape(h.shape[:-1])


def best_arrangement(hand: HandLike, rules: RommeRulesSpec = None) -> Arrangement:
    """One hand's least-penalty arrangement (``least_penalty``'s melds and the cards left);
    among equals the most valuable, then the first in the search's fixed order."""
    r = _rules(rules)
    h = _hands(_hand(hand), r)
    kernels = _kernels()
    if kernels is not None:
        return kernels.arrangement(h, r, 0, False, None, 0)
    return _Search(h, r).arrangement()  # type: ignore[return-value]


def come_out(hand: HandLike, rules: RommeRulesSpec = None, need_card: Optional[int] = None,
             keep: Optional[int] = None) -> Optional[Arrangement]:
    """The best way to come out with ``hand``, or None if there is none.

    Among arrangements of disjoint melds from the hand worth at least
    ``rules.come_out_points`` together (holding a run if ``rules.come_out_needs_run``),
    that leave at least ``keep`` cards in hand, and that use a card of kind ``need_card``
    (the card just taken from the discard pile, which must be in ``hand``) if given: the
    one leaving the least penalty in hand; among equals the most valuable, then the first
    in the search's fixed order.

    ``keep`` None means the rules' own: 1 (a card to discard, since a turn ends with a
    discard) unless ``rules.go_out_without_discard``, then 0 (coming out with every card
    goes out at once: "hand rummy"). Lay-offs are not considered (a player may lay off
    only after coming out)."""
    r = _rules(rules)
    h = _hands(_hand(hand), r)
    need, k = _need(need_card, h), _keep(keep, r)
    kernels = _kernels()
    if kernels is not None:
        return kernels.come_out(h, r, need, k)
    return _python_come_out(h, r, need, k)


def _python_come_out(h: np.ndarray, r: RommeRules, need: Optional[int], keep: int) -> Optional[Arrangement]:
    """``come_out`` by the Python search: whether it can (most value per context), the
    least-penalty arrangement meeting the other conditions (enough if it reaches the
    points), else the search with the value capped at the points in the context."""
    target = r.come_out_points
    feasible = _Search(h, r, target, r.come_out_needs_run, need, keep, by_value=True).best()
    if feasible is None or feasible[1] < target:
        return None
    plain = _Search(h, r, 0, r.come_out_needs_run, need, keep).arrangement()
    if plain is not None and plain.value >= target:
        return plain
    return _Search(h, r, target, r.come_out_needs_run, need, keep).arrangement()


def _python_can_come_out(h: np.ndarray, r: RommeRules, need: Optional[int], keep: int) -> bool:
    best = _Search(h, r, r.come_out_points, r.come_out_needs_run, need, keep, by_value=True).best()
    return best is not None and best[1] >= r.come_out_points


def can_come_out(hands, rules: RommeRulesSpec = None, need_card=None, keep: Optional[int] = None) -> np.ndarray:
    """Whether each hand (kind counts, shape (..., 53)) can come out (``come_out`` is not
    None), as a bool array of shape (...). ``need_card``: None, one kind for every hand, or
    an integer array of shape (...) with -1 for "none"; each named kind must be in its hand."""
    r = _rules(rules)
    h = _hands(hands, r)
    flat = h.reshape(-1, NUM_KINDS)
    k = _keep(keep, r)
    if need_card is None:
        needs = np.full(flat.shape[0], -1, dtype=np.int64)
    else:
        if isinstance(need_card, str):
            need_card = parse_kind(need_card)
        needs = np.broadcast_to(np.asarray(need_card, dtype=np.int64), h.shape[:-1]).ravel().copy()
        if needs.size and (needs.min() < -1 or needs.max() >= NUM_KINDS):
            raise ValueError("need_card holds kinds 0..52 (52 the joker) or -1 for none")
        has = needs >= 0
        if (flat[np.flatnonzero(has), needs[has]] == 0).any():
            raise ValueError("a need_card is not in its hand")
    return _can_come_out_checked(flat, r, needs, k).reshape(h.shape[:-1])


def _can_come_out_checked(flat: np.ndarray, r: RommeRules, needs: np.ndarray, keep: int) -> np.ndarray:
    """``can_come_out`` of (n, 53) uint8 hands already checked (``needs``: int64, a kind held,
    ``TWO_JOKERS`` where two are held, or -1 each): for callers that build their hands
    themselves, such as the legal mask."""
    kernels = _kernels() if flat.shape[0] else None
    if kernels is not None:
        return kernels.can_come_out(flat, r, needs, keep)
    return np.array([_python_can_come_out(row, r, None if n < 0 else int(n), keep) for row, n in zip(flat, needs)],
                    dtype=bool)


# ----------------------------------------------------------------------------- table melds


def _table_meld(meld: Meld, r: RommeRules) -> None:
    if not isinstance(meld, Meld):
        raise TypeError(f"a Meld expected, got {type(meld).__name__}")
    problem = meld.problem(r)
    if problem:
        raise ValueError(f"{meld} is no legal meld: {problem}")


def layoffs(meld: Meld, hand: HandLike, rules: RommeRulesSpec = None) -> list[tuple[int, Meld]]:
    """Every card of ``hand`` that can be laid off on ``meld`` (a legal meld on the table),
    with the meld it makes: ``(kind, new meld)``, the kind ``JOKER`` for a joker.

    A set takes a natural card of a suit it lacks (its jokers then stand for other
    missing suits) or a joker, up to 4 cards; a run takes the card before its first or
    after its last place, natural or joker (a joker is listed at each end where it fits).
    The new meld must be legal (the natural-card rule, jokers side by side). The jokers
    already in the meld keep their places. Naturals first (by kind), then jokers (the low
    end first)."""
    r = _rules(rules)
    _table_meld(meld, r)
    h = _hand(hand)
    out: list[tuple[int, Meld]] = []
    jokers: list[tuple[int, Meld]] = []
    if meld.kind == "set":
        if meld.size < NUM_SUITS:
            for s in range(NUM_SUITS):
                kind = s * NUM_RANKS + meld.rank
                if s not in meld.suits and h[kind]:
                    out.append((kind, Meld.make_set(meld.rank, meld.suits + (s,), meld.num_jokers)))
            if h[JOKER]:
                jokers.append((JOKER, Meld.make_set(meld.rank, meld.suits, meld.num_jokers + 1)))
    elif meld.length < MAX_RUN:
        ends = []
        if meld.start > 0 or r.aces_around_the_corner:  # the place before the first
            start = (meld.start - 1) % NUM_RANKS
            ends.append((meld.suit * NUM_RANKS + start, start, 0, tuple(t + 1 for t in meld.joker_places)))
        if r.aces_around_the_corner or meld.start + meld.length <= NUM_RANKS:  # the place after the last
            end = meld.start + meld.length
            ends.append((meld.suit * NUM_RANKS + end % NUM_RANKS, meld.start, meld.length, meld.joker_places))
        for kind, start, place, places in ends:
            if h[kind]:
                out.append((kind, Meld.make_run(meld.suit, start, meld.length + 1, places)))
            if h[JOKER]:
                jokers.append((JOKER, Meld.make_run(meld.suit, start, meld.length + 1, places + (place,))))
        out.sort(key=lambda pair: pair[0])
    return [(k, m) for k, m in out + jokers if m.is_legal(r)]


def joker_swaps(meld: Meld, hand: HandLike, rules: RommeRulesSpec = None) -> list[tuple[int, Meld]]:
    """Every joker of ``meld`` (a legal meld on the table) that ``hand`` can take back by
    putting in its place the natural card it stands for: ``(kind given, new meld)``.

    In a run a joker stands for one card; in a set (fewer than 4 natural cards, as every
    set with a joker) any suit of its rank the set lacks will do. The player must then use
    the joker in a meld or lay-off in the same turn (the game's rule, not checked here).
    In increasing order of the kind given."""
    r = _rules(rules)
    _table_meld(meld, r)
    h = _hand(hand)
    out: list[tuple[int, Meld]] = []
    if meld.num_jokers == 0:
        return out
    if meld.kind == "set":
        for s in range(NUM_SUITS):
            kind = s * NUM_RANKS + meld.rank
            if s not in meld.suits and h[kind]:
                out.append((kind, Meld.make_set(meld.rank, meld.suits + (s,), meld.num_jokers - 1)))
    else:
        for t in meld.joker_places:
            kind = meld.suit * NUM_RANKS + (meld.start + t) % NUM_RANKS
            if h[kind]:
                out.append((kind, Meld.make_run(meld.suit, meld.start, meld.length,
                                                [u for u in meld.joker_places if u != t])))
        out.sort(key=lambda pair: pair[0])
    return out



# ----------------------------------------------------------------------------- a meld being built


class Completion(NamedTuple):
    """One way to finish a meld being built (``completions``): the natural kinds and the
    jokers it takes from the rest of the hand, its worth and whether it is a run, and the
    reading (``meld()``) of the finished meld."""

    extra: tuple[int, ...]
    extra_jokers: int
    value: int
    run: bool
    reading: tuple  # ('set', rank, suits, jokers) or ('run', suit, start, length, joker places)

    def meld(self) -> Meld:
        if self.reading[0] == "set":
            return Meld.make_set(*self.reading[1:])
        return Meld.make_run(*self.reading[1:])


def _pending(naturals, jokers_as) -> tuple[tuple[int, ...], tuple[int, ...]]:
    nat = tuple(sorted(parse_kind(k) if isinstance(k, str) else int(k) for k in naturals))
    jok = tuple(sorted(parse_kind(k) if isinstance(k, str) else int(k) for k in jokers_as))
    if any(not 0 <= k < NUM_CARDS for k in nat + jok):
        raise ValueError("a meld being built holds natural kinds 0..51 and jokers standing for kinds 0..51")
    return nat, jok


def completions(naturals, jokers_as, hand: HandLike = None, rules: RommeRulesSpec = None) -> list[Completion]:
    """Every way to finish the meld being built into a legal meld with cards of ``hand``.

    The meld being built holds the natural cards ``naturals`` (kinds) and jokers standing
    for the kinds ``jokers_as``: in a run a joker keeps the place it was given; in a set
    only its rank counts (a set's joker stands for any suit the set lacks). ``hand``: the
    cards that may be added (kind counts or text; None for none: then the readings of
    exactly these cards). The kinds of the meld being built are distinct (a joker stands
    for a card the meld does not hold). One completion per distinct use of the hand's cards (extra
    natural kinds, extra jokers, set or run), the most valuable reading of each."""
    r = _rules(rules)
    nat, jok = _pending(naturals, jokers_as)
    h = np.zeros(NUM_KINDS, dtype=np.uint8) if hand is None else _hand(hand)
    return list(_completions(nat, jok, h.tobytes(), r))


@functools.lru_cache(maxsize=1 << 12)
def _completions_reference(nat: tuple[int, ...], jok: tuple[int, ...], hand: bytes,
                           r: RommeRules) -> tuple[Completion, ...]:
    """``_completions`` the plain way, every window and every choice of cards: the reference
    the faster ``_completions`` is tested against (same completions, same order)."""
    h = np.frombuffer(hand, dtype=np.uint8)
    avail = int(h[JOKER])
    kinds = nat + jok
    best: dict[tuple, Completion] = {}

    def offer(c: Completion) -> None:
        key = (c.extra, c.extra_jokers, c.run)
        old = best.get(key)
        if old is None or c.value > old.value:
            best[key] = c

    if not kinds or len(set(kinds)) != len(kinds):
        return ()
    allows = r.allows_naturals
    ranks = {k % NUM_RANKS for k in kinds}
    nat_suits = [k // NUM_RANKS for k in nat]
    if len(ranks) == 1 and len(kinds) <= NUM_SUITS:
        rank = next(iter(ranks))
        taken = [k // NUM_RANKS for k in kinds]
        others = [s for s in range(NUM_SUITS) if s not in taken and h[s * NUM_RANKS + rank]]
        for size in range(len(others) + 1):
            for chosen in itertools.combinations(others, size):
                n = len(nat) + size
                for e in range(avail + 1):
                    j = len(jok) + e
                    if n + j > NUM_SUITS:
                        break
                    if n + j >= 3 and allows(n, j):
                        suits = tuple(sorted(nat_suits + list(chosen)))
                        offer(Completion(tuple(s * NUM_RANKS + rank for s in chosen), e,
                                         RANK_VALUES[rank] * (n + j), False, ("set", rank, suits, j)))
    suits = {k // NUM_RANKS for k in kinds}
    pend_ranks = [k % NUM_RANKS for k in kinds]
    if len(suits) == 1 and len(set(pend_ranks)) == len(pend_ranks):
        suit = next(iter(suits))
        nat_r = {k % NUM_RANKS for k in nat}
        jok_r = {k % NUM_RANKS for k in jok}
        need = nat_r | jok_r
        for start, length in _windows(r.aces_around_the_corner):
            if length < len(kinds):
                continue
            rks = [(start + t) % NUM_RANKS for t in range(length)]
            if not need <= set(rks):
                continue
            have, missing, fixed = [], [], []
            for t, q in enumerate(rks):
                if q in jok_r:
                    fixed.append(t)
                elif q in nat_r:
                    continue
                elif h[suit * NUM_RANKS + q]:
                    have.append(t)
                else:
                    missing.append(t)
            if len(missing) > avail:
                continue
            value = sum(POSITION_VALUE[p] for p in range(start, start + length))
            for extra in range(avail - len(missing) + 1):
                for subs in itertools.combinations(have, extra):
                    places = tuple(sorted(fixed + missing + list(subs)))
                    j = len(places)
                    if not allows(length - j, j):
                        continue
                    if not r.adjacent_jokers and any(places[i + 1] == places[i] + 1 for i in range(j - 1)):
                        continue
                    extra_nat = tuple(sorted(suit * NUM_RANKS + rks[t] for t in have if t not in subs))
                    offer(Completion(extra_nat, len(missing) + extra, value, True,
                                     ("run", suit, start, length, places)))
    return tuple(best[k] for k in sorted(best))


@functools.lru_cache(maxsize=None)
def _rank_windows(around_the_corner: bool) -> tuple[tuple[tuple[int, int, tuple[int, ...], int, int], ...], ...]:
    """Per rank (0..12): the windows of ``_windows`` holding it, in that order, each as
    (start, length, the rank at each offset, the mask of its ranks, its worth). A window
    holds each rank at most once, and the rank ``q`` sits at offset ``(q - start) % 13``."""
    per_rank: list[list] = [[] for _ in range(NUM_RANKS)]
    for start, length in _windows(around_the_corner):
        ranks = tuple((start + t) % NUM_RANKS for t in range(length))
        window = (start, length, ranks, sum(1 << q for q in ranks), sum(POSITION_VALUE[start:start + length]))
        for q in ranks:
            per_rank[q].append(window)
    return tuple(tuple(w) for w in per_rank)


def _offsets(rank_mask: int, start: int) -> int:
    """A mask of ranks as a mask of offsets in the window starting at ``start``."""
    return ((rank_mask >> start) | (rank_mask << (NUM_RANKS - start))) & _RANKS_MASK


_RANKS_MASK = (1 << NUM_RANKS) - 1


@functools.lru_cache(maxsize=1 << 16)
def _completions(nat: tuple[int, ...], jok: tuple[int, ...], hand: bytes, r: RommeRules) -> tuple[Completion, ...]:
    """Every way to finish the meld being built (``completions``; ``hand`` the (53,) uint8
    counts as bytes), as ``_completions_reference`` lists them: by the compiled kernel when
    in use (its rows made into completions here, the first of the most valuable readings of
    each use of cards kept), else by ``_python_completions``."""
    kinds = nat + jok
    if not kinds or len(set(kinds)) != len(kinds):
        return ()
    kernels = _kernels()
    if kernels is None:
        return _python_completions(nat, jok, hand, r)
    return _completions_from_rows(kernels.completion_rows(nat, jok, hand, r))


def _completions_from_rows(rows: list[list[int]]) -> tuple[Completion, ...]:
    """The completions of the compiled kernel's rows (``melds_jit.completion_rows``): per
    use of cards the first of its most valuable readings, in ``_completions``' order."""
    best: dict[tuple[int, int, int], list[int]] = {}
    for row in rows:
        key = (row[1], row[2], row[0])
        old = best.get(key)
        if old is None or row[3] > old[3]:
            best[key] = row
    out = []
    for run, extra, extra_jokers, value, a, b, c, d in best.values():
        reading = ("run", a, b, c, _bit_tuple(d)) if run else ("set", a, _bit_tuple(b), c)
        out.append(Completion(_bit_tuple(extra), extra_jokers, value, bool(run), reading))
    out.sort(key=lambda c: (c.extra, c.extra_jokers, c.run))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def _bit_tuple(mask: int) -> tuple[int, ...]:
    """The set bits of ``mask``, increasing (memoised: the same masks come back)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def _python_completions(nat: tuple[int, ...], jok: tuple[int, ...], hand: bytes,
                        r: RommeRules) -> tuple[Completion, ...]:
    """``_completions_reference``'s answer, found faster in Python. Only the windows
    holding the meld's cards are visited, cards are tested as rank masks, and a window
    missing more cards than the hand has jokers is skipped; the completions are offered
    in the reference's order (windows in ``_windows`` order, the same choices in each), so
    among readings of equal worth the same one is kept."""
    kinds = nat + jok
    if not kinds or len(set(kinds)) != len(kinds):
        return ()
    avail = hand[JOKER]
    best: dict[tuple, Completion] = {}

    def offer(c: Completion) -> None:
        key = (c.extra, c.extra_jokers, c.run)
        old = best.get(key)
        if old is None or c.value > old.value:
            best[key] = c

    allows = r.allows_naturals
    rank = kinds[0] % NUM_RANKS
    if all(k % NUM_RANKS == rank for k in kinds):  # distinct kinds of one rank: at most 4
        nat_suits = [k // NUM_RANKS for k in nat]
        taken = [k // NUM_RANKS for k in kinds]
        others = [s for s in range(NUM_SUITS) if s not in taken and hand[s * NUM_RANKS + rank]]
        for size in range(len(others) + 1):
            for chosen in itertools.combinations(others, size):
                n = len(nat) + size
                for e in range(avail + 1):
                    j = len(jok) + e
                    if n + j > NUM_SUITS:
                        break
                    if n + j >= 3 and allows(n, j):
                        suits = tuple(sorted(nat_suits + list(chosen)))
                        offer(Completion(tuple(s * NUM_RANKS + rank for s in chosen), e,
                                         RANK_VALUES[rank] * (n + j), False, ("set", rank, suits, j)))
    suit = kinds[0] // NUM_RANKS
    if all(k // NUM_RANKS == suit for k in kinds):  # distinct kinds of one suit: distinct ranks
        base = suit * NUM_RANKS
        nat_m = sum(1 << (k - base) for k in nat)
        jok_m = sum(1 << (k - base) for k in jok)
        need = nat_m | jok_m
        held = sum(1 << q for q in range(NUM_RANKS) if hand[base + q])
        adjacent = r.adjacent_jokers
        for start, length, rks, wm, value in _rank_windows(r.aces_around_the_corner)[rank]:
            if need & ~wm or (wm & ~need & ~held).bit_count() > avail:
                continue
            have, missing, fixed = [], [], []
            for t, q in enumerate(rks):
                bit = 1 << q
                if jok_m & bit:
                    fixed.append(t)
                elif nat_m & bit:
                    continue
                elif held & bit:
                    have.append(t)
                else:
                    missing.append(t)
            for extra in range(avail - len(missing) + 1):
                j = len(fixed) + len(missing) + extra
                if not allows(length - j, j):
                    break  # more jokers only take natural cards away
                for subs in itertools.combinations(have, extra):
                    places = tuple(sorted(fixed + missing + list(subs)))
                    if not adjacent and any(places[i + 1] == places[i] + 1 for i in range(j - 1)):
                        continue
                    extra_nat = tuple(sorted(base + rks[t] for t in have if t not in subs))
                    offer(Completion(extra_nat, len(missing) + extra, value, True,
                                     ("run", suit, start, length, places)))
    return tuple(best[k] for k in sorted(best))


def _can_finish(nat: tuple[int, ...], jok: tuple[int, ...], hand: bytes, r: RommeRules) -> bool:
    """Whether the meld being built has a completion (``bool(_completions(...))``) without
    listing them. A set needs enough suits and a legal share of jokers; a run needs a
    window whose missing places the hand's jokers fill. Each is decided by its cheapest
    choice: fewer jokers never break a rule that more jokers keep (the natural-card rule,
    jokers side by side), so a window is tried with jokers only where cards are missing."""
    kinds = nat + jok
    if not kinds or len(set(kinds)) != len(kinds):
        return False
    avail = hand[JOKER]
    allows = r.allows_naturals
    rank = kinds[0] % NUM_RANKS
    if all(k % NUM_RANKS == rank for k in kinds):
        taken = [k // NUM_RANKS for k in kinds]
        others = sum(1 for s in range(NUM_SUITS) if s not in taken and hand[s * NUM_RANKS + rank])
        for size in range(others + 1):
            n = len(nat) + size
            for e in range(avail + 1):
                j = len(jok) + e
                if n + j > NUM_SUITS:
                    break
                if n + j >= 3 and allows(n, j):
                    return True
    suit = kinds[0] // NUM_RANKS
    if all(k // NUM_RANKS == suit for k in kinds):
        base = suit * NUM_RANKS
        nat_m = sum(1 << (k - base) for k in nat)
        jok_m = sum(1 << (k - base) for k in jok)
        need = nat_m | jok_m
        held = sum(1 << q for q in range(NUM_RANKS) if hand[base + q])
        adjacent = r.adjacent_jokers
        for start, length, _, wm, _ in _rank_windows(r.aces_around_the_corner)[rank]:
            if need & ~wm:
                continue
            missing = wm & ~need & ~held
            if missing.bit_count() > avail:
                continue
            jokers = jok_m | missing
            j = jokers.bit_count()
            if not allows(length - j, j):
                continue
            if not adjacent:
                places = _offsets(jokers, start)
                if places & (places >> 1):
                    continue
            return True
    return False


def _python_next_cards(nat: tuple[int, ...], jok: tuple[int, ...], hand: bytes, r: RommeRules) -> tuple[int, int]:
    """``next_cards`` by ``_can_finish`` for each card."""
    taken = set(nat + jok)
    picks = jokers = 0
    for k in range(NUM_CARDS):
        if hand[k] and k not in taken and _can_finish(tuple(sorted(nat + (k,))), jok, hand, r):
            picks |= 1 << k
    if hand[JOKER]:
        fewer = hand[:JOKER] + bytes([hand[JOKER] - 1])
        for k in range(NUM_CARDS):
            if k not in taken and _can_finish(nat, tuple(sorted(jok + (k,))), fewer, r):
                jokers |= 1 << k
    return picks, jokers


def next_cards(nat: tuple[int, ...], jok: tuple[int, ...], hand: bytes, r: RommeRules) -> tuple[int, int]:
    """Which cards may go next into the meld being built (``nat`` natural kinds and jokers
    standing for ``jok``, both increasing) so that it can still be finished from the rest
    of ``hand`` ((53,) uint8 counts as bytes, the meld's cards not included): ``(picks,
    jokers)``, masks over the 52 kinds: bit k of ``picks`` when a natural card of kind k
    held may go in, of ``jokers`` when a joker held may go in standing for k. Exactly
    ``bool(_completions(...))`` of the meld with that card, for every card at once (the
    compiled kernel when in use); why: the legal mask asks it for every card each step."""
    kernels = _kernels()
    if kernels is not None:
        return kernels.next_cards(nat, jok, hand, r)
    return _python_next_cards(nat, jok, hand, r)


def can_complete(hand: HandLike, naturals=(), jokers_as=(), rules: RommeRulesSpec = None, committed: int = 0,
                 has_run: bool = False, need_card: Optional[int] = None, keep: Optional[int] = None) -> bool:
    """Whether a player who has not come out can still come out this turn: finish the meld
    being built (``naturals`` and jokers standing for ``jokers_as``, as for ``completions``;
    none: no meld is being built) with cards of ``hand`` (the cards not in it), then meld
    more from the rest, so that with ``committed`` points already laid this turn (and a run
    among them if ``has_run``) the melds reach ``rules.come_out_points`` (and hold a run if
    ``rules.come_out_needs_run``), use a card of kind ``need_card`` if given (in the meld
    being built or another), and leave at least ``keep`` cards (None: the rules' own, as
    for ``come_out``)."""
    r = _rules(rules)
    h = _hands(_hand(hand), r)
    nat, jok = _pending(naturals, jokers_as)
    k = _keep(keep, r)
    need = None if need_card is None else (parse_kind(need_card) if isinstance(need_card, str) else int(need_card))
    if need is not None and not 0 <= need < NUM_KINDS:
        raise ValueError(f"need_card is a kind 0..52 (52 the joker), got {need_card}")
    target = r.come_out_points - int(committed)
    run = r.come_out_needs_run and not has_run
    queries = []
    if not nat and not jok:
        if need is not None and h[need] == 0:
            raise ValueError(f"need_card {kind_str(need)} is in neither the hand nor the meld being built")
        queries.append((h, target, run, need))
    else:
        if need is not None and h[need] == 0 and not (need in nat or (need == JOKER and jok)):
            raise ValueError(f"need_card {kind_str(need)} is in neither the hand nor the meld being built")
        for c in _completions(nat, jok, h.tobytes(), r):
            rest = h.copy()
            for x in c.extra:
                rest[x] -= 1
            rest[JOKER] -= c.extra_jokers
            used = need is None or need in nat or need in c.extra or (need == JOKER and (jok or c.extra_jokers))
            queries.append((rest, target - c.value, run and not c.run, None if used else need))
    return any(rest_can_come_out(rest, t, rn, nd, k, r) for rest, t, rn, nd in queries)


def rest_can_come_out(rest: np.ndarray, target: int, need_run: bool, need: Optional[int], keep: int,
                      rules: RommeRules) -> bool:
    """Whether melds from ``rest`` (kind counts) can be worth ``target`` points (none if
    ``target`` <= 0), hold a run if ``need_run``, use a card of kind ``need`` (None: any;
    ``TWO_JOKERS``: two jokers) and leave ``keep`` cards: ``can_come_out`` with those numbers."""
    if target <= 0 and not need_run and need is None:
        return int(np.asarray(rest, dtype=np.int64).sum()) >= keep
    if lacks(rest, need):
        return False
    q = _query_rules(rules, max(0, int(target)), bool(need_run))
    h = _hands(np.asarray(rest, dtype=np.uint8)[None], q)
    return bool(_can_come_out_checked(h, q, np.array([-1 if need is None else need], np.int64), keep)[0])


def lacks(rest: np.ndarray, need: Optional[int]) -> bool:
    """Whether the hand ``rest`` cannot hold what a solver question's ``need`` asks
    (``rest_can_come_out``): a card of its kind, or two jokers."""
    if need is None:
        return False
    if need == TWO_JOKERS:
        return rest[JOKER] < 2
    return rest[need] == 0


@functools.lru_cache(maxsize=1024)
def _query_rules(rules: RommeRules, points: int, need_run: bool) -> RommeRules:
    return rules.replace(come_out_points=points, come_out_needs_run=need_run)

__all__ = [
    "Arrangement", "Completion", "MAX_HAND_CARDS", "Meld", "best_arrangement", "can_come_out", "can_complete",
    "come_out", "completions", "is_meld", "rest_can_come_out",
    "joker_swaps", "layoffs", "least_penalty", "melds_of", "parse_meld",
]
