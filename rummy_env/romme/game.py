"""The pure Rommé hand for 2 to 6 players: state, legal actions, step, scoring.

One source of truth for the Rommé rules (docs/games/romme/rules.md); the env, the
encodings, the tables (``rummy_env.romme.match``) and the agents build on ``RommeState``, as Basic Rummy's do on
``BasicRummyState`` (the same ``rummy_env.core.state.CardGameState`` API). Cards are
tracked *physically* in the state (ids 0..109 of ``rummy_env.romme.cards``: each hand,
the meld being built, every table meld, the stock and the discard pile), so the places
partition the pack at every step (``card_places``); the rules act on *kinds* through
the exact solver ``rummy_env.romme.melds``, and what a player is shown (the information
set, so every observation, view and text) names kinds only.

Why a meld is built card by card. A Rommé meld is any run or set of 3 to 13 cards with
jokers standing anywhere: far too many to list as actions. So a meld is laid by putting
its cards one at a time into the *pending meld* (``PICK`` a natural card, ``JOKER_AS`` a
joker standing for a card) and then ``COMMIT`` lays it on the table: 52 + 52 + 1 ids
instead of millions.

Action layout (fixed; ``NUM_ACTIONS`` = 5776 for 2 to 6 players):

| id                          | action                                                        | phase |
|-----------------------------|---------------------------------------------------------------|-------|
| 0                           | draw the top card of the stock                                | draw  |
| 1                           | take the top card of the discard pile                         | draw  |
| 2                           | commit: lay the pending meld on the table                     | play  |
| 3 + k (k < 53)              | discard a card of kind k (52: a joker): ends the turn         | play  |
| 56 + k (k < 52)             | put a natural card of kind k into the pending meld            | play  |
| 108 + k (k < 52)            | put a joker into the pending meld, standing for kind k        | play  |
| 160 + 52 * s + k (s < 36)   | lay off a natural card of kind k onto table meld s            | play  |
| 2032 + 52 * s + k           | lay off a joker standing for kind k onto table meld s         | play  |
| 3904 + 52 * s + k           | swap: give natural k to table meld s in place of its joker    | play  |
|                             | standing for k, and take that joker into the hand             |       |

Table slots are numbered in the order the melds were laid (``MAX_TABLE_MELDS`` = 36 =
110 // 3 slots always suffice). A joker laid off on a set stands for the lowest suit the
set lacks, so only that kind is legal with ``LAYOFF_JOKER`` on a set (on a run: the card
before its first or after its last place). A swap on a set takes any suit of its rank the
set lacks (the set then holds that natural card and one joker fewer).

Every masked-in action can be completed: each legal action leaves the player a legal
way to finish the turn (a discard, or going out). The mask checks this with one
predicate, "the turn can still end", over a family of plans closed under taking their
first step: finish the pending meld from the hand and commit it, then lay further melds
from the hand (reaching the points to come out, with a run if asked, using the card taken
from the pile if it must be melded, playing a joker taken by a swap, or laying that joker
off), then discard a card other than the one taken from the pile (or, with
``go_out_without_discard``, have nothing left: laying off the card taken from the pile as
the last card is the one way to go out that is not among the plans). The solver answers
it exactly for the hand's kinds (``melds.completions`` and ``melds.rest_can_come_out``;
``tests/romme/test_romme_turn_brute.py`` checks the mask against brute force over whole
turns). An action is legal when its own conditions hold and, if it does not end the turn,
the predicate holds after it; so a player choosing uniformly among legal actions always
finishes the turn. The mask
first asks which cards can go into the pending meld at all (``melds.next_cards``, every
card at once), then the solver only about those; ``_compute_legal_reference`` computes
the same mask the plain way, card by card, for the tests. With numba the whole mask is one
compiled call (``rummy_env.romme.legal_jit``), used once it gives this module's mask in
every position of a few random hands (``LEGAL_KERNEL``, decided once per process).

Choices made where the rules are silent (the rules page lists them too):

- Deal from an explicit deck order (``from_deck``; 110 physical ids, 108 with 4 jokers):
  14 cards (13 without ``deal_extra_card``) to the player left of the dealer, then 13 to
  each next seat, the dealer last; then the upcard; then the stock top to bottom. The
  dealer defaults to the last seat, so seat 0 plays first. With ``deal_extra_card`` the
  first player starts in the play phase (no draw): they may meld, lay off and must discard.
- Which physical card: two cards of a kind are identical for every rule, so an action
  names a kind. Melding or laying off a kind takes the card just taken from the pile if it
  is of that kind (then the lowest id); a joker put down takes the joker taken by a swap
  first (then the one taken from the pile, then the lowest id; a joker taken from the
  pile, laid off and brought back by a swap is the swap's: ``taken_held``); discarding a
  kind takes the lowest id other than the card taken from the pile this turn. That choice depends on
  which copies a hand holds, which the other players cannot know, so no physical id is
  ever shown: the information set names kinds (a deck with two copies of a card swapped
  plays and looks the same to everyone). A card known to be in a hand (taken from the
  pile, ...) stays known until a card of its kind leaves that hand, unless the card that
  left cannot be it (the card taken this turn is not the one discarded).
- The pending meld: its kinds are distinct (a joker stands for a card the meld does not
  hold; in a set a joker stands for a suit, any missing suit for swaps later). While it is
  not empty the player may only add to it or commit it (no discard, lay-off or swap). It
  is public, like the table.
- Coming out: the melds committed in the turn the player comes out count together;
  ``turn_points`` is what was committed this turn before being out. Until the points (and
  the run) are reached the turn cannot end, and before any meld is committed a player who
  has not come out may simply discard. Lay-offs and swaps need the player to be out (out
  earlier, or by this turn's commits).
- Taking the discard before coming out (``take_discard_before_out: meld``): legal only if
  the hand with that card can come out using it; it must then be committed this turn
  (no discard until it is on the table: committed, laid off, or given to a table meld by
  a swap once out). With ``free`` it is like any draw. The card taken
  may not be discarded in the same turn (another card of its kind may).
- A joker taken by a swap must be played (committed in a meld, or laid off) this turn: no
  discard while it is in the hand; one swap at a time (no swap while such a joker is held).
- Going out: the hand ends when the player has no card left after a discard, or (with
  ``go_out_without_discard``) after a commit or lay-off. Hand rummy: going out in a turn
  that began without having come out multiplies every penalty by ``hand_rummy_multiplier``.
- The stock: when the stock is empty at the end of a turn, the discard pile but its top
  card becomes the stock: with ``turnover: shuffle`` in an order drawn from a generator
  seeded by the hand's own seed (from the deck order; so the deck and the actions replay
  the hand exactly) and the turnover's number; with ``flip`` turned over as it lies (the
  first card discarded on top; its order is then public, and a card drawn from it known).
  If the next player can neither draw nor take the discard, the hand is a stalemate
  ('stock'); after ``max_turns`` turns (a turn ends with a discard) also ('max_turns'):
  0 points for everyone.
- Scoring: each other player's penalty is the value of the cards in hand (ace 11, face
  cards 10, jokers ``joker_penalty``), doubled if that player never came out and
  ``never_out_double``, times the hand-rummy multiplier; the winner scores the sum, the
  others minus their own penalty (zero-sum rewards). After going out every hand is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from itertools import chain
from typing import Any, ClassVar, Optional, Sequence, Union

import numpy as np

from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, card_count
from rummy_env.core.compiled import UNDECIDED, Compiled
from rummy_env.core.game import IllegalActionError  # noqa: F401  (raised by step; imported from here too)
from rummy_env.core.state import CardGameState, HandResultBase
from rummy_env.romme import melds as M
from rummy_env.romme.cards import (
    FIRST_JOKER, JOKER, KINDS, NUM_DECKS, NUM_KINDS, TWO_JOKERS, kind_of, kind_str, num_physical, parse_kinds,
    penalty_values,
)
from rummy_env.romme.rules import MAX_PLAYERS, RommeRules, RommeRulesSpec, check_num_players, load_romme_rules

DRAW_STOCK = 0
TAKE_DISCARD = 1
COMMIT = 2
DISCARD = 3  # + kind 0..52
PICK = DISCARD + NUM_KINDS  # 56, + kind 0..51
JOKER_AS = PICK + NUM_CARDS  # 108, + kind 0..51
MAX_TABLE_MELDS = 36  # 110 // 3
LAYOFF = JOKER_AS + NUM_CARDS  # 160, + 52 * slot + kind
LAYOFF_JOKER = LAYOFF + NUM_CARDS * MAX_TABLE_MELDS  # 2032
SWAP = LAYOFF_JOKER + NUM_CARDS * MAX_TABLE_MELDS  # 3904
NUM_ACTIONS = SWAP + NUM_CARDS * MAX_TABLE_MELDS  # 5776
OUTCOMES = ("out", "hand_rummy", "stalemate")

_ALL_KINDS = np.ones(NUM_KINDS, dtype=np.uint8)  # a "hand" holding every kind once: what a meld accepts


class Phase(IntEnum):
    DRAW = 0  # draw from the stock or take the top discard
    PLAY = 1  # build and commit melds, lay off, swap, then discard (or go out)
    OVER = 2  # the hand has ended


def decode_action(action: int) -> tuple[str, int, int]:
    """``(move, slot, kind)`` of an action id: ``move`` one of 'draw', 'take', 'commit',
    'discard', 'pick', 'joker_as', 'layoff', 'layoff_joker', 'swap'; ``slot`` the table
    slot and ``kind`` the card kind it names (-1 where it names none). The one reading of
    the action layout that ``action_name`` and the third-person text both use."""
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}")
    action = int(action)
    if action < DISCARD:
        return ("draw", "take", "commit")[action], -1, -1
    for base, move in ((SWAP, "swap"), (LAYOFF_JOKER, "layoff_joker"), (LAYOFF, "layoff")):
        if action >= base:
            slot, kind = divmod(action - base, NUM_CARDS)
            return move, slot, kind
    for base, move in ((JOKER_AS, "joker_as"), (PICK, "pick"), (DISCARD, "discard")):
        if action >= base:
            return move, -1, action - base
    raise AssertionError(action)


_NAMES = {"draw": "draw stock", "take": "take discard", "commit": "commit meld", "discard": "discard {k}",
          "pick": "meld {k}", "joker_as": "meld JK as {k}", "layoff": "lay off {k} on slot {s}",
          "layoff_joker": "lay off JK as {k} on slot {s}", "swap": "swap {k} for the joker on slot {s}"}


def action_name(action: int) -> str:
    """Readable name of an action id, e.g. ``'discard 7D'`` or ``'lay off JK as 4H on slot 2'``."""
    move, slot, kind = decode_action(action)
    return _NAMES[move].format(k=kind_str(kind) if kind >= 0 else "", s=slot)


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class RommeHandResult(HandResultBase):
    """How a hand ended. ``winner`` went out and scores ``points``; ``penalties[i]`` is
    what seat i pays (0 for the winner); ``rewards`` are zero-sum per seat.

    ``outcome``: 'out', 'hand_rummy' (went out in a turn that began without having come
    out: penalties times ``hand_rummy_multiplier``) or 'stalemate' (``reason`` 'stock' or
    'max_turns': no points). ``hands_left``: every hand's cards when it ended, as kinds
    (increasing; 52 a joker), as everybody then sees them.
    """

    outcome: str
    winner: Optional[int]
    points: int
    penalties: tuple[int, ...]
    hands_left: tuple[tuple[int, ...], ...]
    came_out: tuple[bool, ...] = ()
    with_discard: bool = False
    reason: str = ""

    @property
    def rewards(self) -> tuple[int, ...]:
        return tuple(self.points if seat == self.winner else -pen for seat, pen in enumerate(self.penalties))

    def details(self) -> dict[str, Any]:
        return {
            "penalties": list(self.penalties),
            "hands_left": [" ".join(kind_str(k) for k in h) for h in self.hands_left],
            "came_out": list(self.came_out),
            "with_discard": self.with_discard,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table: who laid it, its cards (increasing: physical ids in the state,
    kinds in an information set) and its reading."""

    owner: int
    cards: tuple[int, ...]
    meld: M.Meld


@dataclass(slots=True)
class RommeInformationSet:
    """What one player knows, and nothing else: the only input agents and observations are
    built from. Tuples are indexed by seat. Every card is a *kind* (0..51, 52 a joker;
    ``rummy_env.romme.cards``), never a physical id: which of two identical copies lies
    where is hidden (see the module docstring), so it is not shown.

    Public facts: the table (owners, cards, readings), the discard pile in order, the
    pending meld and this turn's points, every action (``public_history``: (seat, action)
    pairs; a stock draw does not show the card) and the discards it holds per seat
    (``discarded``), hand sizes, came-out flags, and the cards
    known to be in each hand (taken from the pile, taken by a swap, or drawn from a stock
    whose order is public, until a card of their kind leaves that hand). After a player
    goes out all hands are shown (``known``).
    """

    player: int
    num_players: int
    hand: tuple[int, ...]  # own cards, increasing
    hand_counts: tuple[int, ...]  # own 53 kind counts
    table: tuple[TableMeld, ...]  # each meld's cards as kinds, increasing
    discard_pile: tuple[int, ...]  # bottom to top
    stock_size: int
    public_stock: tuple[int, ...]  # top first, when its order is public (after a flip), else ()
    hand_sizes: tuple[int, ...]
    came_out: tuple[bool, ...]
    phase: Phase
    current_player: int
    dealer: int
    turn: int
    turnovers: int
    pending: tuple[tuple[int, int], ...]  # (card, kind it stands for) of the meld being built (a natural card: k, k)
    turn_points: int  # points committed this turn by the player to move before coming out
    turn_melds: int
    turn_run: bool
    out_at_turn_start: bool
    taken_card: Optional[int]  # the card the player to move took from the pile this turn
    taken_held: bool  # it is still in their hand (a card of its kind melded goes first)
    must_meld_taken: bool
    joker_debt: bool  # the player to move holds a joker taken by a swap (it must be played this turn)
    known: tuple[tuple[int, ...], ...]  # per seat, increasing
    discarded: tuple[tuple[int, ...], ...]  # per seat, the kinds it discarded this hand, in order (from public_history)
    public_history: tuple[tuple[int, int], ...]
    result: Optional[RommeHandResult]


# ----------------------------------------------------------------------------- the hand


def _seed_of(deck: Sequence[int]) -> int:
    """The hand's own seed, from its deal order (for the stock's shuffles)."""
    return int(np.random.SeedSequence(list(deck)).generate_state(1, np.uint64)[0])


Query = tuple  # (rest bytes, target, need run, need kind or -1, keep)


@dataclass
class RommeState(CardGameState):
    """One hand of Rommé. Build with ``new_hand``, ``from_deck`` or ``from_hands``."""

    num_actions: ClassVar[int] = NUM_ACTIONS
    over_phase = Phase.OVER
    list_fields = ("stock", "discard_pile", "table", "came_out", "pending", "history")  # hands, known: clone

    rules: RommeRules
    num_players: int
    hands: list[list[int]]  # physical ids, increasing
    stock: list[int]  # top is the last element
    discard_pile: list[int]  # top is the last element
    dealer: int
    current_player: int
    phase: Phase = Phase.DRAW
    deck: Optional[tuple[int, ...]] = None
    seed: int = 0  # the hand's own seed for the stock's shuffles
    turn: int = 0
    turnovers: int = 0
    stock_public: bool = False
    table: list[TableMeld] = field(default_factory=list)
    came_out: list[bool] = field(default_factory=list)
    pending: list[tuple[int, int]] = field(default_factory=list)
    turn_points: int = 0
    turn_melds: int = 0
    turn_run: bool = False
    out_at_turn_start: bool = False
    taken_card: Optional[int] = None
    must_meld_taken: bool = False
    swapped_joker: Optional[int] = None
    known: list[list[int]] = field(default_factory=list)
    history: list[tuple[int, int]] = field(default_factory=list)
    result: Optional[RommeHandResult] = None
    # What the information sets show, kept between positions (``_information_set`` builds a
    # set at every step; the tests compare each with one built plainly). Shared by clones,
    # as they hold tuples and bytes, replaced, never changed: the table as kinds (None: not
    # made yet; ``_set_slot`` changes it with the table); the known cards per seat as
    # ``_seat_kinds`` gives them, made again for the seats whose ``known`` a move changed
    # (bits of ``_known_stale``, -1: all); the came-out flags (None once a seat comes out);
    # each seat's discards (``_discard`` adds each); the known cards and the discards as
    # bytes together (``_seat_bytes``, while both views are the same). And each seat's kind
    # counts (53 ints), changed with its hand (``_give``, ``_take``, ``_discard``): lists
    # of each state's own, copied by ``clone``.
    _counts: list[list[int]] = field(default_factory=list, init=False, repr=False, compare=False)
    _table_view: Optional[tuple[TableMeld, ...]] = field(default=None, init=False, repr=False, compare=False)
    _known_view: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)
    _known_stale: int = field(default=-1, init=False, repr=False, compare=False)
    _came_out_view: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)
    _discards: tuple = field(default=(), init=False, repr=False, compare=False)
    _seat_bytes: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = self.num_players
        if not self.came_out:
            self.came_out = [False] * n
        if not self.known:
            self.known = [[] for _ in range(n)]
        self._counts = [_count_list(h) for h in self.hands]
        per_seat: list[tuple[int, ...]] = [()] * n
        for seat, action in self.history:
            if DISCARD <= action < PICK:
                per_seat[seat] += (action - DISCARD,)
        self._discards = _seat_view(tuple(per_seat))

    # ----------------------------------------------------------------- construction

    @classmethod
    def new_hand(cls, num_players: int = 2, rules: RommeRulesSpec = None, seed: Union[int, np.random.Generator, None] = None,
                 dealer: Optional[int] = None) -> "RommeState":
        """A hand dealt from a shuffled pack (``seed``: int, numpy Generator or None)."""
        rules = load_romme_rules(rules)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return cls.from_deck(rng.permutation(num_physical(rules)).tolist(), num_players, rules, dealer)

    @classmethod
    def from_deck(cls, deck: Sequence[int], num_players: int = 2, rules: RommeRulesSpec = None,
                  dealer: Optional[int] = None) -> "RommeState":
        """A hand dealt from an explicit order of the pack's physical ids (see the module
        docstring). ``dealer`` defaults to the last seat, so seat 0 plays first."""
        n = check_num_players(num_players)
        rules = load_romme_rules(rules)
        size = num_physical(rules)
        try:
            cards = tuple(int(c) for c in deck)
        except (TypeError, ValueError):
            raise ValueError(f"deck must be a sequence of the {size} physical card ids 0..{size - 1}") from None
        if sorted(cards) != list(range(size)):
            raise ValueError(f"deck must be a permutation of the {size} physical card ids 0..{size - 1} "
                             f"({rules.jokers} jokers), got {len(cards)} ids")
        dealer = n - 1 if dealer is None else dealer
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        dealer = int(dealer)
        hands: list[list[int]] = [[] for _ in range(n)]
        at = 0
        for i in range(n):
            seat = (dealer + 1 + i) % n
            k = rules.cards_dealt(first_player=i == 0)
            hands[seat] = sorted(cards[at:at + k])
            at += k
        first = (dealer + 1) % n
        return cls(rules=rules, num_players=n, hands=hands, stock=list(reversed(cards[at + 1:])),
                   discard_pile=[cards[at]], dealer=dealer, current_player=first,
                   phase=Phase.PLAY if rules.deal_extra_card else Phase.DRAW, deck=cards, seed=_seed_of(cards))

    @classmethod
    def from_hands(cls, hands: Sequence[Union[str, Sequence[int]]], upcard: Union[str, int],
                   stock: Union[str, Sequence[int]] = (), rules: RommeRulesSpec = None,
                   dealer: Optional[int] = None) -> "RommeState":
        """A hand from explicit cards per seat, for tests: text like ``'AC 2C 3C JK'`` (each
        kind takes its lowest physical id not named yet) or physical ids. ``stock`` is listed
        top first; cards not named go below it in id order. The first player (left of the
        dealer) needs 14 cards with ``deal_extra_card``, the others 13."""
        rules = load_romme_rules(rules)
        n = check_num_players(len(hands))
        dealer = n - 1 if dealer is None else dealer
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        size = num_physical(rules)
        used: set[int] = set()

        def physical(x) -> list[int]:
            if isinstance(x, str):
                out = []
                for k in parse_kinds(x):
                    ids = range(FIRST_JOKER, size) if k == JOKER else (k, k + NUM_CARDS)
                    free = [c for c in ids if c not in used]
                    if not free:
                        raise ValueError(f"more cards of {kind_str(k)} named than the pack holds")
                    used.add(free[0])
                    out.append(free[0])
                return out
            out = [int(c) for c in x]
            if any(c in used or not 0 <= c < size for c in out):
                raise ValueError("a physical card is named twice or is not in the pack")
            used.update(out)
            return out

        per_seat = [physical(h) for h in hands]
        for i in range(n):
            seat = (dealer + 1 + i) % n
            want = rules.cards_dealt(first_player=i == 0)
            if len(per_seat[seat]) != want:
                raise ValueError(f"seat {seat} must be dealt {want} cards, got {len(per_seat[seat])}")
        up = physical([upcard] if not isinstance(upcard, str) else upcard)
        if len(up) != 1:
            raise ValueError(f"upcard must be one card, got {upcard!r}")
        top = physical(stock)
        order = [c for i in range(n) for c in per_seat[(dealer + 1 + i) % n]] + up + top
        order += [c for c in range(size) if c not in used]
        return cls.from_deck(order, n, rules, dealer)

    def clone(self) -> "RommeState":
        """An independent copy (for search): the hands and known cards are lists of lists."""
        new = super().clone()
        new.hands = [list(h) for h in self.hands]
        new.known = [list(k) for k in self.known]
        new._counts = [list(c) for c in self._counts]
        return new

    # ----------------------------------------------------------------- queries

    @property
    def actions(self) -> list[int]:
        """Every action played this hand, in order (with ``deck`` and ``dealer`` it replays)."""
        return [a for _, a in self.history]

    def card_places(self) -> dict[str, list[int]]:
        """Where every physical card is: each hand, the pending meld, each table meld, the
        stock and the discard pile. The places always partition the pack."""
        places = {f"hand {seat}": list(h) for seat, h in enumerate(self.hands)}
        places["pending"] = [c for c, _ in self.pending]
        for slot, m in enumerate(self.table):
            places[f"table {slot}"] = list(m.cards)
        places.update(stock=list(self.stock), discard_pile=list(self.discard_pile))
        return places

    def counts(self, player: int) -> np.ndarray:
        """(53,) uint8 kind counts of ``player``'s hand (the pending meld not included)."""
        out = np.zeros(NUM_KINDS, dtype=np.uint8)
        for c in self.hands[player]:
            out[c % NUM_CARDS if c < FIRST_JOKER else JOKER] += 1
        return out

    def hand_text(self, player: int, by_suit: bool = False) -> str:
        """A seat's cards as text, sorted by suit then rank, jokers last (``'AC AC 7D JK'``);
        ``by_suit``: each suit and the jokers a group of its own (``'AC AC | 7D | JK'``)."""
        groups: dict[int, list[str]] = {}
        for k in _kinds(self.hands[player]):
            groups.setdefault(k // NUM_RANKS if k != JOKER else NUM_SUITS, []).append(kind_str(k))
        return (" | " if by_suit else " ").join(" ".join(cards) for cards in groups.values())

    def hand_note(self, player: int) -> str:
        """What a seat's hand would pay as it is and after its best melds (the exact solver;
        before the never-out and hand-rummy multipliers): ``'14 cards, 87 penalty points;
        12 after its best melds'``."""
        counts = self.counts(player)
        left = M.best_arrangement(counts, self.rules).penalty
        held = int((penalty_values(self.rules) * counts).sum())
        return f"{card_count(int(counts.sum()))}, {held} penalty points; {left} after its best melds"

    @property
    def is_out(self) -> bool:
        """Whether the player to move has come out (before or this turn)."""
        return self.came_out[self.current_player]

    # ----------------------------------------------------------------- the turn predicate

    @property
    def taken_held(self) -> bool:
        """Whether the card taken from the pile this turn is in the mover's hand as that card
        (it may not be discarded). A joker taken, laid off and brought back by a swap is the
        joker owed instead: it must be played, which covers not discarding it (and so the
        vector engine, which follows no card's id, has it)."""
        taken = self.taken_card
        return taken is not None and taken != self.swapped_joker and taken in self.hands[self.current_player]

    def _ctx(self) -> dict:
        """The turn's constraints for the predicate, from the state."""
        p = self.current_player
        taken = self.taken_card
        hand = self.hands[p]
        return dict(
            out=self.came_out[p],
            taken_kind=kind_of(taken) if self.taken_held else None,
            must=self.must_meld_taken,
            debt=self.swapped_joker is not None and self.swapped_joker in hand,
        )

    def _queries(self, hand: np.ndarray, nat: tuple, jok: tuple, out: bool, taken_kind: Optional[int], must: bool,
                 debt: bool, turn_points: int, turn_melds: int, turn_run: bool, slots_take_joker: bool,
                 completions: Any = M._completions) -> list:
        """The solver queries (any true: the turn can end) for a position: ``hand`` the
        kind counts not in the pending meld ``nat`` + jokers as ``jok``; ``taken_kind`` the
        kind of the card taken from the pile if it is in ``hand``; ``must`` it must be melded
        (before coming out); ``debt`` a joker taken by a swap is in ``hand``. True in the
        list means the turn can end with no query. ``completions`` lists the ways to finish
        the pending meld (``melds._completions``, or its reference)."""
        r = self.rules
        keep_base = 0 if r.go_out_without_discard else 1
        out_queries: list = []
        if not nat and not jok:
            if not debt and not (must and taken_kind is not None) and (out or turn_melds == 0):
                size = int(hand.sum())
                if size - (1 if taken_kind is not None else 0) >= 1:
                    return [True]
            completions = [None]
        else:
            completions = completions(nat, jok, hand.tobytes(), r)
        need_run0 = r.come_out_needs_run and not turn_run
        for c in completions:
            if c is None:
                rest, value, run, extra_jokers, used_kinds = hand, 0, False, 0, ()
            else:
                rest = hand.copy()
                for x in c.extra:
                    rest[x] -= 1
                rest[JOKER] -= c.extra_jokers
                value, run = c.value, c.run
                extra_jokers = c.extra_jokers  # from the hand (those in the meld already left it)
                used_kinds = nat + c.extra
            if out:
                target, need_run = 0, False
            else:
                target, need_run = r.come_out_points - turn_points - value, need_run0 and not run
                if c is None and turn_melds == 0:
                    target = max(target, 0)
            tk = taken_kind
            need = None
            # a joker played leaves the hand as the one owed first, then the one taken (``_take``)
            if tk is not None and (tk in used_kinds or (tk == JOKER and extra_jokers >= (2 if debt else 1))):
                tk = None  # the taken card went first into this meld
            elif tk is not None and must:
                need = tk
            joker_paid = not debt or extra_jokers > 0
            variants = []
            if joker_paid:
                variants.append((rest, need))
            else:
                if rest[JOKER] >= 1 and (slots_take_joker or self._completion_takes_joker(c)):
                    r2 = rest.copy()
                    r2[JOKER] -= 1
                    variants.append((r2, need))
                if tk == JOKER:  # melded: the owed joker and then the taken one go into the melds
                    if need is None:  # the owed only: the taken joker stays, another card is discarded
                        r2 = rest.copy()
                        r2[JOKER] -= 1
                        out_queries.append((r2, target, need_run, JOKER, 1))
                    out_queries.append((rest, target, need_run, TWO_JOKERS, keep_base))
                elif need is None:
                    variants.append((rest, JOKER))
            for rest_v, need_v in variants:
                if tk is not None and rest_v[tk] >= 1:
                    c_t = int(rest_v[tk])
                    if need_v != tk:  # (a) the taken card stays in hand: another card is discarded
                        ra = rest_v.copy()
                        ra[tk] = 0
                        if need_v is None or ra[need_v] >= 1:
                            out_queries.append((ra, target, need_run, need_v, max(0, 2 - c_t)))
                    if need_v is None or need_v == tk:  # (b) a card of its kind is melded (the taken one first)
                        out_queries.append((rest_v, target, need_run, tk, keep_base))
                else:
                    out_queries.append((rest_v, target, need_run, need_v, keep_base))
        return out_queries

    def _completion_takes_joker(self, c) -> bool:
        if c is None:
            return False
        return any(k == JOKER for k, _ in _accepts(c.meld(), self.rules)[0])

    def _evaluate(self, groups: list[tuple[Any, list]]) -> list:
        """The items of ``groups`` ((item, queries)) whose queries hold, in order. A query
        that needs no solver (no points, run or card asked: enough cards left; a card asked
        that is not there) is answered on the spot, and an item is decided at its first
        query that holds; the others are solved in one batch per (points, run, keep) and
        remembered (per rules) for later positions."""
        r = self.rules
        cache = _QUERY_CACHE.get(r)
        if cache is None or len(cache) > 400_000:
            if len(_QUERY_CACHE) >= 8:  # many rule sets in one process (tests): start afresh
                _QUERY_CACHE.clear()
            cache = _QUERY_CACHE[r] = {}
        pending: dict = {}
        open_items: list = []  # (item, keys of its queries that need the solver)
        for item, queries in groups:
            keys = []
            for q in queries:
                if q is True:
                    keys = True
                    break
                rest, target, need_run, need, keep = q
                if target <= 0 and not need_run and need is None:
                    if int(rest.sum()) >= keep:
                        keys = True
                        break
                    continue
                if M.lacks(rest, need):
                    continue
                key = (rest.tobytes(), int(target), bool(need_run), -1 if need is None else int(need), int(keep))
                got = cache.get(key)
                if got is None:
                    pending.setdefault((max(0, int(target)), bool(need_run), int(keep)), {})[key] = (rest, need)
                elif got:
                    keys = True
                    break
                keys.append(key)
            open_items.append((item, keys))
        for (target, need_run, keep), items in pending.items():
            keys = list(items)
            hands = np.stack([items[k][0] for k in keys])
            needs = np.array([-1 if items[k][1] is None else items[k][1] for k in keys], dtype=np.int64)
            got = M._can_come_out_checked(hands, M._query_rules(r, target, need_run), needs, keep)
            for k, v in zip(keys, got.tolist()):
                cache[k] = v
        return [item for item, keys in open_items if keys is True or any(cache[k] for k in keys)]

    def _slots_take_joker(self) -> bool:
        return any(_accepts(m.meld, self.rules)[1] for m in self.table)

    # ----------------------------------------------------------------- legal actions

    def _evaluate_reference(self, groups: list[tuple[Any, list]]) -> list:
        """``_evaluate`` the plain way: every query asked of ``melds.rest_can_come_out``."""
        r = self.rules
        return [item for item, queries in groups
                if any(q is True or M.rest_can_come_out(*q, r) for q in queries)]

    def _next_cards(self, hand: np.ndarray, nat: tuple, jok: tuple, pend_kinds: set,
                    reference: bool) -> tuple[list[int], list[int]]:
        """The kinds k whose ``PICK`` (a natural card held) and whose ``JOKER_AS`` (a joker
        held, standing for k) leave a meld being built that can still be finished from the
        hand: ``melds.next_cards`` for every card at once, or (``reference``) card by card
        with ``melds._completions_reference``."""
        if not reference:
            pick_mask, joker_mask = M.next_cards(nat, jok, hand.tobytes(), self.rules)
            return list(M._bit_tuple(pick_mask)), list(M._bit_tuple(joker_mask))
        r = self.rules
        completions = M._completions_reference
        picks = [k for k in range(NUM_CARDS) if hand[k] and k not in pend_kinds
                 and completions(tuple(sorted(nat + (k,))), jok, _hand_minus(hand, k).tobytes(), r)]
        jokers_as = []
        if hand[JOKER]:
            fewer = _hand_minus(hand, JOKER).tobytes()
            jokers_as = [k for k in range(NUM_CARDS) if k not in pend_kinds
                         and completions(nat, tuple(sorted(jok + (k,))), fewer, r)]
        return picks, jokers_as

    def _compute_legal(self) -> list[int]:
        kernel = _legal_kernel()
        if kernel is None:
            return self._legal_actions(reference=False)
        return kernel.legal_actions(self)

    def legal_mask(self) -> np.ndarray:
        """int8 mask over the actions for the player to move (``CardGameState.legal_mask``);
        with the compiled mask, on a position not asked about yet, written by the very call
        that finds the legal actions (a mask made from their list costs as much again)."""
        if self._legal is None:
            kernel = _legal_kernel()
            if kernel is not None:
                mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
                self._legal = kernel.legal_actions(self, mask)
                return mask
        return super().legal_mask()

    def _compute_legal_reference(self) -> list[int]:
        """The legal actions computed the plain way: every card tried in the meld being built,
        every completion listed by ``melds._completions_reference`` and every solver query
        asked of ``melds.rest_can_come_out`` (``_evaluate_reference``). What the fast path
        (``_compute_legal``) is tested against: the two must agree in every position."""
        return self._legal_actions(reference=True)

    def _legal_actions(self, reference: bool) -> list[int]:
        """The legal actions; ``reference``: computed the plain way (``_compute_legal_reference``)."""
        completions = M._completions_reference if reference else M._completions
        evaluate = self._evaluate_reference if reference else self._evaluate
        if self.phase == Phase.OVER:
            return []
        p = self.current_player
        r = self.rules
        hand = self.counts(p)
        out_ = self.came_out[p]
        if self.phase == Phase.DRAW:
            legal = [DRAW_STOCK] if self.stock else []
            if self.discard_pile and self._can_take(evaluate):
                legal.append(TAKE_DISCARD)
            return legal
        ctx = self._ctx()
        tk, must, debt = ctx["taken_kind"], ctx["must"], ctx["debt"]
        nat = tuple(sorted(k for c, k in self.pending if c < FIRST_JOKER))
        jok = tuple(sorted(k for c, k in self.pending if c >= FIRST_JOKER))
        pend_kinds = set(nat + jok)
        slots_joker = self._slots_take_joker()
        base = dict(out=out_, taken_kind=tk, must=must, debt=debt, turn_points=self.turn_points,
                    turn_melds=self.turn_melds, turn_run=self.turn_run, slots_take_joker=slots_joker,
                    completions=completions)
        groups: list[tuple[int, list]] = []
        legal: list[int] = []
        # commit
        if nat or jok:
            readings = completions(nat, jok, _EMPTY, r)
            if readings:
                best = max(readings, key=lambda c: c.value)
                after_out = out_ or (self.turn_points + best.value >= r.come_out_points
                                     and (not r.come_out_needs_run or self.turn_run or best.run))
                if int(hand.sum()) == 0:
                    if r.go_out_without_discard and after_out:
                        legal.append(COMMIT)
                else:
                    meld = best.meld()
                    q = self._queries(hand, (), (), after_out, tk, must,
                                      debt and not jok, 0 if after_out else self.turn_points + best.value,
                                      self.turn_melds + 1, self.turn_run or best.run,
                                      slots_joker or _accepts(meld, r)[1])
                    groups.append((COMMIT, q))
        # discard
        if not nat and not jok and not debt and not (must and tk is not None) and (out_ or self.turn_melds == 0):
            hand_list = self.hands[p]
            seen = set()
            for c in hand_list:
                if c == self.taken_card:
                    continue
                k = kind_of(c)
                if k not in seen:
                    seen.add(k)
                    legal.append(DISCARD + k)
        # a quick no: before coming out, can the hand come out at all?
        can_meld = True
        if not out_ and not nat and not jok:
            q = self._queries(hand, (), (), False, tk, must, False, self.turn_points, max(self.turn_melds, 1),
                              self.turn_run, slots_joker)
            can_meld = bool(evaluate([(0, q)]))
        if can_meld:
            picks, jokers_as = self._next_cards(hand, nat, jok, pend_kinds, reference)
            for k in picks:
                n2 = tuple(sorted(nat + (k,)))
                h2 = _hand_minus(hand, k)
                tk2 = None if tk == k else tk
                groups.append((PICK + k, self._queries(h2, n2, jok, **{**base, "taken_kind": tk2})))
            if jokers_as:  # the joker put down: the one owed if any (paid), else the one taken if any
                h2 = _hand_minus(hand, JOKER)
                tk2 = None if tk == JOKER and not debt else tk
                for k in jokers_as:
                    j2 = tuple(sorted(jok + (k,)))
                    groups.append((JOKER_AS + k, self._queries(h2, nat, j2, **{**base, "taken_kind": tk2,
                                                                                 "debt": False})))
        # lay-offs and swaps: once out, nothing pending. A joker owed (taken by a swap) must
        # still find a place after the move: whether a table meld takes a joker is asked of
        # the table as the move leaves it (the meld laid off on, or swapped, may take one no
        # more, or now)
        if out_ and not nat and not jok:
            takes = [bool(_accepts(tm.meld, r)[1]) for tm in self.table]
            for slot, tm in enumerate(self.table):
                acc, joker_kinds, swaps = _accepts(tm.meld, r)
                others_take = any(t for j, t in enumerate(takes) if j != slot)
                for k, new in dict(acc).items():  # a run of 12 takes its missing rank at both ends: one action
                    if k != JOKER and hand[k]:
                        h2 = _hand_minus(hand, k)
                        tk2 = None if tk == k else tk
                        if int(h2.sum()) == 0:
                            if r.go_out_without_discard:
                                legal.append(LAYOFF + NUM_CARDS * slot + k)
                            continue
                        after = others_take or bool(_accepts(new, r)[1])
                        groups.append((LAYOFF + NUM_CARDS * slot + k,
                                       self._queries(h2, (), (), **{**base, "taken_kind": tk2,
                                                                    "slots_take_joker": after})))
                if hand[JOKER]:  # the joker laid off: the one owed if any, else the one taken if any
                    h2 = _hand_minus(hand, JOKER)
                    tk2 = None if tk == JOKER and not debt else tk
                    for k in joker_kinds:
                        a = LAYOFF_JOKER + NUM_CARDS * slot + k
                        if int(h2.sum()) == 0:
                            if r.go_out_without_discard:
                                legal.append(a)
                            continue
                        groups.append((a, self._queries(h2, (), (), **{**base, "taken_kind": tk2, "debt": False})))
                if not debt:
                    for k in swaps:
                        if hand[k]:
                            h2 = _hand_minus(hand, k)
                            h2[JOKER] += 1
                            tk2 = None if tk == k else tk
                            after = others_take or bool(_accepts(_swapped_meld(tm.meld, k), r)[1])
                            groups.append((SWAP + NUM_CARDS * slot + k,
                                           self._queries(h2, (), (), **{**base, "taken_kind": tk2, "debt": True,
                                                                        "slots_take_joker": after})))
        legal += evaluate(groups)
        return sorted(legal)

    def _can_take(self, evaluate: Any = None) -> bool:
        """Whether the player to move (drawing) may take the top discard (``evaluate``: how
        the solver queries are answered, ``_evaluate`` by default)."""
        p = self.current_player
        r = self.rules
        card = self.discard_pile[-1]
        k = kind_of(card)
        hand = self.counts(p)
        hand[k] += 1
        must = not self.came_out[p] and r.take_discard_before_out == "meld"
        q = self._queries(hand, (), (), self.came_out[p], k, must, False, 0, 1 if must else 0, False,
                          self._slots_take_joker())
        return bool((evaluate or self._evaluate)([(0, q)]))

    # ----------------------------------------------------------------- stepping

    def step(self, action: int) -> None:
        """Apply an action of the player to move; raises ``IllegalActionError`` if not legal
        (naming the legal actions; the state is left as it was)."""
        action = self._check(action)
        p = self.current_player
        self.history.append((p, action))
        self._moved()
        r = self.rules
        if action == DRAW_STOCK:
            card = self.stock.pop()
            self._give(p, card)
            if self.stock_public:
                self.known[p].append(card)
                self._known_stale |= 1 << p
            self.taken_card = None
            self.phase = Phase.PLAY
        elif action == TAKE_DISCARD:
            card = self.discard_pile.pop()
            self._give(p, card)
            self.known[p].append(card)
            self._known_stale |= 1 << p
            self.taken_card = card
            self.must_meld_taken = not self.came_out[p] and r.take_discard_before_out == "meld"
            self.phase = Phase.PLAY
        elif action == COMMIT:
            self._commit(p)
        elif action < PICK:
            self._discard(p, action - DISCARD)
        elif action < JOKER_AS:
            k = action - PICK
            self.pending.append((self._take(p, k), k))
        elif action < LAYOFF:
            k = action - JOKER_AS
            self.pending.append((self._take(p, JOKER), k))
        elif action < LAYOFF_JOKER:
            slot, k = divmod(action - LAYOFF, NUM_CARDS)
            self._lay_off(p, slot, k, self._take(p, k))
        elif action < SWAP:
            slot, k = divmod(action - LAYOFF_JOKER, NUM_CARDS)
            self._lay_off(p, slot, JOKER, self._take(p, JOKER), k)
        else:
            slot, k = divmod(action - SWAP, NUM_CARDS)
            self._swap(p, slot, k)

    def _give(self, p: int, card: int) -> None:
        h = self.hands[p]
        h.append(card)
        h.sort()
        self._counts[p][KINDS[card]] += 1

    def _take(self, p: int, kind: int) -> int:
        """Remove and return the physical card of ``kind`` that ``p`` plays (see the module
        docstring: the swapped joker, then the card taken from the pile, then the lowest id)."""
        h = self.hands[p]
        if kind == JOKER and self.swapped_joker is not None and self.swapped_joker in h:
            card = self.swapped_joker
        elif self.taken_card is not None and self.taken_card in h and KINDS[self.taken_card] == kind:
            card = self.taken_card
        else:
            card = next(c for c in h if KINDS[c] == kind)
        h.remove(card)
        self._counts[p][kind] -= 1
        self._forget(p, card)
        return card

    def _forget(self, p: int, card: int) -> None:
        """``card`` has left ``p``'s hand: a card of its kind known to be there is no longer
        known (the others cannot tell which copy left), unless the only one known is the
        card taken this turn, which stays (it is never the one discarded). ``known`` so
        depends on the kinds played alone, and holds only cards still in the hand."""
        known = self.known[p]
        if not known:
            return
        if card in known:
            known.remove(card)
            self._known_stale |= 1 << p
            return
        kind = KINDS[card]
        copy_ = next((c for c in known if KINDS[c] == kind and c != self.taken_card), None)
        if copy_ is not None:
            known.remove(copy_)
            self._known_stale |= 1 << p

    def _commit(self, p: int) -> None:
        r = self.rules
        nat = tuple(sorted(k for c, k in self.pending if c < FIRST_JOKER))
        jok = tuple(sorted(k for c, k in self.pending if c >= FIRST_JOKER))
        value, run, meld = _committed(nat, jok, r)
        cards = tuple(sorted(c for c, _ in self.pending))
        self._set_slot(len(self.table), TableMeld(p, cards, meld))
        if self.swapped_joker in cards:
            self.swapped_joker = None
        if self.taken_card in cards:
            self.must_meld_taken = False
        self.pending = []
        if not self.came_out[p]:
            self.turn_points += value
            self.turn_melds += 1
            self.turn_run |= run
            if self.turn_points >= r.come_out_points and (not r.come_out_needs_run or self.turn_run):
                self.came_out[p] = True
                self._came_out_view = None
        if not self.hands[p]:
            self._go_out(p, with_discard=False)

    def _set_slot(self, slot: int, meld: TableMeld) -> None:
        """Lay ``meld`` at table slot ``slot`` (the next slot: a new meld), and show it so in
        the table as kinds if that is kept (``_shown_table``): the other slots' stay."""
        view = self._table_view
        if view is not None:
            shown = TableMeld(meld.owner, _kinds(meld.cards), meld.meld)
            self._table_view = view[:slot] + (shown,) + view[slot + 1:]
        if slot == len(self.table):
            self.table.append(meld)
        else:
            self.table[slot] = meld

    def _lay_off(self, p: int, slot: int, kind: int, card: int, stands_for: Optional[int] = None) -> None:
        old = self.table[slot]
        new_meld = _layoff_meld(old.meld, kind if stands_for is None else JOKER, stands_for, self.rules)
        self._set_slot(slot, TableMeld(old.owner, tuple(sorted(old.cards + (card,))), new_meld))
        if card == self.swapped_joker:
            self.swapped_joker = None
        if card == self.taken_card:
            self.must_meld_taken = False
        if not self.hands[p]:
            self._go_out(p, with_discard=False)

    def _swap(self, p: int, slot: int, kind: int) -> None:
        old = self.table[slot]
        card = self._take(p, kind)
        new_meld = _swapped_meld(old.meld, kind)
        joker = min(c for c in old.cards if c >= FIRST_JOKER)
        cards = tuple(sorted([c for c in old.cards if c != joker] + [card]))
        self._set_slot(slot, TableMeld(old.owner, cards, new_meld))
        if card == self.taken_card:  # on the table: it need not be melded any more
            self.must_meld_taken = False
        self._give(p, joker)
        self.known[p].append(joker)
        self._known_stale |= 1 << p
        self.swapped_joker = joker

    def _discard(self, p: int, kind: int) -> None:
        h = self.hands[p]
        card = next(c for c in h if KINDS[c] == kind and c != self.taken_card)
        h.remove(card)
        self._counts[p][kind] -= 1
        self._forget(p, card)
        self._discards = _with_discard(self._discards, p, kind)
        self.discard_pile.append(card)
        self.turn += 1
        if not h:
            self._go_out(p, with_discard=True)
            return
        self._end_turn(p)

    def _end_turn(self, p: int) -> None:
        r = self.rules
        self.taken_card = None
        self.must_meld_taken = False
        self.swapped_joker = None
        self.turn_points = self.turn_melds = 0
        self.turn_run = False
        if not self.stock and len(self.discard_pile) > 1:
            below = self.discard_pile[:-1]
            self.discard_pile = self.discard_pile[-1:]
            self.turnovers += 1
            if r.turnover == "flip":
                self.stock = list(reversed(below))  # turned over: the first card discarded on top
                self.stock_public = True
            else:
                order = np.random.default_rng([self.seed, self.turnovers]).permutation(len(below))
                self.stock = [below[i] for i in order]
                self.stock_public = False
        if self.turn >= r.max_turns:
            self._stalemate("max_turns")
            return
        self.current_player = (p + 1) % self.num_players
        self.out_at_turn_start = self.came_out[self.current_player]
        self.phase = Phase.DRAW
        if not self.stock and not (self.discard_pile and self._can_take()):
            self._stalemate("stock")

    def _go_out(self, p: int, with_discard: bool) -> None:
        r = self.rules
        rummy = not self.out_at_turn_start
        mult = r.hand_rummy_multiplier if rummy else 1
        pen = penalty_values(r)
        penalties = []
        for seat, h in enumerate(self.hands):
            if seat == p:
                penalties.append(0)
                continue
            value = sum(int(pen[kind_of(c)]) for c in h)
            if r.never_out_double and not self.came_out[seat]:
                value *= 2
            penalties.append(value * mult)
        self.result = RommeHandResult("hand_rummy" if rummy else "out", p, sum(penalties), tuple(penalties),
                                      tuple(_kinds(h) for h in self.hands), tuple(self.came_out), with_discard)
        self.phase = Phase.OVER

    def _stalemate(self, reason: str) -> None:
        n = self.num_players
        self.result = RommeHandResult("stalemate", None, 0, (0,) * n, (), tuple(self.came_out), reason=reason)
        self.phase = Phase.OVER

    # ----------------------------------------------------------------- information sets

    def action_name(self, action: int) -> str:
        return action_name(action)

    def _shown_table(self) -> tuple[TableMeld, ...]:
        """The table as the information sets show it (each meld's cards as kinds), kept
        until a move changes the table: one tuple shared by every seat's information set."""
        view = self._table_view
        if view is None:
            view = self._table_view = tuple(TableMeld(m.owner, _kinds(m.cards), m.meld) for m in self.table)
        return view

    def _came_out(self) -> tuple[tuple[bool, ...], bytes]:
        """Each seat's came-out flag as a tuple and as bytes, kept until a seat comes out
        (``_came_out_view``, None then)."""
        view = self._came_out_view = (tuple(self.came_out), bytes(self.came_out))
        return view

    def _seat_known(self) -> tuple:
        """Per seat, the cards known to be in its hand as ``_seat_kinds`` gives them, kept
        between positions: made again for the seats whose ``known`` a move changed (the
        bits of ``_known_stale``; -1: every seat, no view made yet)."""
        stale = self._known_stale
        if stale == -1:
            view = _seat_kinds(self.known)
        else:
            kinds = list(self._known_view[0])
            for seat, cards in enumerate(self.known):
                if stale >> seat & 1:
                    kinds[seat] = tuple(sorted(bytes(cards).translate(_KIND_BYTES)))
            view = _seat_view(tuple(kinds))
        self._known_view, self._known_stale = view, 0
        return view

    def _information_set(self, player: int) -> RommeInformationSet:
        """What ``player`` knows (the class documents each field). Built from bytes of kinds
        (``bytes.translate`` of the physical ids), which are kept beside the set for the
        compiled observation (``_info_bytes``): the set's cards made once, not once for the
        set and again for its observation. The fields are passed in their order, not by
        name (a call naming 28 fields costs four times as much); the tests compare the set
        with one built plainly."""
        hands = self.hands
        result = self.result
        hand_b = bytes(hands[player]).translate(_KIND_BYTES)
        pile_b = bytes(self.discard_pile).translate(_KIND_BYTES)
        public_b = bytes(self.stock[::-1]).translate(_KIND_BYTES) if self.stock_public else b""
        if result is not None and result.winner is not None:  # after going out every hand is shown
            known_view = _seat_kinds(hands)
        else:
            known_view = self._seat_known() if self._known_stale else self._known_view
        discards_view = self._discards
        seats = self._seat_bytes  # the two views' bytes and counts together, kept while both are
        if seats is None or seats[0] is not known_view or seats[1] is not discards_view:
            seats = self._seat_bytes = (known_view, discards_view, known_view[1] + discards_view[1],
                                        known_view[2] + discards_view[2] + _PAD[len(hands)])
        pending = tuple([(KINDS[c], k) for c, k in self.pending]) if self.pending else ()
        sizes_b = bytes(map(len, hands))
        came = self._came_out_view or self._came_out()
        current = self.current_player
        held = hands[current]
        taken, swapped = self.taken_card, self.swapped_joker
        hand, pile, public, sizes = tuple(sorted(hand_b)), tuple(pile_b), tuple(public_b), tuple(sizes_b)
        known, discarded = known_view[0], discards_view[0]
        info = RommeInformationSet(
            player, self.num_players, hand, tuple(self._counts[player]), self._table_view or self._shown_table(), pile,
            len(self.stock), public, sizes, came[0], self.phase, current, self.dealer, self.turn, self.turnovers,
            pending, self.turn_points, self.turn_melds, self.turn_run, self.out_at_turn_start,
            None if taken is None else KINDS[taken], self.taken_held, self.must_meld_taken,
            swapped is not None and swapped in held, known, discarded, tuple(self.history), result)
        if len(_INFO_BYTES) >= _INFO_BYTES_KEPT:  # (before adding: the set just made stays)
            _INFO_BYTES.clear()
        _INFO_BYTES[id(info)] = (
            info, (b"".join((hand_b, pile_b, public_b, seats[2])), (len(hand_b), len(pile_b), len(public_b)) + seats[3],
                   (bytes(chain.from_iterable(pending)) if pending else b"") + came[1] + sizes_b),
            hand, pile, public, known, discarded, pending, came[0], sizes)
        return info

    def redeal_hidden(self, player: int, rng: np.random.Generator) -> "RommeState":
        """A copy with the cards ``player`` cannot know dealt differently among their places:
        the other players' cards not known to be theirs, and the stock unless its order is
        public (and the seed of later shuffles). What ``player`` sees must not change."""
        t = self.clone()
        if self.result is not None and self.result.winner is not None:
            return t
        others = [q for q in range(self.num_players) if q != player]
        hidden = {q: [c for c in self.hands[q] if c not in self.known[q]] for q in others}
        stock = [] if self.stock_public else list(self.stock)
        pool = [c for q in others for c in hidden[q]] + stock
        rng.shuffle(pool)
        for q in others:
            k = len(hidden[q])
            t.hands[q] = sorted([c for c in self.hands[q] if c in self.known[q]] + pool[:k])
            t._counts[q] = _count_list(t.hands[q])
            pool = pool[k:]
        if not self.stock_public:
            t.stock = pool
        t.seed = int(rng.integers(2 ** 63))
        t._legal = None
        return t

    @classmethod
    def sample_from_information_set(cls, info: RommeInformationSet, rules: RommeRulesSpec,
                                    rng: np.random.Generator) -> "RommeState":
        """A full state consistent with ``info``: the hidden cards dealt uniformly at random
        (each other player keeps the cards known to be theirs; the stock is the public one
        after a flip, else the rest in random order). ``info`` names kinds: each card seen
        is given a physical copy of its kind (which one changes nothing). For determinised
        search; only before the hand is over."""
        if info.phase == Phase.OVER:
            raise ValueError("cannot sample a world for a hand that is over")
        rules = load_romme_rules(rules)
        n, p, mover = info.num_players, info.player, info.current_player
        size = num_physical(rules)
        free = {k: [k + d * NUM_CARDS for d in range(NUM_DECKS)] for k in range(NUM_CARDS)}
        free[JOKER] = list(range(FIRST_JOKER, size))

        def copies(kinds: Sequence[int]) -> list[int]:
            """A physical card of each kind, not given yet (which copy is of no matter)."""
            out = []
            for k in kinds:
                if not free[k]:
                    raise ValueError(f"information set is inconsistent: more {kind_str(k)} seen than the pack holds")
                out.append(free[k].pop(0))
            return out

        own = copies(info.hand)
        pending = [(c, k) for c, (_, k) in zip(copies([c for c, _ in info.pending]), info.pending)]
        table = [TableMeld(m.owner, tuple(sorted(copies(m.cards))), m.meld) for m in info.table]
        pile = copies(info.discard_pile)
        public_stock = copies(info.public_stock)
        known = [[] if q == p else copies(info.known[q]) for q in range(n)]
        mine = list(own)
        for k in info.known[p]:  # own known cards: copies of those kinds in the hand
            card = next((c for c in mine if kind_of(c) == k), None)
            if card is None:
                raise ValueError(f"information set is inconsistent: {kind_str(k)} is known in the hand but not held")
            mine.remove(card)
            known[p].append(card)
        taken = swapped = None
        if info.taken_card is not None:  # the card taken: known in the mover's hand, else melded
            places = known[mover] if info.taken_held else [c for c, _ in pending] + [c for m in table for c in m.cards]
            taken = next((c for c in places if kind_of(c) == info.taken_card), None)
            if taken is None and not (info.taken_card == JOKER and info.joker_debt):  # (else the joker owed, below)
                raise ValueError("information set is inconsistent: the card taken from the pile is nowhere")
        if info.joker_debt:
            jokers = [c for c in known[mover] if c >= FIRST_JOKER]
            swapped = next((c for c in jokers if c != taken), jokers[0] if jokers else None)
            if swapped is None:
                raise ValueError("information set is inconsistent: a joker taken by a swap is not known in the hand")
            if taken is None and info.taken_card is not None:  # laid off, then brought back by the swap
                taken = swapped
        unseen = [c for k in range(NUM_KINDS) for c in free[k]]
        rng.shuffle(unseen)
        hands = []
        for q in range(n):
            if q == p:
                hands.append(sorted(own))
                continue
            need = info.hand_sizes[q] - len(known[q])
            if need < 0 or need > len(unseen):
                raise ValueError("information set is inconsistent: unseen cards do not fill the other hands")
            hands.append(sorted(known[q] + unseen[:need]))
            unseen = unseen[need:]
        if info.public_stock:
            stock, rest = list(reversed(public_stock)), unseen
        else:
            stock, rest = unseen, []
        if rest or len(stock) != info.stock_size:
            raise ValueError("information set is inconsistent: the unseen cards do not fill the stock")
        return cls(
            rules=rules, num_players=n, hands=hands, stock=stock, discard_pile=pile,
            dealer=info.dealer, current_player=mover, phase=info.phase, deck=None,
            seed=int(rng.integers(2 ** 63)), turn=info.turn, turnovers=info.turnovers,
            stock_public=bool(info.public_stock), table=table, came_out=list(info.came_out),
            pending=pending, turn_points=info.turn_points, turn_melds=info.turn_melds,
            turn_run=info.turn_run, out_at_turn_start=info.out_at_turn_start, taken_card=taken,
            must_meld_taken=info.must_meld_taken, swapped_joker=swapped,
            known=known, history=list(info.public_history),
        )

    # ----------------------------------------------------------------- text

    def render(self, perspective: Optional[int] = None) -> str:
        """Readable text (``rummy play``, the env's ``ansi``); with ``perspective`` only what
        that seat may see. A hand shown is grouped by suit, jokers last, with what it would
        pay as it is and after its best melds (``hand_note``)."""
        lines = self._seat_lines(
            perspective, lambda seat: f"{self.hand_text(seat, by_suit=True)}  ({self.hand_note(seat)})" if self.hands[seat] else "-",
            lambda seat: len(self.hands[seat]), lambda seat: " (out)" if self.came_out[seat] else "")
        for slot, m in enumerate(self.table):
            lines.append(f"  table {slot} (player_{m.owner}): {m.meld}")
        if self.pending:
            lines.append("  pending: " + " ".join(kind_str(k) if c < FIRST_JOKER else f"[{kind_str(k)}]"
                                                  for c, k in self.pending))
        top = kind_str(kind_of(self.discard_pile[-1])) if self.discard_pile else "-"
        lines.append(f"discard pile: {card_count(len(self.discard_pile))}, top {top}; stock: {card_count(len(self.stock))}")
        if self.is_over:
            lines.append(self._hand_over_line())
        else:
            lines.append(f"turn {self.turn}, player_{self.current_player} to {self.phase.name.lower()}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------- the compiled mask


def _legal_disagreement(kernel: Any) -> str:
    """'' when ``kernel.legal_actions`` (``rummy_env.romme.legal_jit``) gives the Python
    mask's actions in every position of a few random hands under rules that change melds
    and the turn, else what differs."""
    rules_sets = (RommeRules(turnover="flip", max_turns=80),
                  RommeRules(go_out_without_discard=True, take_discard_before_out="free", adjacent_jokers=True,
                             aces_around_the_corner=True, max_turns=80),
                  RommeRules(come_out_points=40, come_out_needs_run=True, naturals_per_meld="more_than_jokers",
                             max_turns=80))
    for i, rules in enumerate(rules_sets):
        rng = np.random.default_rng(i)
        state = RommeState.new_hand(2 + 2 * i, rules, seed=rng)
        while not state.is_over:
            want = state._legal_actions(reference=False)
            if kernel.legal_actions(state) != want:
                return "it disagrees with the Python legal mask"
            state._legal = want  # (stepping must not ask for the mask being decided)
            state.step(want[int(rng.integers(len(want)))])
    return ""


# ``rummy_env.romme.legal_jit`` when the solver's kernels are in use and it agrees with the
# Python mask (``_legal_disagreement``); else None, and the Python mask is used. Decided
# once per process, on the first position (``rummy_env.core.compiled``).
LEGAL_KERNEL = Compiled("Rommé's compiled legal mask", "rummy_env.romme.legal_jit", _legal_disagreement,
                        "legal actions are computed in Python", needs=M.KERNELS)


def _legal_kernel() -> Any:
    """``rummy_env.romme.legal_jit`` where the compiled mask is used, else None."""
    kernel = LEGAL_KERNEL.chosen  # read directly: one call per position
    if kernel is UNDECIDED:
        kernel = LEGAL_KERNEL.get()
    if kernel is None or M.KERNELS.chosen is None:  # (tests switch the solver's kernels off alone)
        return None
    return kernel


# ----------------------------------------------------------------------------- helpers

_EMPTY = bytes(NUM_KINDS)
_QUERY_CACHE: dict = {}  # rules -> {query key: whether it holds} (RommeState._evaluate)


_KIND = KINDS.__getitem__  # physical id -> kind, as a function for ``map``
_KIND_BYTES = bytes(KINDS) + bytes(256 - len(KINDS))  # physical id -> kind for ``bytes.translate`` (ids < 256)


def _kinds(cards: Sequence[int]) -> tuple[int, ...]:
    """The kinds of physical ``cards``, increasing: how a player is shown them."""
    return tuple(sorted(map(_KIND, cards))) if cards else ()


def _count_list(cards: Sequence[int]) -> list[int]:
    """The 53 kind counts of physical ``cards``, as a list (``RommeState._counts``)."""
    counts = [0] * NUM_KINDS
    for c in cards:
        counts[KINDS[c]] += 1
    return counts


def _seat_kinds(seats: Sequence[Sequence[int]]) -> tuple[tuple[tuple[int, ...], ...], bytes, tuple[int, ...]]:
    """``_seat_view`` of the kinds of each seat's physical cards, increasing (as an
    information set shows them)."""
    return _seat_view(tuple([tuple(sorted(bytes(cards).translate(_KIND_BYTES))) if cards else () for cards in seats]))


def _with_discard(view: tuple, seat: int, kind: int) -> tuple:
    """``_seat_view`` of each seat's discards once ``seat`` has discarded ``kind``: the
    card put in, not every seat's made again (every turn ends with a discard)."""
    kinds, lens = list(view[0]), list(view[2])
    kinds[seat] += (kind,)
    lens[seat] += 1
    at = sum(lens[:seat + 1]) - 1
    return tuple(kinds), view[1][:at] + bytes((kind,)) + view[1][at:], tuple(lens)


def _seat_view(kinds: tuple[tuple[int, ...], ...]) -> tuple[tuple[tuple[int, ...], ...], bytes, tuple[int, ...]]:
    """Kinds per seat as an information set shows them, then the same kinds one seat after
    the other as bytes, and each seat's count: what ``_info_bytes`` hands the compiled
    observation."""
    return kinds, bytes(chain.from_iterable(kinds)), tuple(map(len, kinds))


# What the compiled observation (``rummy_env.romme.encoding_jit``) reads of an information
# set, made by ``RommeState._information_set`` from the bytes it builds the set from, kept
# for the sets made last (by identity, the set held, as ``_table_arrays`` keeps tables):
# id(info) -> (info, its bytes, then the set's fields they were made from, which
# ``_info_bytes`` checks are still the set's own).
_INFO_BYTES: dict = {}
_INFO_BYTES_KEPT = 64  # the env encodes the set just made; a caller may make a few before encoding them
_PAD = [(0,) * 2 * (MAX_PLAYERS - n) for n in range(MAX_PLAYERS + 1)]  # ``_info_bytes`` lengths: 3 + 2 * 6 ints


def _info_bytes(info: RommeInformationSet) -> tuple[bytes, tuple[int, ...], bytes]:
    """An information set's cards as the compiled observation reads them: (the kinds of
    the hand, the discard pile, the public stock, each seat's known cards and each seat's
    discards, one after the other; their counts, padded with 0 to 3 + 2 * 6; the pending
    meld's (card, kind it stands for) pairs, then each seat's came-out flag, then each
    seat's hand size). Those the state made while building ``info`` (the same kinds) when
    its fields are still the ones they were made from, else made from its fields."""
    got = _INFO_BYTES.get(id(info))
    if (got is not None and got[0] is info and got[2] is info.hand and got[3] is info.discard_pile
            and got[4] is info.public_stock and got[5] is info.known and got[6] is info.discarded
            and got[7] is info.pending and got[8] is info.came_out and got[9] is info.hand_sizes):
        return got[1]
    known, discarded = info.known, info.discarded
    return (bytes(chain(info.hand, info.discard_pile, info.public_stock, *known, *discarded)),
            (len(info.hand), len(info.discard_pile), len(info.public_stock), *map(len, known), *map(len, discarded),
             *_PAD[len(known)]),
            bytes(chain(chain.from_iterable(info.pending), info.came_out, info.hand_sizes)))


def _hand_minus(hand: np.ndarray, kind: int) -> np.ndarray:
    out = hand.copy()
    out[kind] -= 1
    return out


_ACCEPTS: dict = {}


def _accepts(meld: M.Meld, rules: RommeRules) -> tuple:
    """(lay-offs as (kind, new meld) for any hand, the kinds a joker laid off may stand for,
    the natural kinds a swap takes) of a table meld, cached."""
    key = (meld, rules)
    got = _ACCEPTS.get(key)
    if got is None:
        everything = _ALL_KINDS
        lay = M.layoffs(meld, everything, rules)
        joker_kinds = []
        for k, new in lay:
            if k == JOKER:
                joker_kinds.append(_new_joker_kind(meld, new))
        swaps = [k for k, _ in M.joker_swaps(meld, everything, rules)]
        got = _ACCEPTS[key] = (lay, tuple(sorted(set(joker_kinds))), tuple(swaps))
        if len(_ACCEPTS) > 100_000:
            _ACCEPTS.clear()
    return got


_CODES: dict = {}  # id(meld) -> (the meld, its numbers): ``_meld_code`` of the melds met last
_TABLES: dict = {}  # id(table view) -> (the view, its arrays): ``_table_arrays`` of the tables met last


def _meld_code(meld: M.Meld) -> tuple[int, int, int, int, int]:
    """A meld's reading as five numbers, as the compiled kernels take it
    (``melds_jit.table_meld_accepts``): a set (0, rank, suits mask, jokers, 0) or a run
    (1, suit, start, length, joker offsets mask). Kept per meld object (by identity, the
    object held): a meld stays on the table, one object, until a move replaces it."""
    got = _CODES.get(id(meld))
    if got is not None and got[0] is meld:
        return got[1]
    if meld.kind == "set":
        code = (0, meld.rank, sum(1 << x for x in meld.suits), len(meld.joker_suits), 0)
    else:
        code = (1, meld.suit, meld.start, meld.length, sum(1 << t for t in meld.joker_places))
    if len(_CODES) >= 4096:
        _CODES.clear()
    _CODES[id(meld)] = (meld, code)
    return code


def _table_arrays(table: tuple[TableMeld, ...]) -> tuple[np.ndarray, bytes]:
    """What the compiled observation and legal mask read of a table shown as kinds
    (``RommeState._shown_table``): each slot's ``_meld_code`` as a row of a (slots, 5)
    int64 array, then as bytes each meld's size, each meld's owner and every meld's kinds
    one after the other. Kept for the tables met last, by identity: a state shows one tuple
    of its table until a move changes it."""
    got = _TABLES.get(id(table))
    if got is not None and got[0] is table:
        return got[1]
    codes = np.array([_meld_code(m.meld) for m in table], dtype=np.int64).reshape(len(table), 5)
    arrays = (codes, bytes([len(m.cards) for m in table]) + bytes([m.owner for m in table])
              + bytes([k for m in table for k in m.cards]))
    if len(_TABLES) >= 256:
        _TABLES.clear()
    _TABLES[id(table)] = (table, arrays)  # (holding the view: its id stays its own while the entry lives)
    return arrays


_COMMITS: dict = {}  # id(rules) -> (rules, {(natural kinds, joker kinds): ``_committed``})


def _swapped_meld(meld: M.Meld, kind: int) -> M.Meld:
    """``meld`` once the natural ``kind`` has taken the place of its joker standing for it
    (``melds.joker_swaps``' meld for ``kind``; the swap is legal). Made directly: listing
    every swap, each meld checked, costs twenty times as much."""
    if meld.kind == "set":  # that suit, one joker fewer (standing for the lowest suits missing)
        return M.Meld.make_set(meld.rank, meld.suits + (kind // NUM_RANKS,), meld.num_jokers - 1)
    place = (kind % NUM_RANKS - meld.start) % NUM_RANKS  # the joker's place holds the natural card
    return M.Meld.make_run(meld.suit, meld.start, meld.length, [t for t in meld.joker_places if t != place])


def _new_joker_kind(old: M.Meld, new: M.Meld) -> int:
    """The kind the joker laid off on ``old`` (making ``new``) stands for."""
    if new.kind == "set":
        return next(k for k in new.stands_for if k not in old.stands_for)
    if new.start != old.start or new.length == old.length:
        return new.represented[0]
    return new.represented[-1]


def _layoff_meld(meld: M.Meld, kind: int, stands_for: Optional[int], rules: RommeRules) -> M.Meld:
    """``meld`` once ``kind`` (``JOKER``: a joker standing for ``stands_for``) is laid off
    on it: the first of ``melds.layoffs`` that lays that card (the lay-off is legal). Made
    directly, as ``_swapped_meld``: on a set another suit or another joker (standing for
    the lowest suit missing); on a run the place before its first if it is that card and
    the run it makes is legal, else the place after its last."""
    joker = kind == JOKER
    if meld.kind == "set":
        if joker:
            return M.Meld.make_set(meld.rank, meld.suits, meld.num_jokers + 1)
        return M.Meld.make_set(meld.rank, meld.suits + (kind // NUM_RANKS,), meld.num_jokers)
    card = stands_for if joker else kind
    if meld.start > 0 or rules.aces_around_the_corner:
        front = (meld.start - 1) % NUM_RANKS
        if meld.suit * NUM_RANKS + front == card:
            new = M.Meld.make_run(meld.suit, front, meld.length + 1,
                                  tuple(t + 1 for t in meld.joker_places) + ((0,) if joker else ()))
            if new.is_legal(rules):
                return new
    return M.Meld.make_run(meld.suit, meld.start, meld.length + 1,
                           meld.joker_places + ((meld.length,) if joker else ()))


def _committed(nat: tuple[int, ...], jok: tuple[int, ...], rules: RommeRules) -> tuple[int, bool, M.Meld]:
    """(worth, whether a run, the meld) of the pending meld's most valuable reading, the
    first of its equals (``RommeState._commit``): ``nat`` its natural kinds, ``jok`` the
    kinds its jokers stand for, both increasing. Kept per rules (by identity: no hashing
    of the rules), as the same melds come back hand after hand."""
    got = _COMMITS.get(id(rules))
    if got is None or got[0] is not rules:
        if len(_COMMITS) >= 8:  # many rule sets in one process (tests): start afresh
            _COMMITS.clear()
        got = _COMMITS[id(rules)] = (rules, {})
    elif len(got[1]) > 100_000:
        got[1].clear()
    kept = got[1]
    key = (nat, jok)
    meld = kept.get(key)
    if meld is None:
        best = max(M._completions(nat, jok, _EMPTY, rules), key=lambda c: c.value)
        meld = kept[key] = (best.value, best.run, best.meld())
    return meld


__all__ = [
    "COMMIT", "DISCARD", "DRAW_STOCK", "JOKER_AS", "LAYOFF", "LAYOFF_JOKER", "MAX_TABLE_MELDS", "NUM_ACTIONS", "OUTCOMES",
    "PICK", "Phase", "RommeHandResult", "RommeInformationSet", "RommeState", "SWAP", "TAKE_DISCARD", "TableMeld",
    "action_name",
]
