"""Scripted Gin Rummy hands whose scores are worked out by hand (docs/games/gin/rules.md).

Every hand is dealt with ``GinRummyState.from_hands`` with dealer = player_1, so
player_0 (the non-dealer) moves first. Unless said otherwise both players pass on the
upcard, player_0 draws the named stock card and knocks, so player_0 is the knocker and
player_1 the defender. Card values: A 1, 2-9 face, T J Q K 10.
"""

from __future__ import annotations

import pytest

from rummy_env.core.cards import NUM_CARDS, card_str, parse_card, parse_cards, parse_hand
from rummy_env.gin.game import (
    BIG_GIN,
    DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
    TAKE_DISCARD,
    GinRummyState,
    HandResult,
    IllegalActionError,
    Phase,
)
from rummy_env.gin.rules import Rules, load_rules
from rummy_env.gin.scoring import OUTCOMES, score_showdown

# --------------------------------------------------------------------------- helpers


def disc(card: str) -> int:
    return DISCARD + parse_card(card)


def knock(card: str) -> int:
    return KNOCK + parse_card(card)


def free_upcard(*texts: str) -> str:
    """The lowest card id named in none of ``texts`` (for hands where the upcard is moot)."""
    used = set()
    for t in texts:
        used |= set(parse_cards(t))
    return next(card_str(c) for c in range(NUM_CARDS) if c not in used)


def deal(p0: str, p1: str, stock: str = "", upcard: str | None = None, rules=None) -> GinRummyState:
    """player_0 = non-dealer (moves first), player_1 = dealer; ``stock`` top first."""
    if upcard is None:
        upcard = free_upcard(p0, p1, stock)
    return GinRummyState.from_hands(p0, p1, upcard, stock, rules=rules, dealer=1)


def to_draw(p0: str, p1: str, draw: str, upcard: str | None = None, rules=None) -> GinRummyState:
    """Both pass on the upcard; player_0 draws ``draw`` from the stock (11 cards, to discard)."""
    s = deal(p0, p1, draw, upcard, rules)
    s.step(PASS)
    s.step(PASS)
    s.step(DRAW_STOCK)
    assert s.phase == Phase.DISCARD and s.current_player == 0
    assert (s.hands[0] >> parse_card(draw)) & 1
    return s


def knock_hand(p0: str, p1: str, draw: str, knock_card: str, upcard: str | None = None, rules=None) -> HandResult:
    """player_0 draws ``draw`` and knocks with ``knock_card``; returns the result."""
    s = to_draw(p0, p1, draw, upcard, rules)
    s.step(knock(knock_card))
    assert s.is_over and s.legal_actions() == []
    assert s.result is not None and s.result.knocker == 0
    return s.result


def check(r: HandResult, outcome: str, winner, points: int, k: int | None = None, d: int | None = None) -> None:
    assert r.outcome == outcome
    assert r.winner == winner
    assert r.points == points
    if k is not None:
        assert r.knocker_deadwood == k
    if d is not None:
        assert r.defender_deadwood == d
    rew = r.rewards
    assert rew[0] + rew[1] == 0
    if winner is None:
        assert rew == (0, 0)
    else:
        assert rew[winner] == points and rew[1 - winner] == -points


def meld_index(r: HandResult, cards: str) -> int:
    """Index in ``r.knocker_melds`` of the meld with exactly ``cards``."""
    m = parse_hand(cards)
    idx = [i for i, meld in enumerate(r.knocker_melds) if meld.cards == m]
    assert len(idx) == 1, f"{cards} is not one of the knocker's melds"
    return idx[0]


def layoff_set(r: HandResult) -> set[tuple[int, int]]:
    return set(r.layoffs)


# A knocker hand used several times: runs AC 2C 3C | 4D 5D 6D | 7H 8H 9H plus one
# deadwood card. Lay-off targets: 4C (clubs run), 3D/7D (diamonds), 6H/TH (hearts).
RUNS9 = "AC 2C 3C 4D 5D 6D 7H 8H 9H"
# A defender with nothing to lay off on RUNS9:
#   5C 6C 7C | QD QH QS | deadwood 2D 4H 5S TS = 2 + 4 + 5 + 10 = 21
DEF21 = "5C 6C 7C QD QH QS 2D 4H 5S TS"
# A defender with nothing to lay off on RUNS9:
#   TC JC QC KC | JD JH JS | deadwood AS 2S 2H = 1 + 2 + 2 = 5
DEF5 = "TC JC QC KC JD JH JS AS 2S 2H"


# --------------------------------------------------------------------------- scoring table


def test_knock_win_worked_example_3_vs_21_scores_18():
    # knocker: AC 2C 3C | 4D 5D 6D | 7H 8H 9H | 3S        K = 3 (KS drawn, knocked face down)
    # defender: DEF21                                     D = 21, no lay-offs
    # knock: D > K -> knocker scores 21 - 3 = 18
    r = knock_hand(RUNS9 + " 3S", DEF21, draw="KS", knock_card="KS")
    check(r, "knock", 0, 18, k=3, d=21)
    assert r.layoffs == ()
    assert r.knocker_deadwood_cards == parse_hand("3S")
    assert r.defender_deadwood_cards == parse_hand("2D 4H 5S TS")
    assert r.shown_hands[0] == parse_hand(RUNS9 + " 3S")  # without the face-down KS
    assert {m.cards for m in r.knocker_melds} == {parse_hand(t) for t in ("AC 2C 3C", "4D 5D 6D", "7H 8H 9H")}


def test_undercut_defender_lower():
    # knocker: RUNS9 | 9S                  K = 9
    # defender: TC JC QC KC | JD JH JS | AS 2S 2H   D = 5
    # undercut: defender scores 9 - 5 + 25 = 29
    r = knock_hand(RUNS9 + " 9S", DEF5, draw="KS", knock_card="KS")
    check(r, "undercut", 1, 29, k=9, d=5)


def test_undercut_bonus_option():
    # same hand with undercut_bonus 10: 9 - 5 + 10 = 14
    r = knock_hand(RUNS9 + " 9S", DEF5, draw="KS", knock_card="KS", rules=Rules(undercut_bonus=10))
    check(r, "undercut", 1, 14, k=9, d=5)


def test_tie_is_undercut_when_undercut_on_tie():
    # knocker: RUNS9 | 5S   K = 5;  defender DEF5  D = 5
    # tie, undercut_on_tie=True -> defender scores 5 - 5 + 25 = 25
    r = knock_hand(RUNS9 + " 5S", DEF5, draw="KS", knock_card="KS", rules=Rules(undercut_on_tie=True))
    check(r, "undercut", 1, 25, k=5, d=5)


def test_tie_scores_nothing_without_undercut_on_tie():
    # same hand, undercut_on_tie=False -> outcome 'tie', nobody scores
    r = knock_hand(RUNS9 + " 5S", DEF5, draw="KS", knock_card="KS", rules=Rules(undercut_on_tie=False))
    check(r, "tie", None, 0, k=5, d=5)


# Gin knocker: AC 2C 3C | 4D 5D 6D | 7H 8H 9H TH   (0 deadwood)
GIN10 = "AC 2C 3C 4D 5D 6D 7H 8H 9H TH"


def test_gin_scores_d_plus_25_and_blocks_layoffs():
    # defender: QC QD QS | 5S 6S 7S | 4C JH 9C KD
    #   D = 4 + 10 + 9 + 10 = 33. 4C would lay off on AC 2C 3C and JH on 7H..TH
    #   (leaving 19), but there are no lay-offs against Gin.
    # Gin: 33 + 25 = 58
    r = knock_hand(GIN10, "QC QD QS 5S 6S 7S 4C JH 9C KD", draw="KS", knock_card="KS")
    check(r, "gin", 0, 58, k=0, d=33)
    assert r.layoffs == ()
    assert r.defender_deadwood_cards == parse_hand("4C JH 9C KD")


def test_gin_bonus_option():
    # the Gin hand above with gin_bonus 15: 33 + 15 = 48
    r = knock_hand(GIN10, "QC QD QS 5S 6S 7S 4C JH 9C KD", draw="KS", knock_card="KS", rules=Rules(gin_bonus=15))
    check(r, "gin", 0, 48, k=0, d=33)


def test_gin_is_never_undercut():
    # knocker GIN10 (K = 0) vs defender QC QD QS | 5S 6S 7S | JC JD JH JS (D = 0):
    # equal deadwood, but Gin is never undercut: knocker scores 0 + 25 = 25
    r = knock_hand(GIN10, "QC QD QS 5S 6S 7S JC JD JH JS", draw="KS", knock_card="KS")
    check(r, "gin", 0, 25, k=0, d=0)


def test_big_gin_scores_d_plus_31_without_discarding():
    # player_0 holds GIN10 and draws JH: AC 2C 3C | 4D 5D 6D | 7H 8H 9H TH JH, all 11 melded.
    # defender: QC QD QS | 5S 6S 7S | 4C KH 9C KD   D = 4 + 10 + 9 + 10 = 33
    #   (4C would lay off on AC 2C 3C: not against Big Gin)
    # Big Gin: 33 + 31 = 64
    s = to_draw(GIN10, "QC QD QS 5S 6S 7S 4C KH 9C KD", draw="JH")
    pile = list(s.discard_pile)
    assert BIG_GIN in s.legal_actions()
    s.step(BIG_GIN)
    r = s.result
    check(r, "big_gin", 0, 64, k=0, d=33)
    assert r.layoffs == ()
    assert s.discard_pile == pile  # nothing discarded
    assert r.shown_hands[0] == parse_hand(GIN10 + " JH")  # all 11 cards shown
    assert s.hands[0].bit_count() == 11


@pytest.mark.parametrize("preset", ["eaai", "openspiel"])
def test_big_gin_illegal_without_big_gin_bonus(preset):
    # same 11 melded cards; with big_gin_bonus 0 only an ordinary Gin knock is possible
    s = to_draw(GIN10, "QC QD QS 5S 6S 7S 4C KH 9C KD", draw="JH", rules=load_rules(preset))
    assert load_rules(preset).big_gin_bonus == 0
    assert BIG_GIN not in s.legal_actions()
    with pytest.raises(IllegalActionError):
        s.step(BIG_GIN)
    # knocking the JH leaves AC 2C 3C | 4D 5D 6D | 7H 8H 9H TH: Gin, 33 + 25 = 58
    s.step(knock("JH"))
    check(s.result, "gin", 0, 58, k=0, d=33)


# --------------------------------------------------------------------------- worked examples


def test_worked_example_4h_laid_off_on_ah_2h_3h():
    # knocker: AH 2H 3H | 7C 7D 7S | JD QD KD | 2C       K = 2
    # defender: 4H | 9C 9D 9S | 3S 4S 5S | 5C 6D TC
    #   before lay-offs: 4 + 5 + 6 + 10 = 25; 4H goes on AH 2H 3H -> D = 21
    # knock: 21 - 2 = 19
    r = knock_hand("AH 2H 3H 7C 7D 7S JD QD KD 2C", "4H 9C 9D 9S 3S 4S 5S 5C 6D TC", draw="KS", knock_card="KS")
    check(r, "knock", 0, 19, k=2, d=21)
    assert r.layoffs == ((parse_card("4H"), meld_index(r, "AH 2H 3H")),)
    assert r.defender_deadwood_cards == parse_hand("5C 6D TC")


# knock legality: KC KD KS | 4S 5S 6S 7S 8S plus two deadwood cards, then a draw
KNOCK8 = "KC KD KS 4S 5S 6S 7S 8S"


def test_worked_example_knock_with_9_leaves_8():
    # player_0: KC KD KS | 4S 5S 6S 7S 8S | 3C 5D, draws 9H -> deadwood 3, 5, 9 (= 17)
    # knocking with 9H leaves 3 + 5 = 8 <= 10: legal; with 5D leaves 12, with 3C 14: not.
    s = to_draw(KNOCK8 + " 3C 5D", "AD 2D 3D QC QD QH 6C TH 2H 7D", draw="9H")
    legal = s.legal_actions()
    assert knock("9H") in legal
    assert knock("5D") not in legal and knock("3C") not in legal
    # defender: AD 2D 3D | QC QD QH | 6C TH 2H 7D  D = 6 + 10 + 2 + 7 = 25
    #   (lay-off targets: KH on the kings, 3S / 9S on the spade run: none held)
    # knock: 25 - 8 = 17
    s.step(knock("9H"))
    check(s.result, "knock", 0, 17, k=8, d=25)


@pytest.mark.parametrize("low, left, is_legal", [("AC", 10, True), ("2C", 11, False)])
def test_knock_limit_is_inclusive_and_11_is_illegal(low, left, is_legal):
    # player_0: KC KD KS | 4S 5S 6S 7S 8S | LOW 9H, draws QH -> deadwood LOW, 9, 10.
    # knocking with QH leaves LOW + 9: AC -> 10 (legal), 2C -> 11 (illegal, no knock at all)
    s = to_draw(KNOCK8 + f" {low} 9H", "AD 2D 3D QC QD JH 6C TH 2H 7D", draw="QH")
    assert s.deadwood(0) == left + 10
    legal = s.legal_actions()
    assert disc("QH") in legal
    assert (knock("QH") in legal) == is_legal
    if is_legal:
        s.step(knock("QH"))
        assert s.result.knocker_deadwood == 10
    else:
        assert not [a for a in legal if KNOCK <= a < BIG_GIN]
        with pytest.raises(IllegalActionError):
            s.step(knock("QH"))
        assert s.phase == Phase.DISCARD and not s.is_over and s.result is None


# --------------------------------------------------------------------------- lay-offs


def test_layoff_fourth_card_on_three_card_set():
    # knocker: AH 2H 3H | 7C 7D 7S | JD QD KD | 2C       K = 2
    # defender: 7H | 9C 9D 9S | 3S 4S 5S | 5C 6D TC
    #   before: 7 + 5 + 6 + 10 = 28; 7H is the 4th seven on 7C 7D 7S -> D = 21
    # knock: 21 - 2 = 19
    r = knock_hand("AH 2H 3H 7C 7D 7S JD QD KD 2C", "7H 9C 9D 9S 3S 4S 5S 5C 6D TC", draw="KS", knock_card="KS")
    check(r, "knock", 0, 19, k=2, d=21)
    i = meld_index(r, "7C 7D 7S")
    assert r.knocker_melds[i].kind == "set"
    assert r.layoffs == ((parse_card("7H"), i),)


def test_layoff_chains_extend_run_at_both_ends():
    # knocker: 5H 6H 7H | 9C 9D 9S | JD QD KD | AC       K = 1
    # defender: 3H 4H 8H | 2C 3C 4C | TS JS QS | 6C
    #   4H then 3H extend the run downwards, 8H upwards: 3H..8H. D = 6
    # knock: 6 - 1 = 5
    r = knock_hand("5H 6H 7H 9C 9D 9S JD QD KD AC", "3H 4H 8H 2C 3C 4C TS JS QS 6C", draw="KC", knock_card="KC")
    check(r, "knock", 0, 5, k=1, d=6)
    i = meld_index(r, "5H 6H 7H")
    assert layoff_set(r) == {(parse_card(c), i) for c in ("3H", "4H", "8H")}
    assert r.defender_deadwood_cards == parse_hand("6C")


# A knocker hand with two least-deadwood layouts:
#   2C 2D 2H AH 3H | 9S TS JS QS KS
#   (a) set 2C 2D 2H, deadwood AH 3H = 4   -> defender may lay off 2S
#   (b) run AH 2H 3H, deadwood 2C 2D = 4   -> defender may lay off 4H (and 5H...)
#   The spade run 9S..KS takes 8S in both.
TWO_LAYOUTS = "2C 2D 2H AH 3H 9S TS JS QS KS"


@pytest.mark.parametrize("defender, points, d, shown, dead", [
    # defender: 4H | 5C 6C 7C | TC TD TH | 6D 7D 9D    deadwood 4 + 6 + 7 + 9 = 26
    #   layout (b) would let 4H go on AH 2H 3H (D = 22); layout (a) leaves D = 26.
    # knocker shows (a): 26 - 4 = 22
    ("4H 5C 6C 7C TC TD TH 6D 7D 9D", 22, 26, "2C 2D 2H", "AH 3H"),
    # defender: 2S | 5C 6C 7C | TC TD TH | 6D 7D 9D    deadwood 2 + 6 + 7 + 9 = 24
    #   layout (a) would let 2S go on 2C 2D 2H (D = 22); layout (b) leaves D = 24.
    # knocker shows (b): 24 - 4 = 20
    ("2S 5C 6C 7C TC TD TH 6D 7D 9D", 20, 24, "AH 2H 3H", "2C 2D"),
], ids=["blocks_layoff_4h", "blocks_layoff_2s"])
def test_knocker_chooses_layout_that_blocks_a_layoff(defender, points, d, shown, dead):
    r = knock_hand(TWO_LAYOUTS, defender, draw="KD", knock_card="KD")
    check(r, "knock", 0, points, k=4, d=d)
    assert r.layoffs == ()
    meld_index(r, shown)
    assert r.knocker_deadwood_cards == parse_hand(dead)


# knocker for the joint lay-off / meld tests: 5H 6H 7H | TC TD TS | JD QD KD | AC   K = 1
#   (TD could also run TD..KD, but then TC TS are dead: the set is the only K = 1 layout)
KNOCK_5H = "5H 6H 7H TC TD TS JD QD KD AC"


def test_defender_keeps_own_set_rather_than_laying_off():
    # defender: 4H | 8C 8D 8H | 9H | 2C 3C 4C | 6C KS
    #   4H lays off on 5H 6H 7H.
    #   8H in the set 8C 8D 8H: dead 9H + 6C + KS = 25
    #   8H (then 9H) laid off instead: dead 8C + 8D + 6C + KS = 32  -> keep the set
    # D = 25; knock 25 - 1 = 24
    r = knock_hand(KNOCK_5H, "4H 8C 8D 8H 9H 2C 3C 4C 6C KS", draw="KC", knock_card="KC")
    check(r, "knock", 0, 24, k=1, d=25)
    assert r.layoffs == ((parse_card("4H"), meld_index(r, "5H 6H 7H")),)
    assert parse_hand("8C 8D 8H") in {m.cards for m in r.defender_melds}


def test_defender_splits_four_of_a_kind_to_lay_off():
    # defender: 8C 8D 8S 8H | 9H | 2C 3C 4C | 6C KS
    #   4-set 8s, dead 9H 6C KS = 25
    #   set 8C 8D 8S, lay off 8H then 9H on 5H 6H 7H: dead 6C KS = 16  <- best
    # D = 16; knock 16 - 1 = 15
    r = knock_hand(KNOCK_5H, "8C 8D 8S 8H 9H 2C 3C 4C 6C KS", draw="KC", knock_card="KC")
    check(r, "knock", 0, 15, k=1, d=16)
    i = meld_index(r, "5H 6H 7H")
    assert layoff_set(r) == {(parse_card("8H"), i), (parse_card("9H"), i)}
    assert parse_hand("8C 8D 8S") in {m.cards for m in r.defender_melds}


# --------------------------------------------------------------------------- first turn


P0_OFFER = RUNS9 + " 3S"
P1_OFFER = DEF21


def test_non_dealer_takes_upcard_and_cannot_discard_it():
    s = deal(P0_OFFER, P1_OFFER, upcard="4C")
    assert s.phase == Phase.OFFER and s.current_player == 0
    assert s.legal_actions() == [TAKE_DISCARD, PASS]
    s.step(TAKE_DISCARD)  # 4C joins AC 2C 3C
    assert s.phase == Phase.DISCARD and s.current_player == 0
    legal = s.legal_actions()
    assert disc("4C") not in legal and knock("4C") not in legal
    assert DRAW_STOCK not in legal and PASS not in legal
    assert knock("3S") in legal  # leaves AC..4C | 4D 5D 6D | 7H 8H 9H: Gin
    with pytest.raises(IllegalActionError):
        s.step(disc("4C"))
    s.step(disc("3S"))
    assert s.current_player == 1 and s.phase == Phase.DRAW and s.turn == 1
    assert s.discard_pile == [parse_card("3S")]
    assert s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]


def test_non_dealer_passes_then_dealer_takes_upcard():
    s = deal(P0_OFFER, P1_OFFER, upcard="4C")
    s.step(PASS)
    assert s.phase == Phase.OFFER and s.current_player == 1
    assert s.legal_actions() == [TAKE_DISCARD, PASS]
    s.step(TAKE_DISCARD)
    assert s.current_player == 1 and s.phase == Phase.DISCARD
    assert (s.hands[1] >> parse_card("4C")) & 1 and s.hands[1].bit_count() == 11
    assert disc("4C") not in s.legal_actions()
    s.step(disc("TS"))
    assert s.current_player == 0 and s.phase == Phase.DRAW
    assert s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]


def test_both_pass_then_non_dealer_must_draw_stock():
    s = deal(P0_OFFER, P1_OFFER, stock="KS", upcard="4C")
    s.step(PASS)
    s.step(PASS)
    assert s.current_player == 0 and s.phase == Phase.DRAW
    assert s.legal_actions() == [DRAW_STOCK]
    with pytest.raises(IllegalActionError):
        s.step(TAKE_DISCARD)
    s.step(DRAW_STOCK)
    assert (s.hands[0] >> parse_card("KS")) & 1
    assert s.discard_pile == [parse_card("4C")]


def test_no_upcard_offer_without_first_upcard_pass():
    s = deal(P0_OFFER, P1_OFFER, upcard="4C", rules=Rules(first_upcard_pass=False))
    assert s.phase == Phase.DRAW and s.current_player == 0
    assert s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]
    s.step(TAKE_DISCARD)
    assert disc("4C") not in s.legal_actions()


# --------------------------------------------------------------------------- discard-pile card


def test_card_taken_from_pile_is_neither_discard_nor_knock():
    # player_0: RUNS9 | 9C, draws JS and discards 9C.
    # player_1 (dealer): 3S 4S 5S | KC KD KH | TC TH TS | 2D  (deadwood 2), takes 9C:
    #   deadwood 2D + 9C = 11. Knocking with 9C would leave 2, but 9C was just taken;
    #   knocking with 2D leaves 9: legal.
    s = deal(RUNS9 + " 9C", "3S 4S 5S KC KD KH TC TH TS 2D", stock="JS")
    s.step(PASS)
    s.step(PASS)
    s.step(DRAW_STOCK)
    s.step(disc("9C"))
    assert s.current_player == 1 and s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]
    s.step(TAKE_DISCARD)
    legal = s.legal_actions()
    assert disc("9C") not in legal and knock("9C") not in legal
    assert disc("2D") in legal and knock("2D") in legal
    for bad in (disc("9C"), knock("9C")):
        with pytest.raises(IllegalActionError):
            s.step(bad)
    s.step(knock("2D"))
    # the dealer knocks: K = 9 (9C). Defender player_0: RUNS9 | JS, D = 10
    #   (lay-off targets 2S/6S, KS, TD: none held) -> player_1 scores 10 - 9 = 1
    assert s.result.knocker == 1
    check(s.result, "knock", 1, 1, k=9, d=10)
    assert s.result.rewards == (-1, 1)


# --------------------------------------------------------------------------- the wall, max_turns


def play_stock_turns(s: GinRummyState, n: int) -> None:
    """n turns of: draw from the stock, discard the card just drawn."""
    for _ in range(n):
        card = s.stock[-1]
        s.step(DRAW_STOCK)
        s.step(DISCARD + card)


def test_wall_draw_when_discard_leaves_two_in_stock():
    s = deal(RUNS9 + " 3S", DEF21, upcard="KS")  # 31 cards in the stock
    assert len(s.stock) == 31
    s.step(PASS)
    s.step(PASS)
    play_stock_turns(s, 28)  # stock 3: play goes on
    assert not s.is_over and len(s.stock) == 3 and s.current_player == 0
    play_stock_turns(s, 1)  # stock 2 after a face-up discard: the wall
    assert s.is_over and len(s.stock) == 2
    r = s.result
    assert (r.outcome, r.reason, r.winner, r.points, r.rewards) == ("draw", "wall", None, 0, (0, 0))
    assert s.legal_actions() == []


def test_knock_allowed_with_two_cards_in_stock():
    # the same hand; on the 29th draw player_0 knocks with the drawn card instead:
    # knocker RUNS9 | 3S (K = 3) vs DEF21 (D = 21) -> 18, as in the worked example
    s = deal(RUNS9 + " 3S", DEF21, upcard="KS")
    s.step(PASS)
    s.step(PASS)
    play_stock_turns(s, 28)
    card = s.stock[-1]
    s.step(DRAW_STOCK)
    assert len(s.stock) == 2
    assert KNOCK + card in s.legal_actions()
    s.step(KNOCK + card)
    check(s.result, "knock", 0, 18, k=3, d=21)


def test_max_turns_draw_after_fourth_discard():
    s = deal(RUNS9 + " 3S", DEF21, upcard="KS", rules=Rules(max_turns=4))
    s.step(PASS)
    s.step(PASS)  # passes are not turns
    play_stock_turns(s, 3)
    assert not s.is_over and s.turn == 3
    play_stock_turns(s, 1)
    assert s.is_over and s.turn == 4
    r = s.result
    assert (r.outcome, r.reason, r.winner, r.points, r.rewards) == ("draw", "max_turns", None, 0, (0, 0))


# --------------------------------------------------------------------------- rule options

OK_P0 = "AC 2C 3C 4D 5D 6D JH QH KH 8S"
OK_P1 = "5C 6C 7C QC QD QS 2D 4H 5S TS"


def test_oklahoma_upcard_7_sets_knock_limit_7():
    # player_0: AC 2C 3C | 4D 5D 6D | JH QH KH | 8S, draws 7H: deadwood 8S + 7H.
    # upcard 7S -> knock limit 7: knocking 8S leaves 7 (legal), 7H leaves 8 (illegal).
    s = to_draw(OK_P0, OK_P1, draw="7H", upcard="7S", rules=Rules(oklahoma=True))
    assert s.knock_limit == 7
    legal = s.legal_actions()
    assert knock("8S") in legal and knock("7H") not in legal
    with pytest.raises(IllegalActionError):
        s.step(knock("7H"))
    # defender: 5C 6C 7C | QC QD QS | 2D 4H 5S TS  D = 21 (no lay-offs) -> 21 - 7 = 14
    s.step(knock("8S"))
    check(s.result, "knock", 0, 14, k=7, d=21)


def test_without_oklahoma_the_same_knock_is_legal():
    s = to_draw(OK_P0, OK_P1, draw="7H", upcard="7S", rules=Rules())
    assert s.knock_limit == 10
    assert knock("7H") in s.legal_actions()
    s.step(knock("7H"))  # leaves 8S: 21 - 8 = 13
    check(s.result, "knock", 0, 13, k=8, d=21)


def test_oklahoma_ace_upcard_means_gin_only():
    # player_0: 3C 4C 5C | 4D 5D 6D | JH QH KH | 2S, draws TH.
    # upcard AS -> knock limit 0: knocking TH leaves 2 (illegal); knocking 2S is Gin.
    # defender: 7C 8C 9C | QC QD QS | 2D 4H 5S TS  D = 21 -> Gin 21 + 25 = 46
    s = to_draw("3C 4C 5C 4D 5D 6D JH QH KH 2S", "7C 8C 9C QC QD QS 2D 4H 5S TS", draw="TH", upcard="AS",
                rules=Rules(oklahoma=True))
    assert s.knock_limit == 0
    legal = s.legal_actions()
    assert knock("TH") not in legal and knock("2S") in legal
    assert [a for a in legal if KNOCK <= a < BIG_GIN] == [knock("2S")]
    s.step(knock("2S"))
    check(s.result, "gin", 0, 46, k=0, d=21)


def test_oklahoma_with_five_under_ten_limit_is_card_value():
    # documented choice: the limit is the upcard's value under the hand's rules (7 -> 5)
    s = deal(OK_P0, OK_P1, upcard="7S", rules=Rules(oklahoma=True, five_under_ten=True))
    assert s.knock_limit == 5
    s = deal(OK_P0, OK_P1, upcard="9C", rules=Rules(oklahoma=True, five_under_ten=False))
    assert s.knock_limit == 9


def test_five_under_ten_values_in_score():
    # knocker: RUNS9 | 2S            K = 5 (the 2 is worth 5)
    # defender: DEF21: dead 2D 4H 5S TS = 5 + 5 + 5 + 10 = 25
    # knock: 25 - 5 = 20   (classic values would give 21 - 2 = 19)
    r = knock_hand(RUNS9 + " 2S", DEF21, draw="KS", knock_card="KS", rules=Rules(five_under_ten=True))
    check(r, "knock", 0, 20, k=5, d=25)
    r = knock_hand(RUNS9 + " 2S", DEF21, draw="KS", knock_card="KS")
    check(r, "knock", 0, 19, k=2, d=21)


def test_aces_high_q_k_a_melds_and_a_2_3_does_not():
    # knocker: QC KC AC | 4D 5D 6D | 7H 8H 9H | 2S
    #   aces high: Q-K-A is a run, K = 2
    # defender: AH 2H 3H | 5C 6C 7C | QD QH QS | TS
    #   A-2-3 is no run with aces high: dead AH 2H 3H TS = 1 + 2 + 3 + 10 = 16
    #   (JC would lay off below QC KC AC; not held)
    # knock: 16 - 2 = 14
    p0, p1 = "QC KC AC 4D 5D 6D 7H 8H 9H 2S", "AH 2H 3H 5C 6C 7C QD QH QS TS"
    r = knock_hand(p0, p1, draw="KS", knock_card="KS", rules=Rules(aces="high"))
    check(r, "knock", 0, 14, k=2, d=16)
    meld_index(r, "QC KC AC")
    assert r.defender_deadwood_cards == parse_hand("AH 2H 3H TS")
    # aces low: QC KC AC is dead (10 + 10 + 1 + 2 = 23 after knocking KS): no knock
    s = to_draw(p0, p1, draw="KS")
    assert knock("KS") not in s.legal_actions()
    assert s.deadwood(1) == 10  # and A-2-3 is a run again


@pytest.mark.parametrize("aces, d, points, laid", [("high", 17, 15, True), ("low", 18, 16, False)])
def test_ace_lays_off_above_king_only_with_aces_high(aces, d, points, laid):
    # knocker: JC QC KC | 4D 5D 6D | 7H 8H 9H | 2S          K = 2 either way
    # defender: AC | 5C 6C 7C | QD QH QS | 3H 4S TS
    #   dead AC 3H 4S TS = 1 + 3 + 4 + 10 = 18
    #   aces high: AC extends J-Q-K to J-Q-K-A -> D = 17, 17 - 2 = 15
    #   aces low: no lay-off -> D = 18, 18 - 2 = 16
    r = knock_hand("JC QC KC 4D 5D 6D 7H 8H 9H 2S", "AC 5C 6C 7C QD QH QS 3H 4S TS", draw="KS", knock_card="KS",
                   rules=Rules(aces=aces))
    check(r, "knock", 0, points, k=2, d=d)
    expected = ((parse_card("AC"), meld_index(r, "JC QC KC")),) if laid else ()
    assert r.layoffs == expected


# --------------------------------------------------------------------------- presets


def test_preset_classic_big_gin():
    # classic: Big Gin worth D + 31 (same hand as the Big Gin test: 33 + 31 = 64)
    s = to_draw(GIN10, "QC QD QS 5S 6S 7S 4C KH 9C KD", draw="JH", rules=load_rules("classic"))
    s.step(BIG_GIN)
    check(s.result, "big_gin", 0, 64, k=0, d=33)


def test_preset_openspiel_tie_scores_zero():
    # RUNS9 | 5S (K = 5) vs DEF5 (D = 5): openspiel has no undercut on a tie
    r = knock_hand(RUNS9 + " 5S", DEF5, draw="KS", knock_card="KS", rules=load_rules("openspiel"))
    check(r, "tie", None, 0, k=5, d=5)


def test_preset_eaai_tie_is_undercut():
    # the same hand under eaai: ties count as undercuts, 0 + 25 = 25 to the defender
    r = knock_hand(RUNS9 + " 5S", DEF5, draw="KS", knock_card="KS", rules=load_rules("eaai"))
    check(r, "undercut", 1, 25, k=5, d=5)


def test_score_showdown_batch_matches_hand_worked_scores():
    """The one scoring rule the engines and the heuristic share, on arrays at once."""
    classic, openspiel = load_rules("classic"), load_rules("openspiel")
    knocker = [3, 7, 7, 0, 0, 9]
    defender = [21, 5, 7, 30, 0, 40]
    big = [False, False, False, False, False, True]
    outcome, points = score_showdown(knocker, defender, classic, big)
    assert [OUTCOMES[o] for o in outcome] == ["knock", "undercut", "undercut", "gin", "gin", "big_gin"]
    # 21-3; 7-5+25; tie undercut 0+25; 30+25; 0+25; 40+31 (the knocker's deadwood is moot)
    assert points.tolist() == [18, 27, 25, 55, 25, 71]
    outcome, points = score_showdown(7, 7, openspiel)
    assert (OUTCOMES[int(outcome)], int(points)) == ("tie", 0)
