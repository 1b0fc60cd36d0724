"""OpenSpiel's ``gin_rummy`` played in lockstep with ours: the same deal, the same moves.

Why: the ``openspiel`` rules preset exists so that results can be compared with work done
in OpenSpiel, which only means something if the two games are the same. ``Lockstep``
deals one deck to both engines (OpenSpiel's chance nodes get our deck's cards in our
order), applies each of our moves to both (our action ids mapped to OpenSpiel's, a knock
and the showdown spelled out as OpenSpiel's meld, lay-off and pass actions), and
``differences`` lists where the two disagree at a decision: the cards in each hand, the
discard pile, the stock size, the player to move and the legal moves (OpenSpiel's mapped to
ours). ``tests/gin/test_gin_openspiel_lockstep.py`` plays hundreds of hands this way,
``benchmarks/bench_openspiel.py`` thousands. Needs open_spiel (``pip install
"rummy-env[openspiel]"``).

Mappings: OpenSpiel deals its player 0 first and lets player 0 act first, so its player 0
is our non-dealer. Its card ids order the suits s, c, d, h (ours C, D, H, S). Its actions:
card ids for discards, 52 draw the upcard, 53 draw from the stock, 54 pass, 55 knock
(then the knocker discards, lays melds and passes; the defender lays off, passes, lays
melds and passes), 56 + meld id. Its runs are melds of 3 to 5 cards, so a longer run of
ours is laid as several.

The ``openspiel`` preset is OpenSpiel's game (docs/games/gin/rules.md), its wall
(``wall_knock``), its throw-back of the card just taken (``discard_taken_card``) and its
cap of 50 upcard draws (``max_upcard_draws``) included. At the wall our take of the
discard is OpenSpiel's knock (55), which takes the upcard, and our pass is its pass (54);
our knock after that take is its choice of the face-down card. One difference is left, a
bug of OpenSpiel's: its least deadwood of 11 cards is wrong where meld groups tie, so it
can refuse a knock (or a take at the wall) that ours allows. ``KNOWN_DIFFERENCES`` names
it, and ``differences`` reports it apart from everything else, which would be a bug.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, mask_to_cards
from rummy_env.gin.game import (
    BIG_GIN, DISCARD, DRAW_STOCK, HAND_SIZE, KNOCK, PASS, TAKE_DISCARD, GinRummyState, HandResult, InformationSet, Phase,
)
from rummy_env.gin.rules import Rules, load_rules

DRAW_UPCARD, OS_DRAW_STOCK, OS_PASS, OS_KNOCK, MELD_BASE = 52, 53, 54, 55, 56
LONGEST_RUN = 5  # OpenSpiel's meld ids hold runs of 3 to 5 cards
KNOWN_DIFFERENCES = {
    "11-card deadwood": "OpenSpiel's least deadwood of 11 cards removes the highest card left over by one best meld "
                        "group; where several groups tie it can miss a lower total, and refuse a knock (or a take "
                        "at the wall) ours allows (an OpenSpiel bug: '2C 4C 4D 5D 6D 3H 6H AS 4S 5S 6S' is 11 "
                        "there, 10 here)",
}
MAX_UPCARD_DRAWS = 50  # OpenSpiel's kMaxNumDrawUpcardActions


def to_openspiel(card: int) -> int:
    """Our card id (suits C, D, H, S) as OpenSpiel's (suits s, c, d, h; ranks the same)."""
    suit, rank = divmod(card, NUM_RANKS)
    return (suit + 1) % 4 * NUM_RANKS + rank


def from_openspiel(card: int) -> int:
    """OpenSpiel's card id as ours (``to_openspiel``'s inverse)."""
    suit, rank = divmod(card, NUM_RANKS)
    return (suit + 3) % 4 * NUM_RANKS + rank


def pyspiel_module() -> Any:
    """``pyspiel``, or an ImportError saying how to install open_spiel."""
    try:
        import pyspiel
    except ImportError:
        raise ImportError('OpenSpiel interop needs open_spiel: pip install "rummy-env[openspiel]" '
                          "(or pip install open_spiel)") from None
    return pyspiel


def openspiel_game(rules: Any = "openspiel") -> Any:
    """OpenSpiel's ``gin_rummy`` with the scoring of ``rules``; a ValueError for rules it
    cannot play (aces high, five under ten, Big Gin, ties as undercuts, no upcard offer,
    a hand drawn at the wall, no throw-back of the card taken, another cap on upcard draws)."""
    r = load_rules(rules)
    unsupported = [name for name, bad in (("aces: high", r.aces_high), ("five_under_ten", r.five_under_ten),
                                          ("big_gin_bonus > 0", r.big_gin), ("undercut_on_tie", r.undercut_on_tie),
                                          ("first_upcard_pass: false", not r.first_upcard_pass),
                                          ("wall_knock: false", not r.wall_knock),
                                          ("discard_taken_card: false", not r.discard_taken_card),
                                          (f"max_upcard_draws: {r.max_upcard_draws}",
                                           r.max_upcard_draws != MAX_UPCARD_DRAWS)) if bad]
    if unsupported:
        raise ValueError(f"OpenSpiel's gin_rummy has no {', '.join(unsupported)}; start from the openspiel preset")
    return pyspiel_module().load_game("gin_rummy", {"oklahoma": r.oklahoma, "knock_card": r.knock_limit,
                                                    "gin_bonus": r.gin_bonus, "undercut_bonus": r.undercut_bonus})


def meld_pieces(cards: int, is_run: bool) -> list[list[int]]:
    """A meld of ours as OpenSpiel melds (card ids, ours): runs longer than 5 split into
    runs of 3 to 5 from the low end."""
    ids = mask_to_cards(cards)
    if not is_run or len(ids) <= LONGEST_RUN:
        return [ids]
    ranks = sorted(ids, key=lambda c: c % NUM_RANKS)  # a run's cards in rank order (aces low)
    pieces = []
    while len(ranks) > LONGEST_RUN:
        take = LONGEST_RUN if len(ranks) - LONGEST_RUN >= 3 else len(ranks) - 3
        pieces.append(ranks[:take])
        ranks = ranks[take:]
    return pieces + [ranks]


class Lockstep:
    """One hand dealt from ``deck`` (52 card ids, ours; dealer seat 1, as OpenSpiel deals)
    in our engine (``state``) and in OpenSpiel's (``os_state``)."""

    def __init__(self, deck: Sequence[int], rules: Any = "openspiel") -> None:
        self.rules: Rules = load_rules(rules)
        self.game = openspiel_game(self.rules)
        self.state = GinRummyState.from_deck(list(deck), self.rules, dealer=1)
        self.deck = list(deck)
        self.os_state = self.game.new_initial_state()
        for card in self.deck[: 2 * HAND_SIZE + 1]:  # player 0's ten, player 1's ten, the upcard
            self.os_state.apply_action(to_openspiel(card))
        self._next_stock = 2 * HAND_SIZE + 1  # the deck's next card is the next stock draw
        self._wall_knock = False  # OpenSpiel's player knocked at the wall (it now picks the face-down card)
        self.compared = 0  # decisions ``differences`` compared (calls while both hands go on)

    # ------------------------------------------------------------ comparing

    def os_legal(self) -> set[int]:
        """OpenSpiel's legal actions now, mapped to ours where they have a twin (a discard or
        knock card, the draws, pass); OpenSpiel's knock (55) stays 55."""
        if self.os_state.is_terminal():
            return set()
        mapped = set()
        for a in self.os_state.legal_actions():
            if a < NUM_CARDS:
                mapped.add(DISCARD + from_openspiel(a))
            elif a == DRAW_UPCARD:
                mapped.add(TAKE_DISCARD)
            elif a == OS_DRAW_STOCK:
                mapped.add(DRAW_STOCK)
            elif a == OS_PASS:
                mapped.add(PASS)
            else:
                mapped.add(a)
        return mapped

    def differences(self) -> dict[str, Any]:
        """Where the engines disagree at this decision ({} when they agree), by kind:
        ``hands``, ``pile``, ``stock``, ``player``, ``legal`` (ours, OpenSpiel's) and
        ``over`` (ours, OpenSpiel's) would be bugs; ``11-card deadwood`` (OpenSpiel's
        least deadwood of 11 cards, ours) is OpenSpiel's bug (``KNOWN_DIFFERENCES``)."""
        s, o = self.state, self.os_state
        out: dict[str, Any] = {}
        if s.is_over or o.is_terminal():
            if s.is_over != o.is_terminal():
                out["over"] = (s.is_over, o.is_terminal())
            return out
        self.compared += 1
        hands = [sorted(from_openspiel(c) for c in h) for h in o.hands()]
        ours = [mask_to_cards(s.hands[0]), mask_to_cards(s.hands[1])]
        if hands != ours:
            out["hands"] = (ours, hands)
        up = o.upcard()
        pile = [from_openspiel(c) for c in o.discard_pile()] + ([] if up is None else [from_openspiel(up)])
        if pile != list(s.discard_pile):
            out["pile"] = (list(s.discard_pile), pile)
        if o.stock_size() != len(s.stock):
            out["stock"] = (len(s.stock), o.stock_size())
        if o.current_player() != s.current_player:
            out["player"] = (s.current_player, o.current_player())
        mine, theirs = self._legal_pair()
        if mine != theirs:
            eleven = self._eleven()
            if mine - theirs == {OS_KNOCK} and not theirs - mine and self._os_deadwood(eleven) > s.knock_limit:
                out["11-card deadwood"] = (self._os_deadwood(eleven), min(v for v in melds.discard_deadwood(eleven)
                                                                          if v >= 0))
            else:
                out["legal"] = (sorted(mine), sorted(theirs))
        return out

    def _legal_pair(self) -> tuple[set[int], set[int]]:
        """(ours, OpenSpiel's) legal moves now, in terms both have: at the wall our take is
        OpenSpiel's knock (55); after it each engine's face-down cards as our knock ids;
        elsewhere our knocks are OpenSpiel's one knock (55)."""
        s = self.state
        legal = set(s.legal_actions())
        if s.at_wall and s.phase == Phase.DRAW:
            return {OS_KNOCK if a == TAKE_DISCARD else a for a in legal}, self.os_legal()
        if s.at_wall:  # OpenSpiel's knock phase: the card to put face down
            return legal, {KNOCK + from_openspiel(a) for a in self.os_state.legal_actions()}
        return {OS_KNOCK if KNOCK <= a < BIG_GIN else a for a in legal}, self.os_legal()

    def _eleven(self) -> int:
        """The 11 cards of the player to move that a knock is judged on (at the wall, the
        hand and the discard on offer)."""
        s = self.state
        hand = s.hands[s.current_player]
        return hand | 1 << s.discard_pile[-1] if s.phase == Phase.DRAW else hand

    def _os_deadwood(self, cards: int) -> int:
        """OpenSpiel's least deadwood of the 11 ``cards`` (its knock test)."""
        return self._utils().min_deadwood([to_openspiel(c) for c in mask_to_cards(cards)])

    # ------------------------------------------------------------ moving

    def step(self, action: int) -> None:
        """Our ``action`` in both engines (OpenSpiel's showdown spelled out from our result)."""
        s, o = self.state, self.os_state
        p = s.current_player
        if action == DRAW_STOCK:
            o.apply_action(OS_DRAW_STOCK)
            s.step(action)
            o.apply_action(to_openspiel(self.deck[self._next_stock]))  # the chance node: our stock's card
            self._next_stock += 1
        elif action == TAKE_DISCARD:
            if s.at_wall:  # OpenSpiel's knock at the wall takes the upcard
                o.apply_action(OS_KNOCK)
                self._wall_knock = True
            else:
                o.apply_action(DRAW_UPCARD)
            s.step(action)
        elif action == PASS:
            o.apply_action(OS_PASS)
            s.step(action)
        elif action < KNOCK:
            o.apply_action(to_openspiel(action - DISCARD))
            s.step(action)
        elif action < BIG_GIN:
            if not self._wall_knock:
                o.apply_action(OS_KNOCK)
            o.apply_action(to_openspiel(action - KNOCK))
            s.step(action)
            self._showdown(s.result, p)
        else:
            raise ValueError("OpenSpiel's gin_rummy has no Big Gin")

    def _showdown(self, result: HandResult, knocker: int) -> None:
        """OpenSpiel's knock phase and lay-offs, as our showdown chose them."""
        o = self.os_state
        for meld in result.knocker_melds:
            for piece in meld_pieces(meld.cards, meld.kind == "run"):
                o.apply_action(MELD_BASE + self._meld_id(piece))
        o.apply_action(OS_PASS)
        if not o.is_terminal() and result.knocker_deadwood > 0:  # no lay-offs on Gin
            left = [c for c, _ in result.layoffs]
            while left:  # each card once OpenSpiel allows it (a run grows a card at a time)
                legal = set(o.legal_actions())
                ready = [c for c in left if to_openspiel(c) in legal]
                if not ready:
                    break  # differences() shows the rest: OpenSpiel refused a lay-off of ours
                o.apply_action(to_openspiel(ready[0]))
                left.remove(ready[0])
            o.apply_action(OS_PASS)
        if not o.is_terminal():
            for meld in result.defender_melds:
                for piece in meld_pieces(meld.cards, meld.kind == "run"):
                    o.apply_action(MELD_BASE + self._meld_id(piece))
            o.apply_action(OS_PASS)

    def _meld_id(self, cards: list[int]) -> int:
        return self._utils().meld_to_int(sorted(to_openspiel(c) for c in cards))

    def _utils(self) -> Any:
        return pyspiel_module().gin_rummy.GinRummyUtils(NUM_RANKS, 4, HAND_SIZE)

    def returns(self) -> Optional[tuple[tuple[float, float], tuple[float, float]]]:
        """(ours, OpenSpiel's) returns per seat once both hands are over, else None."""
        if not (self.state.is_over and self.os_state.is_terminal()):
            return None
        ours = self.state.result.rewards
        return (float(ours[0]), float(ours[1])), tuple(float(x) for x in self.os_state.returns())


def play_scripted(deck: Sequence[int], rng: np.random.Generator, rules: Any = "openspiel", knock: float = 0.6,
                  take: Optional[float] = None, throw_back: Optional[float] = None,
                  wall: Optional[float] = None) -> tuple[dict[str, int], Lockstep]:
    """One hand in lockstep by a scripted player: knocking with probability ``knock`` where
    it may (at the wall: taking the discard to knock, with probability ``wall`` when
    given), taking the top discard with
    probability ``take`` (None: a uniform legal move), throwing the card just taken back
    with probability ``throw_back`` (None: that card is discarded as any other), else
    discarding mostly the card that leaves the least deadwood. A knock (or take at the wall) that OpenSpiel refuses by its 11-card
    deadwood bug is not played. Returns the differences seen (by kind) and the lockstep."""
    ls = Lockstep(deck, rules)
    seen: dict[str, int] = {}
    while True:
        differences = ls.differences()
        for kind in differences:
            seen[kind] = seen.get(kind, 0) + 1
        s = ls.state
        if s.is_over or ls.os_state.is_terminal():
            return seen, ls
        legal = s.legal_actions()
        refused = "11-card deadwood" in differences  # OpenSpiel would not apply the knock
        knocks = [] if refused else [a for a in legal if KNOCK <= a < BIG_GIN]
        taken = s.taken_card
        if s.at_wall and s.phase == Phase.DRAW:
            chance = knock if wall is None else wall
            action = TAKE_DISCARD if TAKE_DISCARD in legal and not refused and rng.random() < chance else PASS
        elif knocks and rng.random() < knock:
            action = knocks[rng.integers(len(knocks))]
        elif take is not None and TAKE_DISCARD in legal:
            action = TAKE_DISCARD if rng.random() < take else (PASS if PASS in legal else DRAW_STOCK)
        elif taken is not None and DISCARD + taken in legal and throw_back is not None and rng.random() < throw_back:
            action = DISCARD + taken
        else:
            plain = [a for a in legal if a < KNOCK and (throw_back is None or taken is None or a != DISCARD + taken)] or knocks
            action = plain[rng.integers(len(plain))]
            if plain[-1] >= DISCARD and rng.random() < 0.8:  # mostly the card that leaves the least deadwood
                after = melds.discard_deadwood(s.hands[s.current_player])
                base = KNOCK if plain[-1] >= KNOCK else DISCARD
                action = min(plain, key=lambda a: (after[a - base], a))
        ls.step(int(action))


def information_set(os_state: Any, player: int) -> InformationSet:
    """Our information set of OpenSpiel player ``player`` at a draw or discard decision
    (OpenSpiel's player 0 is the non-dealer, our seat 0 with the dealer in seat 1), built
    from what that player sees: its own hand, the public moves (the upcard, what each
    player took, passed on and discarded), the stock size and the knock card. The other
    player's cards and the stock come into it only as counts. OpenSpiel's wall is our
    draw phase at the wall; its knock there is our take of the discard, and the choice of
    the face-down card that follows is our discard phase after that take."""
    hand = 0
    for c in os_state.hands()[player]:
        hand |= 1 << from_openspiel(c)
    known, passed, discarded = [0, 0], [0, 0], [0, 0]
    events: list[tuple[int, str, int]] = []
    pile: list[int] = []
    upcard: Optional[int] = None
    passes = turn = 0
    taken: Optional[int] = None
    dealt = 0
    discarder: Optional[int] = None  # who made the last discard, until the next draw
    wall_knock = False
    for step in os_state.full_history():
        p, a = step.player, step.action
        if p < 0:  # chance: the deal (the 21st card is the upcard), then cards drawn from the stock
            dealt += 1
            if dealt == 2 * HAND_SIZE + 1:
                upcard = from_openspiel(a)
            continue
        if wall_knock:
            raise ValueError("information_set is for draw and discard decisions, not after a knock")
        if a == OS_KNOCK and discarder == 1 - p:  # the knock at the wall: it takes the upcard
            a, wall_knock = DRAW_UPCARD, True
        discarder = None
        if a == DRAW_UPCARD:
            known[p] |= 1 << upcard
            events.append((p, "take_discard", upcard))
            taken, upcard = upcard, None
        elif a == OS_PASS and passes < 2 and upcard is not None and not pile and turn == 0:
            passed[p] |= 1 << upcard
            events.append((p, "pass", upcard))
            passes += 1
        elif a == OS_DRAW_STOCK:
            if upcard is not None:
                if passes < 2 or turn > 0:  # not the non-dealer's forced draw after both passed
                    passed[p] |= 1 << upcard
                pile.append(upcard)
                upcard = None
            events.append((p, "draw_stock", -1))
            taken = None
        elif a < NUM_CARDS:
            card = from_openspiel(a)
            known[p] &= ~(1 << card)
            discarded[p] |= 1 << card
            events.append((p, "discard", card))
            upcard, taken = card, None
            turn += 1
            discarder = p
        else:
            raise ValueError("information_set is for draw and discard decisions, not after a knock")
    phase_name = os_state.current_phase().name
    if phase_name == "FIRST_UPCARD":
        phase = Phase.OFFER if passes < 2 else Phase.DRAW
    elif phase_name in ("DRAW", "WALL"):
        phase = Phase.DRAW
    elif phase_name == "DISCARD" or (phase_name == "KNOCK" and wall_knock and len(os_state.hands()[player]) == 11):
        phase = Phase.DISCARD
    else:
        raise ValueError(f"information_set is for draw and discard decisions, not phase {phase_name}")
    full_pile = pile + ([] if upcard is None else [upcard])
    mask = 0
    for c in full_pile:
        mask |= 1 << c
    q = 1 - player
    return InformationSet(
        player=player, hand=hand, discard_pile=tuple(full_pile), discard_mask=mask,
        stock_size=os_state.stock_size(), phase=phase, current_player=player, dealer=1, turn=turn,
        knock_limit=os_state.knock_card(), taken_card=taken if phase == Phase.DISCARD else None,
        opponent_known=known[q], opponent_hand_size=HAND_SIZE, discarded=(discarded[0], discarded[1]),
        passed=(passed[0], passed[1]), public_history=tuple(events), result=None,
    )
