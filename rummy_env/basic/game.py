"""The pure Basic Rummy hand for 2 to 4 players: state, legal actions, step, scoring.

One source of truth for the Basic Rummy rules (docs/games/basic/rules.md); the env
(``basic_rummy_v0``), the agents and the tournament call it; ``rummy_env.basic.match`` adds
hands up into a match. Cards are ids 0..51 and hands
52-bit ints (``rummy_env.core.cards``); options come from ``rummy_env.basic.rules``.

Action layout (fixed; ``NUM_ACTIONS`` = 1267, the same for 2, 3 and 4 players):

| id                   | action                                                       | phase |
|----------------------|--------------------------------------------------------------|-------|
| 0                    | draw the top card of the stock                               | draw  |
| 1                    | take the top card of the discard pile                        | draw  |
| 2 + c                | discard card c face up: ends the turn (going out if it was   | play  |
|                      | the last card)                                               |       |
| 54 + m               | meld ``meld_table(aces_high).masks[m]`` from hand (m < 329)  | play  |
| 383 + 52 * s + c     | lay off card c onto the table meld in slot s (s < 17)        | play  |

The meld table (``rummy_env.core.meld_table``, built by code at import and checked by
tests) holds all 65 sets then all 264 runs: id ``5 * rank + s`` is the three-card set of
``rank`` without suit s, ``5 * rank + 4`` the four-card set; id ``65 + 66 * suit + k`` is
the k-th run of ``suit`` in the order (start position 0..10, then length 3..13 -
start), positions being ranks in run order (A = 0 with aces low, 2 = 0 and A = 12 with
aces high). Table slots are numbered in the order the melds were laid down (17 melds of
three cards use 51 cards, so 17 slots always suffice). Ending the turn *is* the
discard; a turn ends without one only when the player goes out by melding or laying off
their last card.

Choices made where the common rules are silent (the rules page says them too):
- Deal from an explicit deck order: the first ``k`` cards to the player left of the
  dealer (seat ``dealer + 1``), the next ``k`` to the next seat, ..., the dealer last;
  then the upcard; then the stock from top to bottom. The player left of the dealer
  plays first; in a match the deal passes to the left (seat + 1) every hand.
- The card taken from the discard pile may be melded or laid off that turn, only not
  discarded. A meld or lay-off that would leave that card as the only card in hand is
  illegal unless the card can then be laid off (so the player goes out); otherwise
  the player would be left with no legal move.
- "A meld of your own on the table": once the player has laid down a meld this hand
  (earlier or this turn) they may lay off onto any meld, theirs or another player's.
  A set takes a fourth card; a run takes one card at either end per lay-off (repeat
  to extend further).
- "Rummy": the player goes out in a turn that began with nothing of theirs on the
  table (no earlier meld, hence no earlier lay-off). Lay-offs after their first meld
  in that same turn still count as rummy. Going out with or without a final discard
  both score the double.
- Scoring: every card left in a losing hand counts at its deadwood value (ace 1, 2-9
  face value, T J Q K 10), whether or not those cards would form melds. Hand rewards
  are zero-sum: the winner +points, each other player minus the value of their own
  cards (times the rummy multiplier), so the losers together pay what the winner gets.
- The stock running out is checked when a turn ends with a discard: if the stock is
  empty the discard pile except its top card is turned over, without shuffling (the
  first card discarded becomes the top of the new stock); everybody saw those cards,
  so the new stock's order is public and a card drawn from it is known to all. The
  next time the stock is empty at the end of a turn, the hand is a stalemate (no
  points, hands not shown). ``max_turns`` (default 300 turns) also ends a hand as a
  stalemate: cards can circulate through the discard pile forever.
- A match: hands are played until a player's total reaches ``target_score``; that
  player wins (only one player scores per hand, so there is never a tie). No bonuses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar, Optional, Sequence

import numpy as np

from rummy_env.basic.rules import BasicRummyRules, RummyRulesSpec, check_num_players, load_rummy_rules
from rummy_env.core.game import IllegalActionError  # noqa: F401  (raised by step; imported from here too)
from rummy_env.core.cards import FULL_DECK, NUM_CARDS, card_count, card_value, distinct_cards_mask, format_cards, format_hand, mask_to_cards
from rummy_env.core.state import CardGameState, HandResultBase, checked_deck
from rummy_env.core.meld_table import NUM_MELDS, extension, meld_table, melds_in_hand

DRAW_STOCK = 0
TAKE_DISCARD = 1
DISCARD = 2  # + card
MELD = 54  # + meld id
LAYOFF = MELD + NUM_MELDS  # 383, + 52 * slot + card
MAX_TABLE_MELDS = 17
NUM_ACTIONS = LAYOFF + NUM_CARDS * MAX_TABLE_MELDS  # 1267

# (start, length) of the k-th run of a suit, in run-order positions
_VALUES = tuple(card_value(c) for c in range(NUM_CARDS))


class Phase(IntEnum):
    DRAW = 0  # draw from the stock or take the top discard
    PLAY = 1  # meld, lay off, then discard (or go out)
    OVER = 2  # the hand has ended




def hand_value(hand: int) -> int:
    """Sum of the deadwood values of the cards in ``hand`` (every card counts)."""
    total = 0
    while hand:
        low = hand & -hand
        total += _VALUES[low.bit_length() - 1]
        hand ^= low
    return total


def action_name(action: int, aces_high: bool = False) -> str:
    """Readable name of an action id, e.g. ``'discard 7D'`` or ``'lay off 4H on slot 2'``."""
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}")
    if action == DRAW_STOCK:
        return "draw stock"
    if action == TAKE_DISCARD:
        return "take discard"
    if action < MELD:
        return f"discard {format_cards([action - DISCARD])}"
    if action < LAYOFF:
        return f"meld {format_hand(meld_table(aces_high).masks[action - MELD])}"
    slot, card = divmod(action - LAYOFF, NUM_CARDS)
    return f"lay off {format_cards([card])} on slot {slot}"


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class RummyHandResult(HandResultBase):
    """How a hand ended. ``winner`` went out and scores ``points``; ``penalties[i]`` is
    what seat i pays (0 for the winner); ``rewards`` are zero-sum per seat.

    ``outcome``: 'out' (went out), 'rummy' (went out in one turn with nothing melded
    before: points doubled) or 'stalemate' (``reason`` 'stock': the stock ran out once
    more than it may be turned over; 'max_turns'). After going out every hand is shown
    (``hands_left``); after a stalemate nothing is shown.
    """

    outcome: str
    winner: Optional[int]
    points: int
    penalties: tuple[int, ...]
    hands_left: tuple[int, ...]
    with_discard: bool = False
    reason: str = ""

    @property
    def rewards(self) -> tuple[int, ...]:
        return tuple(self.points if seat == self.winner else -pen for seat, pen in enumerate(self.penalties))

    @property
    def finishing_order(self) -> list[list[int]]:
        """Seats from best to worst: the winner, then by points paid (ties share a place)."""
        groups: dict[int, list[int]] = {}
        for seat, pen in enumerate(self.penalties):
            groups.setdefault(-1 if seat == self.winner else pen, []).append(seat)
        return [groups[k] for k in sorted(groups)]

    def details(self) -> dict:
        return {
            "penalties": list(self.penalties),
            "hands_left": [format_hand(h) for h in self.hands_left],
            "with_discard": self.with_discard,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table: who laid it down, its cards now (lay-offs included), set or run."""

    owner: int
    cards: int
    is_run: bool


def table_cards(table: Sequence[TableMeld]) -> int:
    """The mask of every card on the table (a state's and an information set's ``table_mask``)."""
    out = 0
    for m in table:
        out |= m.cards
    return out


@dataclass(slots=True)
class RummyInformationSet:
    """What one player knows: the only input agents and observations are built from.

    Masks are 52-bit ints; tuples indexed by seat. Public facts: the table, the discard
    pile in order, every action (``public_history``: (seat, action) pairs; a stock draw
    does not show the card), hand sizes, and the cards known to be in each hand (taken
    from the discard pile, or drawn from a turned-over stock, and not played since).
    After a player goes out all hands are shown.
    """

    player: int
    num_players: int
    hand: int
    discard_pile: tuple[int, ...]  # bottom to top
    discard_mask: int
    stock_size: int
    public_stock: tuple[int, ...]  # the stock top first when its order is public (after a turnover), else ()
    phase: Phase
    current_player: int
    dealer: int
    turn: int
    turnovers: int
    taken_card: Optional[int]
    rummy_possible: bool  # the player to move had nothing on the table when the turn began
    table: tuple[TableMeld, ...]
    layoff_targets: int  # cards that could be laid off onto the table now (any hand)
    has_melded: tuple[bool, ...]
    played: tuple[int, ...]  # cards each seat put on the table (melds and lay-offs)
    known: tuple[int, ...]  # cards known to be in each seat's hand
    hand_sizes: tuple[int, ...]
    discarded: tuple[int, ...]
    public_history: tuple[tuple[int, int], ...]
    result: Optional[RummyHandResult]

    @property
    def table_mask(self) -> int:
        return table_cards(self.table)

    @property
    def unseen(self) -> int:
        """Cards this player cannot place: in the stock or in other players' hands, unknown."""
        seen = self.hand | self.discard_mask | self.table_mask
        for seat, k in enumerate(self.known):
            if seat != self.player:
                seen |= k
        return FULL_DECK & ~(seen | distinct_cards_mask(self.public_stock))


# ----------------------------------------------------------------------------- the hand


@dataclass
class BasicRummyState(CardGameState):
    """One hand of Basic Rummy. Build with ``new_hand``, ``from_deck`` or ``from_hands``."""

    num_actions: ClassVar[int] = NUM_ACTIONS
    over_phase = Phase.OVER
    list_fields = ("hands", "stock", "discard_pile", "table", "table_ext", "has_melded", "played", "known",
                   "discarded", "history")

    rules: BasicRummyRules
    num_players: int
    hands: list[int]
    stock: list[int]  # top is the last element
    discard_pile: list[int]  # top is the last element
    dealer: int
    current_player: int
    phase: Phase = Phase.DRAW
    deck: Optional[tuple[int, ...]] = None
    turn: int = 0
    turnovers: int = 0
    stock_public: bool = False
    taken_card: Optional[int] = None
    rummy_possible: bool = True
    table: list[TableMeld] = field(default_factory=list)
    table_ext: list[int] = field(default_factory=list)  # per slot: cards that can be laid off onto it
    has_melded: list[bool] = field(default_factory=list)
    played: list[int] = field(default_factory=list)
    known: list[int] = field(default_factory=list)
    discarded: list[int] = field(default_factory=list)
    history: list[tuple[int, int]] = field(default_factory=list)  # (seat, action): every action is public
    result: Optional[RummyHandResult] = None
    pile_mask: int = -1  # the discard pile's cards as a mask, kept with the pile (-1: compute from it)

    def __post_init__(self) -> None:
        n = self.num_players
        if self.pile_mask < 0:
            self.pile_mask = distinct_cards_mask(self.discard_pile)
        for name in ("has_melded", "played", "known", "discarded"):
            if not getattr(self, name):
                setattr(self, name, [False] * n if name == "has_melded" else [0] * n)
        self._table = meld_table(self.rules.aces_high)

    # ----------------------------------------------------------------- construction

    @classmethod
    def new_hand(
        cls, num_players: int = 2, rules: RummyRulesSpec = None, seed=None, dealer: Optional[int] = None
    ) -> "BasicRummyState":
        """A hand dealt from a shuffled deck (``seed``: int, numpy Generator or None)."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return cls.from_deck(rng.permutation(NUM_CARDS).tolist(), num_players, rules, dealer)

    @classmethod
    def from_deck(
        cls, deck: Sequence[int], num_players: int = 2, rules: RummyRulesSpec = None, dealer: Optional[int] = None
    ) -> "BasicRummyState":
        """A hand dealt from an explicit deck order (see the module docstring).

        ``dealer`` defaults to the last seat, so seat 0 plays first.
        """
        n = check_num_players(num_players)
        deck = checked_deck(deck, NUM_CARDS)
        dealer = n - 1 if dealer is None else dealer
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        dealer = int(dealer)
        rules = load_rummy_rules(rules)
        k = rules.cards_per_hand(n)
        hands = [0] * n
        for i in range(n):
            seat = (dealer + 1 + i) % n
            for c in deck[i * k : (i + 1) * k]:
                hands[seat] |= 1 << c
        return cls(
            rules=rules,
            num_players=n,
            hands=hands,
            stock=list(reversed(deck[n * k + 1 :])),
            discard_pile=[deck[n * k]],
            dealer=dealer,
            current_player=(dealer + 1) % n,
            deck=deck,
        )

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[str | Sequence[int]],
        upcard: str | int,
        stock: str | Sequence[int] = (),
        rules: RummyRulesSpec = None,
        dealer: Optional[int] = None,
    ) -> "BasicRummyState":
        """A hand from explicit cards per seat (text like ``'AC 2C 3C'`` or ids), for tests.

        ``stock`` is listed top first; cards not named go to the bottom of the stock in
        id order. ``dealer`` defaults to the last seat (seat 0 plays first).
        """
        from rummy_env.core.cards import parse_card, parse_cards

        def cards(x) -> list[int]:
            return parse_cards(x) if isinstance(x, str) else [int(c) for c in x]

        n = check_num_players(len(hands))
        rules = load_rummy_rules(rules)
        k = rules.cards_per_hand(n)
        per_seat = [cards(h) for h in hands]
        if any(len(h) != k for h in per_seat):
            raise ValueError(f"each of {n} hands must have {k} cards, got {[len(h) for h in per_seat]}")
        dealer = n - 1 if dealer is None else dealer
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer!r}")
        order = [c for i in range(n) for c in per_seat[(dealer + 1 + i) % n]]
        up = parse_card(upcard) if isinstance(upcard, str) else int(upcard)
        named = order + [up] + cards(stock)
        if len(set(named)) != len(named):
            raise ValueError("a card is named twice across the hands, upcard and stock")
        rest = [c for c in range(NUM_CARDS) if c not in set(named)]
        return cls.from_deck(named + rest, n, rules, dealer)

    # ----------------------------------------------------------------- queries

    @property
    def actions(self) -> list[int]:
        """Every action played this hand, in order (with ``deck`` and ``dealer`` it replays)."""
        return [a for _, a in self.history]

    def card_places(self) -> dict[str, list[int]]:
        """Where every card is: each hand, the stock, the discard pile and the table. The
        places always partition the 52 cards."""
        places = {f"hand {seat}": mask_to_cards(h) for seat, h in enumerate(self.hands)}
        places.update(stock=list(self.stock), discard_pile=list(self.discard_pile), table=mask_to_cards(self.table_mask))
        return places

    @property
    def table_mask(self) -> int:
        return table_cards(self.table)

    def _compute_legal(self) -> list[int]:
        if self.phase == Phase.DRAW:
            return ([DRAW_STOCK] if self.stock else []) + ([TAKE_DISCARD] if self.discard_pile else [])
        if self.phase == Phase.OVER:
            return []
        hand, taken = self.hands[self.current_player], self.taken_card
        out = [DISCARD + c for c in mask_to_cards(hand) if c != taken]
        masks = self._table.masks
        # a play leaving cards other than just the taken card always leaves a move (a
        # discard): only the other cases need _leaves_a_move
        taken_bit = 0 if taken is None else 1 << taken
        for m in melds_in_hand(hand, self.rules.aces_high):
            after = hand & ~masks[m]
            if (after and after != taken_bit) or self._leaves_a_move(after, m, None):
                out.append(MELD + m)
        if self.has_melded[self.current_player] or not self.rules.layoff_needs_own_meld:
            for slot, ext in enumerate(self.table_ext):
                fits = ext & hand
                while fits:
                    low = fits & -fits
                    fits ^= low
                    after = hand & ~low
                    if (after and after != taken_bit) or self._leaves_a_move(after, None, slot):
                        out.append(LAYOFF + NUM_CARDS * slot + low.bit_length() - 1)
        return out

    def _leaves_a_move(self, after: int, meld: Optional[int], slot: Optional[int]) -> bool:
        """Whether a meld (``meld``) or lay-off (onto ``slot``) leaving ``after`` in hand
        leaves the player a way to finish the turn (see the module docstring)."""
        if after == 0:
            return self.rules.go_out_without_discard
        taken = self.taken_card
        if taken is None or after != 1 << taken:
            return True
        if not self.rules.go_out_without_discard:
            return False
        aces_high = self.rules.aces_high
        exts = list(self.table_ext)
        if meld is not None:
            exts.append(extension(self._table.masks[meld], self._table.is_run(meld), aces_high))
        else:
            assert slot is not None
            m = self.table[slot]
            exts[slot] = extension(m.cards | (self.hands[self.current_player] & ~after), m.is_run, aces_high)
        return any(e & after for e in exts)

    # ----------------------------------------------------------------- stepping

    def step(self, action: int) -> None:
        """Apply an action of the player to move; raises ``IllegalActionError`` if not legal."""
        action = self._check(action)
        p = self.current_player
        self.history.append((p, action))
        self._moved()
        if action == DRAW_STOCK:
            card = self.stock.pop()
            self.hands[p] |= 1 << card
            if self.stock_public:
                self.known[p] |= 1 << card
            self.taken_card = None
            self.phase = Phase.PLAY
        elif action == TAKE_DISCARD:
            card = self.discard_pile.pop()
            self.pile_mask &= ~(1 << card)
            self.hands[p] |= 1 << card
            self.known[p] |= 1 << card
            self.taken_card = card
            self.phase = Phase.PLAY
        elif action < MELD:
            self._discard(p, action - DISCARD)
        elif action < LAYOFF:
            m = action - MELD
            cards = self._table.masks[m]
            self.table.append(TableMeld(p, cards, self._table.is_run(m)))
            self.table_ext.append(extension(cards, self._table.is_run(m), self.rules.aces_high))
            self.has_melded[p] = True
            self._play_cards(p, cards)
        else:
            slot, card = divmod(action - LAYOFF, NUM_CARDS)
            old = self.table[slot]
            new = TableMeld(old.owner, old.cards | 1 << card, old.is_run)
            self.table[slot] = new
            self.table_ext[slot] = extension(new.cards, new.is_run, self.rules.aces_high)
            self._play_cards(p, 1 << card)

    def _play_cards(self, p: int, cards: int) -> None:
        self.hands[p] &= ~cards
        self.known[p] &= ~cards
        self.played[p] |= cards
        if self.hands[p] == 0:
            self._go_out(p, with_discard=False)

    def _discard(self, p: int, card: int) -> None:
        self.hands[p] &= ~(1 << card)
        self.known[p] &= ~(1 << card)
        self.discarded[p] |= 1 << card
        self.discard_pile.append(card)
        self.pile_mask |= 1 << card
        self.taken_card = None
        self.turn += 1
        if self.hands[p] == 0:
            self._go_out(p, with_discard=True)
            return
        if not self.stock:
            if self.turnovers >= self.rules.stock_turnovers:
                self._stalemate("stock")
                return
            self.stock = self.discard_pile[-2::-1]  # turned over: the bottom card becomes the top
            self.discard_pile = self.discard_pile[-1:]
            self.pile_mask = 1 << card
            self.turnovers += 1
            self.stock_public = True
        if self.turn >= self.rules.max_turns:
            self._stalemate("max_turns")
            return
        self.current_player = (p + 1) % self.num_players
        self.rummy_possible = self.played[self.current_player] == 0
        self.phase = Phase.DRAW

    def _go_out(self, p: int, with_discard: bool) -> None:
        multiplier = self.rules.rummy_multiplier if self.rummy_possible else 1
        penalties = tuple(0 if seat == p else hand_value(h) * multiplier for seat, h in enumerate(self.hands))
        self.result = RummyHandResult(
            outcome="rummy" if self.rummy_possible else "out",
            winner=p,
            points=sum(penalties),
            penalties=penalties,
            hands_left=tuple(self.hands),
            with_discard=with_discard,
        )
        self.phase = Phase.OVER

    def _stalemate(self, reason: str) -> None:
        n = self.num_players
        self.result = RummyHandResult("stalemate", None, 0, (0,) * n, (0,) * n, reason=reason)
        self.phase = Phase.OVER

    # ----------------------------------------------------------------- information sets

    def action_name(self, action: int) -> str:
        return action_name(action, self.rules.aces_high)

    def _information_set(self, player: int) -> RummyInformationSet:
        shown = self.result is not None and self.result.winner is not None
        targets = 0
        for e in self.table_ext:
            targets |= e
        # Positional, in the order of RummyInformationSet's fields: built at every step of
        # the env, and a keyword call of 23 fields costs twice as much.
        return RummyInformationSet(
            player, self.num_players, self.hands[player],
            tuple(self.discard_pile), self.pile_mask, len(self.stock),  # discard_pile, discard_mask, stock_size
            tuple(reversed(self.stock)) if self.stock_public else (),  # public_stock
            self.phase, self.current_player, self.dealer, self.turn, self.turnovers, self.taken_card,
            self.rummy_possible, tuple(self.table), targets, tuple(self.has_melded), tuple(self.played),
            tuple(self.hands) if shown else tuple(self.known),  # known
            tuple(map(int.bit_count, self.hands)),  # hand_sizes
            tuple(self.discarded), tuple(self.history), self.result,  # discarded, public_history, result
        )

    def redeal_hidden(self, player: int, rng: np.random.Generator) -> "BasicRummyState":
        """A copy with the cards ``player`` cannot know shuffled among their places: the
        other players' cards not known to be theirs, and the stock while its order is
        hidden (before a turnover). What ``player`` sees must not change (no-leak tests)."""
        t = self.clone()
        shown = self.result is not None and self.result.winner is not None
        others = [q for q in range(self.num_players) if q != player]
        hidden = {q: [] if shown else mask_to_cards(self.hands[q] & ~self.known[q]) for q in others}
        stock = [] if self.stock_public else list(self.stock)
        pool = [c for q in others for c in hidden[q]] + stock
        rng.shuffle(pool)
        for q in others:
            k = len(hidden[q])
            t.hands[q] = (self.hands[q] & ~sum(1 << c for c in hidden[q])) | sum(1 << c for c in pool[:k])
            pool = pool[k:]
        if not self.stock_public:
            t.stock = pool
        t._legal = None
        return t

    @classmethod
    def sample_from_information_set(
        cls, info: RummyInformationSet, rules: RummyRulesSpec, rng: np.random.Generator
    ) -> "BasicRummyState":
        """A full state consistent with ``info``: hidden cards dealt uniformly at random.

        Every other player keeps the cards known to be in their hand and gets the rest
        of their hand from the cards ``info.player`` cannot place; the stock is the public
        one after a turnover, else the remaining unseen cards in random order. For
        determinised search. Only meaningful before the hand is over.
        """
        if info.phase == Phase.OVER:
            raise ValueError("cannot sample a world for a hand that is over")
        rules = load_rummy_rules(rules)
        unseen = mask_to_cards(info.unseen)
        rng.shuffle(unseen)
        n, p = info.num_players, info.player
        hands = list(info.known)
        hands[p] = info.hand
        for q in range(n):
            if q != p:
                need = info.hand_sizes[q] - info.known[q].bit_count()
                if need < 0 or need > len(unseen):
                    raise ValueError("information set is inconsistent: unseen cards do not fill the other hands")
                hands[q] |= sum(1 << c for c in unseen[:need])
                unseen = unseen[need:]
        stock = list(reversed(info.public_stock)) if info.turnovers else unseen
        if len(stock) != info.stock_size or (info.turnovers and unseen):
            raise ValueError("information set is inconsistent: the unseen cards do not fill the stock")
        aces_high = rules.aces_high
        return cls(
            rules=rules,
            num_players=n,
            hands=hands,
            stock=stock,
            discard_pile=list(info.discard_pile),
            dealer=info.dealer,
            current_player=info.current_player,
            phase=info.phase,
            deck=None,
            turn=info.turn,
            turnovers=info.turnovers,
            stock_public=info.turnovers > 0,
            taken_card=info.taken_card,
            rummy_possible=info.rummy_possible,
            table=list(info.table),
            table_ext=[extension(m.cards, m.is_run, aces_high) for m in info.table],
            has_melded=list(info.has_melded),
            played=list(info.played),
            known=list(info.known),
            discarded=list(info.discarded),
            history=list(info.public_history),
        )

    # ----------------------------------------------------------------- text

    def render(self, perspective: Optional[int] = None) -> str:
        """Readable text; with ``perspective`` only what that seat may see."""
        lines = self._seat_lines(perspective, lambda seat: format_hand(self.hands[seat], symbols=True) or "-",
                                 lambda seat: self.hands[seat].bit_count())
        for slot, m in enumerate(self.table):
            lines.append(f"  table {slot} (player_{m.owner}): {format_hand(m.cards, symbols=True)}")
        top = format_cards(self.discard_pile[-1:], symbols=True) or "-"
        lines.append(f"discard pile: {card_count(len(self.discard_pile))}, top {top}; stock: {card_count(len(self.stock))}"
                     f"{' (turned over)' if self.turnovers else ''}")
        if self.is_over:
            lines.append(self._hand_over_line())
        elif perspective is None or perspective == self.current_player:
            legal = self.legal_actions()
            names = ", ".join(action_name(a, self.rules.aces_high) for a in legal[:6])
            lines.append(f"turn {self.turn}, player_{self.current_player} to {self.phase.name.lower()}: "
                         f"{names}{' ...' if len(legal) > 6 else ''}")
        else:
            lines.append(f"turn {self.turn}, player_{self.current_player} to {self.phase.name.lower()}")
        return "\n".join(lines)
