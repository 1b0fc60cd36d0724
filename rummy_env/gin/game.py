"""The pure two-player Gin Rummy hand: state, legal actions, step, showdown, scoring.

One source of truth for the rules (docs/games/gin/rules.md); every other layer (env, vector
engine, agents) calls it. The points of a showdown come from ``rummy_env.gin.scoring``,
which the vector engine and the heuristic's knock estimate share. A ``GinRummyState``
is one hand; ``rummy_env.gin.match`` adds up hands into a match. Cards are ids 0..51 and
hands 52-bit ints (``rummy_env.core.cards``).

Action layout (fixed; ``NUM_ACTIONS`` = 108):

| id      | action                                                         | phase   |
|---------|----------------------------------------------------------------|---------|
| 0       | draw the top card of the stock                                 | draw    |
| 1       | take the top card of the discard pile (or the offered upcard)  | offer, draw |
| 2       | pass on the upcard (the first-turn offer, or at the wall)      | offer, draw |
| 3 + c   | discard card c face up                                         | discard |
| 55 + c  | knock, putting card c face down (Gin when 0 deadwood remains)  | discard |
| 107     | declare Big Gin (all 11 cards melded, no discard)              | discard |

Choices made where the common rules leave them open (the rules page says them too):
- Explicit deck order: the first 10 cards go to the non-dealer, the next 10 to the
  dealer, then the upcard, then the stock from top to bottom.
- The card taken from the discard pile this turn may not be discarded *nor* put face
  down to knock (knocking is discarding face down); with ``discard_taken_card`` it may,
  and a hand is drawn ('repeated') when a player throws back the card they took and
  the next player then does the same (checked before the wall).
- The wall: a face-up discard that leaves 2 cards (or fewer) in the stock draws the hand
  ('wall'). With ``wall_knock`` the next player is then in the draw phase with the stock
  at 2: PASS draws the hand ('wall'), and TAKE_DISCARD is legal only where some knock
  (or Gin, or Big Gin) would be legal after it; in that discard phase (stock 2 and a
  card taken) only knocks and Big Gin are legal.
- ``max_upcard_draws`` N > 0: the Nth TAKE_DISCARD of the draw phase (the upcard offer
  and the wall do not count) draws the hand ('upcard_draws') and takes nothing. The
  throw-back flag and the count are state (``repeated``, ``upcard_draws``), read from the
  public history when a state is rebuilt from an information set.
- Oklahoma: the knock limit of a hand is the upcard's deadwood value under the hand's
  rules (so 5 for A-9 with ``five_under_ten``), and an ace upcard means Gin only.
- ``first_upcard_pass=False``: no offer; the non-dealer starts with a normal turn and
  may take the upcard or draw from the stock.
- A "turn" for ``max_turns`` is one completed draw and face-up discard (a pass on the
  upcard offer is not a turn). The wall is checked first.
- The showdown is automatic (it has no decisions under the rules): the knocker lays out
  a least-deadwood arrangement, the one that leaves the defender the most deadwood after
  the defender's best lay-offs; the defender lays off and arranges optimally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar, Optional, Sequence

import numpy as np

from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, card_count, card_value, distinct_cards_mask, format_cards, format_hand, mask_to_cards
from rummy_env.core.game import IllegalActionError  # noqa: F401  (raised by step; imported from here too)
from rummy_env.core.state import CardGameState, HandResultBase, checked_deck
from rummy_env.gin.rules import Rules, RulesSpec, load_rules
from rummy_env.gin.scoring import OUTCOMES, Outcome, score_one

DRAW_STOCK = 0
TAKE_DISCARD = 1
PASS = 2
DISCARD = 3  # + card
KNOCK = 55  # + card
BIG_GIN = 107
NUM_ACTIONS = 108
HAND_SIZE = 10


class Phase(IntEnum):
    OFFER = 0  # first-turn upcard offer: take it or pass
    DRAW = 1  # draw from the stock or take the top discard
    DISCARD = 2  # holding 11 cards: discard, knock or declare Big Gin
    OVER = 3  # the hand has ended


# Public events (what both players see), in ``public_history`` as (seat, event, card):
# the card is -1 where it is not shown (a stock draw, the knocker's face-down card).
EVENTS = ("pass", "draw_stock", "take_discard", "discard", "knock", "big_gin")




def action_name(action: int) -> str:
    """Readable name of an action id, e.g. ``'discard 7D'``."""
    if action == DRAW_STOCK:
        return "draw stock"
    if action == TAKE_DISCARD:
        return "take discard"
    if action == PASS:
        return "pass"
    if DISCARD <= action < KNOCK:
        return f"discard {format_cards([action - DISCARD])}"
    if KNOCK <= action < BIG_GIN:
        return f"knock {format_cards([action - KNOCK])}"
    if action == BIG_GIN:
        return "big gin"
    raise ValueError(f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}")


@dataclass(frozen=True)
class HandResult(HandResultBase):
    """How a hand ended. ``points`` go to ``winner``; ``rewards`` are zero-sum per seat.

    ``outcome`` is one of 'knock', 'gin', 'big_gin', 'undercut', 'tie' (equal deadwood
    with ``undercut_on_tie`` off: no points) or 'draw' (``reason`` says why: 'wall',
    'max_turns', 'repeated' or 'upcard_draws').
    After a knock both hands are shown; after a draw nothing is shown and the
    showdown fields are empty.
    """

    outcome: str
    winner: Optional[int]
    points: int
    knocker: Optional[int] = None
    knocker_deadwood: int = 0
    defender_deadwood: int = 0
    knocker_melds: tuple[melds.Meld, ...] = ()
    knocker_deadwood_cards: int = 0
    defender_melds: tuple[melds.Meld, ...] = ()
    defender_deadwood_cards: int = 0
    layoffs: tuple[tuple[int, int], ...] = ()  # (card, index into knocker_melds)
    shown_hands: tuple[int, int] = (0, 0)  # each seat's cards as shown (knocker: without the face-down card)
    reason: str = ""  # for a draw: 'wall', 'max_turns', 'repeated' (a card thrown back twice in a row) or 'upcard_draws'

    @property
    def rewards(self) -> tuple[int, int]:
        if self.winner is None:
            return (0, 0)
        return (self.points, -self.points) if self.winner == 0 else (-self.points, self.points)

    def details(self) -> dict:
        return {
            "reason": self.reason,
            "knocker": self.knocker,
            "knocker_deadwood": self.knocker_deadwood,
            "defender_deadwood": self.defender_deadwood,
            "knocker_melds": [format_hand(m.cards) for m in self.knocker_melds],
            "knocker_deadwood_cards": format_hand(self.knocker_deadwood_cards),
            "defender_melds": [format_hand(m.cards) for m in self.defender_melds],
            "defender_deadwood_cards": format_hand(self.defender_deadwood_cards),
            "layoffs": [[format_cards([c]), i] for c, i in self.layoffs],
            "shown_hands": [format_hand(h) for h in self.shown_hands],
        }


@dataclass(slots=True)
class InformationSet:
    """What one player knows: the only input agents and observations are built from.

    Masks are 52-bit ints. 'Opponent' facts are all public: cards they took from the
    discard pile (and have not discarded since), cards they discarded, and cards they
    passed on (the upcard declined, or the top discard when they drew from the stock).
    After a knock the showdown shows both hands, so the opponent's shown cards become
    known.
    """

    player: int
    hand: int
    discard_pile: tuple[int, ...]  # bottom to top
    discard_mask: int  # the same cards as a mask
    stock_size: int
    phase: Phase
    current_player: int
    dealer: int
    turn: int
    knock_limit: int
    taken_card: Optional[int]  # the card the player to move took from the pile this turn
    opponent_known: int
    opponent_hand_size: int
    discarded: tuple[int, int]  # by seat
    passed: tuple[int, int]  # by seat
    public_history: tuple[tuple[int, str, int], ...]  # (seat, event of EVENTS, card shown or -1)
    result: Optional[HandResult]

    @property
    def opponent(self) -> int:
        return 1 - self.player

    @property
    def unseen(self) -> int:
        """Cards this player has no sight of: somewhere in the stock or the opponent's hand."""
        return ((1 << NUM_CARDS) - 1) & ~(self.hand | self.opponent_known | self.discard_mask)


@dataclass
class GinRummyState(CardGameState):
    """One hand of Gin Rummy. Build with ``new_hand`` or ``from_deck``; then ``step``."""

    num_actions: ClassVar[int] = NUM_ACTIONS
    over_phase = Phase.OVER
    list_fields = ("hands", "stock", "discard_pile", "known", "discarded", "passed", "history", "public_history")

    rules: Rules
    hands: list[int]
    stock: list[int]  # top is the last element
    discard_pile: list[int]  # top is the last element
    dealer: int
    knock_limit: int
    current_player: int
    phase: Phase
    deck: Optional[tuple[int, ...]] = None  # deal order, when known (None for sampled worlds)
    turn: int = 0
    offer_passes: int = 0
    must_draw_stock: bool = False
    taken_card: Optional[int] = None
    knock_card: Optional[int] = None
    repeated: bool = False  # the last discard threw back the card just taken (``discard_taken_card``)
    upcard_draws: int = 0  # takes of the top discard in the draw phase (``max_upcard_draws``)
    known: list[int] = field(default_factory=lambda: [0, 0])  # cards a seat took from the pile and still holds
    discarded: list[int] = field(default_factory=lambda: [0, 0])
    passed: list[int] = field(default_factory=lambda: [0, 0])
    history: list[int] = field(default_factory=list)  # every action, in order
    public_history: list[tuple[int, str, int]] = field(default_factory=list)  # (seat, event, card shown or -1)
    result: Optional[HandResult] = None

    # ----------------------------------------------------------------- construction

    @classmethod
    def new_hand(cls, rules: RulesSpec = None, seed=None, dealer: int = 1) -> "GinRummyState":
        """A hand dealt from a shuffled deck (``seed``: int, numpy Generator or None)."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return cls.from_deck(rng.permutation(NUM_CARDS).tolist(), rules, dealer)

    @classmethod
    def from_deck(cls, deck: Sequence[int], rules: RulesSpec = None, dealer: int = 1) -> "GinRummyState":
        """A hand dealt from an explicit deck order (see the module docstring)."""
        deck = checked_deck(deck, NUM_CARDS)
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
        rules = load_rules(rules)
        hands = [0, 0]
        for c in deck[:HAND_SIZE]:
            hands[1 - dealer] |= 1 << c
        for c in deck[HAND_SIZE : 2 * HAND_SIZE]:
            hands[dealer] |= 1 << c
        upcard = deck[2 * HAND_SIZE]
        knock_limit = rules.knock_limit
        if rules.oklahoma:
            knock_limit = 0 if upcard % 13 == 0 else card_value(upcard, rules.five_under_ten)
        return cls(
            rules=rules,
            hands=hands,
            stock=list(reversed(deck[2 * HAND_SIZE + 1 :])),
            discard_pile=[upcard],
            dealer=dealer,
            knock_limit=knock_limit,
            current_player=1 - dealer,
            phase=Phase.OFFER if rules.first_upcard_pass else Phase.DRAW,
            deck=deck,
        )

    @classmethod
    def from_hands(
        cls,
        non_dealer: str | int,
        dealer_hand: str | int,
        upcard: str | int,
        stock: str | Sequence[int],
        rules: RulesSpec = None,
        dealer: int = 1,
    ) -> "GinRummyState":
        """A hand from explicit cards (text like ``'AC 2C 3C'`` or ids); ``stock`` top first.

        Cards not named go to the bottom of the stock in id order. For tests and puzzles.
        """
        from rummy_env.core.cards import parse_card, parse_cards

        def cards(x) -> list[int]:
            if isinstance(x, str):
                return parse_cards(x)
            if isinstance(x, int):
                return mask_to_cards(x)
            return [int(c) for c in x]

        a, b = cards(non_dealer), cards(dealer_hand)
        up = parse_card(upcard) if isinstance(upcard, str) else int(upcard)
        top = cards(stock)
        if len(a) != HAND_SIZE or len(b) != HAND_SIZE:
            raise ValueError(f"each hand must have {HAND_SIZE} cards, got {len(a)} and {len(b)}")
        named = a + b + [up] + top
        if len(set(named)) != len(named):
            raise ValueError("a card is named twice across the hands, upcard and stock")
        rest = [c for c in range(NUM_CARDS) if c not in set(named)]
        return cls.from_deck(a + b + [up] + top + rest, rules, dealer)

    # ----------------------------------------------------------------- queries

    num_players: ClassVar[int] = 2

    @property
    def actions(self) -> list[int]:
        """Every action played this hand, in order (with ``deck`` and ``dealer`` it replays)."""
        return list(self.history)

    def card_places(self) -> dict[str, list[int]]:
        """Where every card is: the hands, the stock, the discard pile and a knocker's
        face-down card. The places always partition the 52 cards."""
        return {
            "hand 0": mask_to_cards(self.hands[0]),
            "hand 1": mask_to_cards(self.hands[1]),
            "stock": list(self.stock),
            "discard pile": list(self.discard_pile),
            "face down": [] if self.knock_card is None else [self.knock_card],
        }

    @property
    def upcard_offer(self) -> bool:
        return self.phase == Phase.OFFER

    def deadwood(self, player: int) -> int:
        """Least deadwood of a seat's current cards."""
        return melds.min_deadwood(self.hands[player], **self._solver_options())

    def _solver_options(self) -> dict:
        return {"aces_high": self.rules.aces == "high", "five_under_ten": self.rules.five_under_ten}

    @property
    def at_wall(self) -> bool:
        """Whether the player to move is at the wall (``wall_knock``): to take the last
        discard only to knock, or to pass; or, having taken it, to knock."""
        return self.rules.wall_knock and len(self.stock) <= 2 and (
            self.phase == Phase.DRAW or (self.phase == Phase.DISCARD and self.taken_card is not None))

    def _compute_legal(self) -> list[int]:
        if self.phase == Phase.OFFER:
            return [TAKE_DISCARD, PASS]
        if self.phase == Phase.DRAW:
            if self.at_wall:
                return [TAKE_DISCARD, PASS] if wall_take_knocks(
                    self.hands[self.current_player], self.discard_pile[-1], self.knock_limit, self.rules) else [PASS]
            if self.must_draw_stock or not self.discard_pile:
                return [DRAW_STOCK]
            return [DRAW_STOCK, TAKE_DISCARD]
        if self.phase == Phase.DISCARD:
            hand = self.hands[self.current_player]
            rules = self.rules
            after = melds.discard_deadwood(hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
            cards = mask_to_cards(hand)
            if self.taken_card is not None and not rules.discard_taken_card:
                cards.remove(self.taken_card)
            limit = self.knock_limit
            out = [] if self.at_wall else [DISCARD + c for c in cards]  # after a take at the wall: knocks only
            out += [KNOCK + c for c in cards if after[c] <= limit]
            # 11 cards never split into 3-card melds only, so Big Gin leaves some discard at 0
            # (a cheap test first: the tuple holds -1 for cards not held, never 0).
            if rules.big_gin and 0 in after and melds.min_deadwood(
                    hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten) == 0:
                out.append(BIG_GIN)
            return out
        return []

    # ----------------------------------------------------------------- stepping

    def step(self, action: int) -> None:
        """Apply an action of the player to move; raises ``IllegalActionError`` if not legal."""
        action = self._check(action)
        p = self.current_player
        self.history.append(action)
        self._moved()
        if action == PASS:
            if self.phase == Phase.DRAW:  # at the wall
                self.passed[p] |= 1 << self.discard_pile[-1]
                self.public_history.append((p, "pass", self.discard_pile[-1]))
                self._end_draw("wall")
            else:
                self._pass(p)
        elif action == DRAW_STOCK:
            if self.discard_pile and not self.must_draw_stock:
                self.passed[p] |= 1 << self.discard_pile[-1]
            self.hands[p] |= 1 << self.stock.pop()
            self.must_draw_stock = False
            self.taken_card = None
            self.phase = Phase.DISCARD
            self.public_history.append((p, "draw_stock", -1))
        elif action == TAKE_DISCARD:
            if self.phase == Phase.DRAW and self.rules.max_upcard_draws and not self.at_wall:
                self.upcard_draws += 1
                if self.upcard_draws >= self.rules.max_upcard_draws:  # the card stays on the pile
                    self._end_draw("upcard_draws")
                    return
            card = self.discard_pile.pop()
            self.hands[p] |= 1 << card
            self.known[p] |= 1 << card
            self.taken_card = card
            self.phase = Phase.DISCARD
            self.public_history.append((p, "take_discard", card))
        elif action < KNOCK:
            self._discard(p, action - DISCARD)
        elif action < BIG_GIN:
            card = action - KNOCK
            self.hands[p] &= ~(1 << card)
            self.known[p] &= ~(1 << card)
            self.knock_card = card
            self.public_history.append((p, "knock", -1))  # the face-down card stays hidden
            self._showdown(p, big_gin=False)
        else:
            self.public_history.append((p, "big_gin", -1))
            self._showdown(p, big_gin=True)

    def _pass(self, p: int) -> None:
        self.passed[p] |= 1 << self.discard_pile[-1]
        self.public_history.append((p, "pass", self.discard_pile[-1]))
        self.offer_passes += 1
        self.current_player = 1 - p
        if self.offer_passes == 2:  # both passed: the non-dealer must draw from the stock
            self.phase = Phase.DRAW
            self.must_draw_stock = True

    def _discard(self, p: int, card: int) -> None:
        self.hands[p] &= ~(1 << card)
        self.known[p] &= ~(1 << card)
        self.discarded[p] |= 1 << card
        self.discard_pile.append(card)
        self.public_history.append((p, "discard", card))
        thrown_back = card == self.taken_card  # only with discard_taken_card
        self.taken_card = None
        self.turn += 1
        repeated, self.repeated = self.repeated, thrown_back
        if thrown_back and repeated:
            self._end_draw("repeated")
        elif len(self.stock) <= 2:
            if self.rules.wall_knock:  # the next player may take this card to knock, or pass
                self.current_player = 1 - p
                self.phase = Phase.DRAW
            else:
                self._end_draw("wall")
        elif self.turn >= self.rules.max_turns:
            self._end_draw("max_turns")
        else:
            self.current_player = 1 - p
            self.phase = Phase.DRAW

    def _end_draw(self, reason: str) -> None:
        self.result = draw_result(reason)
        self.phase = Phase.OVER

    def _showdown(self, knocker: int, big_gin: bool) -> None:
        self.result = showdown_result(self.hands, knocker, big_gin, self.rules)
        self.phase = Phase.OVER

    # ----------------------------------------------------------------- information sets

    def action_name(self, action: int) -> str:
        return action_name(action)

    def _information_set(self, player: int) -> InformationSet:
        opp = 1 - player
        known = self.known[opp]
        if self.result is not None and self.result.outcome != "draw":
            known = self.result.shown_hands[opp]
        pile = distinct_cards_mask(self.discard_pile)
        return InformationSet(
            player=player,
            hand=self.hands[player],
            discard_pile=tuple(self.discard_pile),
            discard_mask=pile,
            stock_size=len(self.stock),
            phase=self.phase,
            current_player=self.current_player,
            dealer=self.dealer,
            turn=self.turn,
            knock_limit=self.knock_limit,
            taken_card=self.taken_card,
            opponent_known=known,
            opponent_hand_size=self.hands[opp].bit_count(),
            discarded=(self.discarded[0], self.discarded[1]),
            passed=(self.passed[0], self.passed[1]),
            public_history=tuple(self.public_history),
            result=self.result,
        )

    def redeal_hidden(self, player: int, rng: np.random.Generator) -> "GinRummyState":
        """A copy with the cards ``player`` cannot know shuffled among their places: the
        opponent's cards not known to ``player``, the stock, and the opponent's face-down
        knock card. What ``player`` sees must not change (the no-leak tests)."""
        t = self.clone()
        opp = 1 - player
        revealed = self.result is not None and self.result.outcome != "draw"
        known = self.hands[opp] if revealed else self.known[opp]
        opp_hidden = mask_to_cards(self.hands[opp] & ~known)
        face_down = [self.knock_card] if (self.knock_card is not None and self.result and self.result.knocker == opp) else []
        pool = opp_hidden + list(self.stock) + face_down
        rng.shuffle(pool)
        t.hands[opp] = known | sum(1 << c for c in pool[: len(opp_hidden)])
        t.stock = pool[len(opp_hidden) : len(opp_hidden) + len(self.stock)]
        if face_down:
            t.knock_card = pool[-1]
        t._legal = None
        return t

    @classmethod
    def sample_from_information_set(
        cls, info: InformationSet, rules: RulesSpec, rng: np.random.Generator
    ) -> "GinRummyState":
        """A full state consistent with ``info``: hidden cards dealt uniformly at random.

        The opponent keeps the cards known to be in their hand; the rest of their hand
        and the stock order are drawn from the cards ``info.player`` has not seen. For
        determinised search (PIMC / IS-MCTS). Only meaningful before the hand is over.
        """
        if info.phase == Phase.OVER:
            raise ValueError("cannot sample a world for a hand that is over")
        rules = load_rules(rules)
        unseen = mask_to_cards(info.unseen)
        rng.shuffle(unseen)
        need = info.opponent_hand_size - info.opponent_known.bit_count()
        if need < 0 or need + info.stock_size != len(unseen):
            raise ValueError("information set is inconsistent: unseen cards do not fill the opponent's hand and the stock")
        opp = info.opponent
        hands = [0, 0]
        hands[info.player] = info.hand
        hands[opp] = info.opponent_known | sum(1 << c for c in unseen[:need])
        known = [0, 0]
        known[opp] = info.opponent_known
        for seat, event, card in info.public_history:  # what the opponent knows of our hand
            if seat == info.player and event == "take_discard":
                known[seat] |= 1 << card
            elif seat == info.player and event == "discard":
                known[seat] &= ~(1 << card)
        return cls(
            rules=rules,
            hands=hands,
            stock=unseen[need:],
            discard_pile=list(info.discard_pile),
            dealer=info.dealer,
            knock_limit=info.knock_limit,
            current_player=info.current_player,
            phase=info.phase,
            deck=None,
            turn=info.turn,
            offer_passes=sum(1 for _, event, _ in info.public_history if event == "pass"),
            must_draw_stock=info.phase == Phase.DRAW
            and len(info.public_history) > 0
            and info.public_history[-1][1] == "pass",
            taken_card=info.taken_card,
            repeated=public_repeated(info.public_history),
            upcard_draws=public_upcard_draws(info.public_history, rules),
            known=known,
            discarded=list(info.discarded),
            passed=list(info.passed),
            history=[],
            public_history=list(info.public_history),
        )

    # ----------------------------------------------------------------- text

    def render(self, perspective: Optional[int] = None) -> str:
        """Readable text; with ``perspective`` only what that seat may see."""
        lines = []
        revealed = self.result is not None and self.result.outcome != "draw"
        for seat in (0, 1):
            shown = perspective is None or perspective == seat or revealed
            who = f"player_{seat}{' (dealer)' if seat == self.dealer else ''}"
            cards = format_hand(self.hands[seat], symbols=True) if shown else f"[{card_count(self.hands[seat].bit_count())}]"
            dw = f"  deadwood {self.deadwood(seat)}" if shown else ""
            lines.append(f"{who}: {cards}{dw}")
        top = format_cards(self.discard_pile[-1:], symbols=True) or "-"
        lines.append(f"discard pile: {card_count(len(self.discard_pile))}, top {top}; stock: {card_count(len(self.stock))}")
        if self.is_over:
            r = self.result
            assert r is not None
            who = "nobody" if r.winner is None else f"player_{r.winner}"
            lines.append(f"hand over: {r.outcome}{' (' + r.reason + ')' if r.reason else ''}, {who} scores {r.points}")
        elif perspective is None or perspective == self.current_player:
            legal = ", ".join(action_name(a) for a in self.legal_actions()[:6])
            more = " ..." if len(self.legal_actions()) > 6 else ""
            lines.append(f"turn {self.turn}, player_{self.current_player} to {self.phase.name.lower()}: {legal}{more}")
        else:  # the opponent's legal actions would show their cards
            lines.append(f"turn {self.turn}, player_{self.current_player} to {self.phase.name.lower()}")
        return "\n".join(lines)


def public_repeated(history: Sequence[tuple[int, str, int]]) -> bool:
    """The ``repeated`` flag of a hand from its public history: whether its last discard
    threw back the card its player had just taken from the pile."""
    for i in range(len(history) - 1, 0, -1):
        seat, event, card = history[i]
        if event == "discard":
            return history[i - 1] == (seat, "take_discard", card)
    return False


def public_upcard_draws(history: Sequence[tuple[int, str, int]], rules: Rules) -> int:
    """The ``upcard_draws`` count of a hand from its public history: its takes of the top
    discard, less the take of the first-turn offer (any take before the first discard
    and stock draw, when the rules have the offer) and a take at the wall (with 2 cards
    or fewer left in the stock, which holds 31 cards at the deal less one per stock draw)."""
    count, offer, stock = 0, rules.first_upcard_pass, NUM_CARDS - 2 * HAND_SIZE - 1
    for _, event, _ in history:
        if event in ("discard", "draw_stock"):
            offer = False
            stock -= event == "draw_stock"
        elif event == "take_discard" and not offer and stock > 2:
            count += 1
    return count


def draw_result(reason: str) -> HandResult:
    """A hand that ends without a showdown: ``reason`` 'wall' (two cards left in the stock),
    'max_turns', 'repeated' (``discard_taken_card``: a card taken and thrown back by both
    players in a row) or 'upcard_draws' (``max_upcard_draws``)."""
    return HandResult(outcome="draw", winner=None, points=0, reason=reason)


def wall_take_knocks(hand: int, top: int, knock_limit: int, rules: Rules) -> bool:
    """Whether, at the wall, taking ``top`` into ``hand`` (10 cards) leaves some knock legal
    (Gin and Big Gin included: Big Gin always leaves some card other than ``top`` whose
    discard keeps 0 deadwood); ``top`` counts as a face-down card only with
    ``discard_taken_card``."""
    after = melds.discard_deadwood(hand | 1 << top, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
    return any(0 <= v <= knock_limit and (c != top or rules.discard_taken_card) for c, v in enumerate(after))


def showdown_result(hands: Sequence[int], knocker: int, big_gin: bool, rules: Rules) -> HandResult:
    """The result of a knock, Gin or Big Gin by seat ``knocker``, ``hands`` being both
    seats' cards as shown (the knocker's without its face-down card). The one place a
    showdown is scored: the pure game's ``step`` and the batch player
    (``rummy_env.gin.batch``, which plays hands on the vector engine and builds their
    results from the final hands) both call it, so their records are the same."""
    opts = {"aces_high": rules.aces == "high", "five_under_ten": rules.five_under_ten}
    defender = 1 - knocker
    own, other = hands[knocker], hands[defender]
    arrangements = melds.arrangements(own, **opts)
    k = arrangements[0].deadwood
    common = dict(knocker=knocker, knocker_deadwood=k, shown_hands=(hands[0], hands[1]))
    if big_gin or k == 0:
        mine, theirs = arrangements[0], melds.best_arrangement(other, **opts)
        d = theirs.deadwood
        outcome, points = score_one(0, d, rules, big_gin)
        return HandResult(
            outcome=OUTCOMES[int(outcome)],
            winner=knocker,
            points=int(points),
            defender_deadwood=d,
            knocker_melds=mine.melds,
            knocker_deadwood_cards=0,
            defender_melds=theirs.melds,
            defender_deadwood_cards=theirs.deadwood_cards,
            **common,
        )
    # The knocker picks, among least-deadwood layouts, the one leaving the most.
    answers = [(a, melds.best_layoff(a.melds, other, **opts)) for a in arrangements]
    mine, answer = max(answers, key=lambda pair: pair[1].arrangement.deadwood)
    d = answer.arrangement.deadwood
    outcome, points = score_one(k, d, rules)
    return HandResult(
        outcome=OUTCOMES[int(outcome)],
        winner={Outcome.UNDERCUT: defender, Outcome.TIE: None}.get(int(outcome), knocker),
        points=int(points),
        defender_deadwood=d,
        knocker_melds=mine.melds,
        knocker_deadwood_cards=mine.deadwood_cards,
        defender_melds=answer.arrangement.melds,
        defender_deadwood_cards=answer.arrangement.deadwood_cards,
        layoffs=answer.laid_off,
        **common,
    )
