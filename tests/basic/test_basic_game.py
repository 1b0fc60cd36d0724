"""Basic Rummy pure game: the meld table, scripted hands with scores worked out by hand,
every rule option, and errors that name what is allowed."""

from pathlib import Path

import numpy as np
import pytest

from rummy_env.core.cards import parse_card, parse_hand
from rummy_env.basic.game import (
    DISCARD, DRAW_STOCK, LAYOFF, MELD, NUM_ACTIONS, TAKE_DISCARD, BasicRummyState, IllegalActionError, Phase,
    RummyHandResult, action_name, hand_value,
)
from rummy_env.basic.match import BasicRummyMatch
from rummy_env.core.meld_table import NUM_MELDS, extension, meld_table, melds_in_hand
from rummy_env.basic.rules import PRESETS, BasicRummyRules, load_rummy_rules

def meld(cards: str, aces_high: bool = False) -> int:
    return MELD + meld_table(aces_high).index[parse_hand(cards)]


def discard(card: str) -> int:
    return DISCARD + parse_card(card)


def layoff(slot: int, card: str) -> int:
    return LAYOFF + 52 * slot + parse_card(card)


# ----------------------------------------------------------------------------- meld table


def _is_meld(cards: list[int], aces_high: bool) -> bool:
    """Independent definition: 3-4 of a rank, or 3+ consecutive of a suit (no wrap)."""
    if len(cards) < 3:
        return False
    if len({c % 13 for c in cards}) == 1:
        return len(cards) <= 4
    if len({c // 13 for c in cards}) != 1:
        return False
    pos = sorted((c % 13 - 1) % 13 if aces_high else c % 13 for c in cards)
    return pos == list(range(pos[0], pos[0] + len(pos)))


@pytest.mark.parametrize("aces_high", [False, True])
def test_meld_table_holds_every_set_and_run_once(aces_high):
    t = meld_table(aces_high)
    assert len(t.masks) == NUM_MELDS == 65 + 264 and len(set(t.masks)) == NUM_MELDS
    for i, m in enumerate(t.masks):
        cards = [c for c in range(52) if m >> c & 1]
        assert _is_meld(cards, aces_high), (i, cards)
        assert t.is_run(i) == (len({c % 13 for c in cards}) > 1)
        assert t.index[m] == i
    qka, a23 = parse_hand("QS KS AS"), parse_hand("AS 2S 3S")
    assert (qka in t.index, a23 in t.index) == (aces_high, not aces_high)
    assert parse_hand("KS AS 2S") not in t.index  # never wraps


@pytest.mark.parametrize("aces_high", [False, True])
def test_melds_in_hand_and_extensions_equal_brute_force(aces_high, rng):
    t = meld_table(aces_high)
    for _ in range(400):
        size = int(rng.integers(0, 12))
        hand = sum(1 << int(c) for c in rng.choice(52, size, replace=False))
        brute = [i for i, m in enumerate(t.masks) if hand & m == m]
        assert melds_in_hand(hand, aces_high) == brute
    for i, m in enumerate(t.masks):  # a card extends a meld iff meld + card is a meld
        brute = sum(1 << c for c in range(52) if not m >> c & 1 and (m | 1 << c) in t.index)
        assert extension(m, t.is_run(i), aces_high) == brute


def test_action_names_and_values():
    assert action_name(DRAW_STOCK) == "draw stock" and action_name(TAKE_DISCARD) == "take discard"
    assert action_name(discard("7D")) == "discard 7D"
    assert action_name(meld("7C 7D 7H")) == "meld 7C 7D 7H"
    assert action_name(layoff(2, "4H")) == "lay off 4H on slot 2"
    assert NUM_ACTIONS == 2 + 52 + 329 + 17 * 52
    for bad in (-1, NUM_ACTIONS, 1.0, True):
        with pytest.raises(ValueError, match="integer in 0..1266"):
            action_name(bad)
    assert hand_value(parse_hand("AC 9D TH KS")) == 1 + 9 + 10 + 10


# ----------------------------------------------------------------------------- dealing


def test_deal_sizes_and_order():
    deck = list(range(52))
    s2 = BasicRummyState.from_deck(deck, 2)  # dealer 1: seat 0 gets the first 10
    assert [h.bit_count() for h in s2.hands] == [10, 10] and s2.hands[0] == (1 << 10) - 1
    assert s2.discard_pile == [20] and len(s2.stock) == 31 and s2.stock[-1] == 21
    s4 = BasicRummyState.from_deck(deck, 4, dealer=1)  # seat 2 (left of the dealer) first
    assert [h.bit_count() for h in s4.hands] == [7] * 4
    assert s4.hands[2] == (1 << 7) - 1 and s4.hands[1] == ((1 << 7) - 1) << 21
    assert s4.current_player == 2 and s4.discard_pile == [28] and len(s4.stock) == 23
    s3 = BasicRummyState.new_hand(3, seed=5)
    assert [h.bit_count() for h in s3.hands] == [7] * 3 and len(s3.stock) == 52 - 22
    assert BasicRummyState.new_hand(3, seed=5).deck == s3.deck


# ----------------------------------------------------------------------------- scripted hands


def play(s: BasicRummyState, *actions: int) -> BasicRummyState:
    for a in actions:
        s.step(a)
    return s


def test_rummy_going_out_in_one_turn_with_a_discard_doubles():
    # player_0: AC 2C 3C | 7D 7H 7S | 9S TS JS + KD; draws QS from the stock,
    # melds 9S-QS, 7D 7H 7S, AC-3C, discards KD: out in one turn with nothing melded
    # before = rummy. player_1 keeps 4C 5H 6H 8D 8C QD QH 2D 3S 4S:
    # 4 + 5 + 6 + 8 + 8 + 10 + 10 + 2 + 3 + 4 = 60, doubled = 120.
    s = BasicRummyState.from_hands(["AC 2C 3C 7D 7H 7S 9S TS JS KD", "4C 5H 6H 8D 8C QD QH 2D 3S 4S"], "5D", "QS")
    play(s, DRAW_STOCK, meld("9S TS JS QS"), meld("7D 7H 7S"), meld("AC 2C 3C"))
    assert s.hands[0] == parse_hand("KD") and not s.is_over
    s.step(discard("KD"))
    r = s.result
    assert (r.outcome, r.winner, r.points, r.penalties, r.rewards, r.with_discard) == ("rummy", 0, 120, (0, 120), (120, -120), True)
    assert s.is_over and s.legal_actions() == [] and r.finishing_order == [[0], [1]]


def test_rummy_multiplier_one_scores_single():
    rules = BasicRummyRules(rummy_multiplier=1)
    s = BasicRummyState.from_hands(["AC 2C 3C 7D 7H 7S 9S TS JS KD", "4C 5H 6H 8D 8C QD QH 2D 3S 4S"], "5D", "QS", rules=rules)
    play(s, DRAW_STOCK, meld("9S TS JS QS"), meld("7D 7H 7S"), meld("AC 2C 3C"), discard("KD"))
    assert (s.result.outcome, s.result.points) == ("rummy", 60)


def test_going_out_without_a_discard_after_an_earlier_meld():
    # player_0 melds AC-9C on turn 1 (holding TC, discards KD). player_1 draws 8S and
    # discards it. player_0 draws JC, lays off TC then JC onto the run: hand empty, out
    # without a discard, not rummy (melded on an earlier turn).
    # player_1: AH 3H 5H 7H 9H JH KH 2S 4S 6S = 1+3+5+7+9+10+10+2+4+6 = 57.
    s = BasicRummyState.from_hands(["AC 2C 3C 4C 5C 6C 7C 8C 9C KD", "AH 3H 5H 7H 9H JH KH 2S 4S 6S"], "QD", "TC 8S JC")
    play(s, DRAW_STOCK, meld("AC 2C 3C 4C 5C 6C 7C 8C 9C"), discard("KD"))
    play(s, DRAW_STOCK, discard("8S"))
    s.step(DRAW_STOCK)
    assert [a for a in s.legal_actions() if a >= LAYOFF] == [layoff(0, "TC")]  # JC fits only after TC
    play(s, layoff(0, "TC"), layoff(0, "JC"))
    r = s.result
    assert (r.outcome, r.winner, r.points, r.rewards, r.with_discard) == ("out", 0, 57, (57, -57), False)
    assert s.table[0].cards == parse_hand("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC") and s.table[0].owner == 0


def three_player_table() -> BasicRummyState:
    # dealer 2; player_0 melds AC 2C 3C and discards KS; player_1 draws 4C.
    return BasicRummyState.from_hands(
        ["AC 2C 3C 9D 9H KS QS", "5H 6H 7H 8H 2S 2D TC", "4D 4H 4S JC JD 8S 6C"], "KD", "QH 4C 9C 5C"
    )


def test_layoffs_need_a_meld_of_your_own_then_go_onto_any_meld():
    s = three_player_table()
    play(s, DRAW_STOCK, meld("AC 2C 3C"), discard("KS"))
    s.step(DRAW_STOCK)  # player_1 holds 4C, which fits player_0's run
    assert layoff(0, "4C") not in s.legal_actions()
    s.step(meld("5H 6H 7H 8H"))
    assert layoff(0, "4C") in s.legal_actions()
    play(s, layoff(0, "4C"), discard("TC"))
    assert s.table[0].cards == parse_hand("AC 2C 3C 4C") and s.played[1] == parse_hand("5H 6H 7H 8H 4C")
    assert s.hands[1] == parse_hand("2S 2D") and s.current_player == 2
    free = BasicRummyState.from_hands(
        ["AC 2C 3C 9D 9H KS QS", "5H 6H 7H 8H 2S 2D TC", "4D 4H 4S JC JD 8S 6C"], "KD", "QH 4C 9C 5C",
        rules=BasicRummyRules(layoff_needs_own_meld=False),
    )
    play(free, DRAW_STOCK, meld("AC 2C 3C"), discard("KS"), DRAW_STOCK)
    assert layoff(0, "4C") in free.legal_actions()


def test_the_taken_card_may_be_melded_and_laid_off_but_not_discarded():
    # player_0 melds AC 2C 3C (turn 1); player_1 draws 4C and discards it; player_2 takes
    # 4C, melds 4D 4H 4S, then lays off 4C onto player_0's run (allowed: it has a meld of
    # its own now); holding JC JD 8S 6C it cannot go out, so it discards 8S.
    s = three_player_table()
    play(s, DRAW_STOCK, meld("AC 2C 3C"), discard("KS"))  # player_0 holds 9D 9H QS QH
    play(s, DRAW_STOCK, discard("4C"))  # player_1 holds 5H 6H 7H 8H 2S 2D TC
    s.step(TAKE_DISCARD)
    assert discard("4C") not in s.legal_actions()  # the card just taken from the pile
    play(s, meld("4D 4H 4S"), layoff(0, "4C"))
    assert s.rummy_possible  # nothing of player_2's was on the table when the turn began
    # player_2 now holds JC JD 8S 6C and cannot go out: discard, the turn passes.
    s.step(discard("8S"))
    assert s.current_player == 0 and not s.rummy_possible and s.turn == 3


def test_rummy_via_a_layoff_onto_another_players_meld():
    # Three players, hand size 4 (option). player_0 melds 5H 6H 7H and discards KC.
    # player_1 draws 4S from the stock, discards it. player_2 holds 9D 9S 9C 8H and draws
    # 2D: melds 9D 9S 9C, lays off 8H onto player_0's run (5H-7H), discards 2D: out in one
    # turn with nothing on the table before -> rummy.
    # player_0 keeps AS (1); player_1 keeps QD JD TD KD (40): 41, doubled = 82.
    rules = BasicRummyRules(hand_size=4)
    s = BasicRummyState.from_hands(["5H 6H 7H KC", "QD JD TD KD", "9D 9S 9C 8H"], "3C", "AS 4S 2D", rules=rules)
    play(s, DRAW_STOCK, meld("5H 6H 7H"), discard("KC"))
    play(s, DRAW_STOCK, discard("4S"))
    play(s, DRAW_STOCK, meld("9D 9S 9C"), layoff(0, "8H"), discard("2D"))
    r = s.result
    assert (r.outcome, r.winner, r.points, r.penalties, r.rewards) == ("rummy", 2, 82, (2, 80, 0), (-2, -80, 82))
    assert r.finishing_order == [[2], [0], [1]]
    assert s.table[0].cards == parse_hand("5H 6H 7H 8H")


def test_the_taken_card_cannot_be_left_alone_in_hand():
    # Hand size 3: player_0 holds 5H 5D 5S and takes KC from the pile. Melding the three
    # fives would leave only KC, which may not be discarded and fits nowhere: illegal.
    rules = BasicRummyRules(hand_size=3)
    s = BasicRummyState.from_hands(["5H 5D 5S", "2C 3D 4S"], "KC", "", rules=rules)
    s.step(TAKE_DISCARD)
    assert s.legal_actions() == sorted(discard(c) for c in ("5H", "5D", "5S"))
    # Taking 5C instead: the four-set goes out at once; 5H 5D 5S leaves 5C, which can be
    # laid off onto that set (legal); the set without 5S leaves 5S to discard.
    s = BasicRummyState.from_hands(["5H 5D 5S", "2C 3D 4S"], "5C", "", rules=rules)
    s.step(TAKE_DISCARD)
    legal = s.legal_actions()
    assert {meld("5C 5D 5H 5S"), meld("5H 5D 5S"), meld("5C 5D 5H")} <= set(legal)
    assert discard("5C") not in legal
    play(s, meld("5H 5D 5S"), layoff(0, "5C"))
    assert (s.result.outcome, s.result.points, s.result.with_discard) == ("rummy", 2 * (2 + 3 + 4), False)


def test_a_final_discard_can_be_required():
    rules = BasicRummyRules(hand_size=3, go_out_without_discard=False)
    s = BasicRummyState.from_hands(["5H 5D 5S", "2C 3D 4S"], "5C", "", rules=rules)
    s.step(TAKE_DISCARD)
    legal = s.legal_actions()
    # Only the melds that leave a card other than 5C to discard.
    assert [a for a in legal if a >= MELD] == [meld(m) for m in ("5C 5H 5S", "5C 5D 5S", "5C 5D 5H")]
    play(s, meld("5C 5D 5H"), discard("5S"))
    assert (s.result.outcome, s.result.points, s.result.with_discard) == ("rummy", 18, True)


def _drawn(s: BasicRummyState, before: int) -> int:
    return (s.hands[s.current_player] & ~before).bit_length() - 1


def draw_and_throw(s: BasicRummyState, turns: int) -> None:
    """Each player draws from the stock and discards the card drawn."""
    for _ in range(turns):
        before = s.hands[s.current_player]
        s.step(DRAW_STOCK)
        s.step(DISCARD + _drawn(s, before))


def test_stock_turned_over_once_then_stalemate():
    # 4 players x 10 cards + upcard leave 11 cards in the stock.
    rules = BasicRummyRules(hand_size=10)
    s = BasicRummyState.new_hand(4, rules, seed=3)
    upcard = s.discard_pile[0]
    draw_and_throw(s, 10)
    assert len(s.stock) == 1 and s.turnovers == 0 and not s.stock_public
    pile = list(s.discard_pile)
    draw_and_throw(s, 1)  # the stock ran out: the pile but its top is turned over
    assert s.turnovers == 1 and s.stock_public and len(s.discard_pile) == 1
    assert s.stock[-1] == upcard and s.stock[::-1] == pile  # the first card discarded is the new top
    info = s.information_set(1)
    assert info.public_stock == tuple(pile) and info.stock_size == 11
    p = s.current_player
    s.step(DRAW_STOCK)  # a card from the turned-over stock is known to everybody
    assert s.known[p] == 1 << upcard and s.information_set((p + 1) % 4).known[p] == 1 << upcard
    s.step(DISCARD + upcard)
    draw_and_throw(s, 10)
    r = s.result
    assert s.is_over and (r.outcome, r.reason, r.points, r.rewards) == ("stalemate", "stock", 0, (0, 0, 0, 0))
    assert s.turn == 22


@pytest.mark.parametrize("turnovers, turns", [(0, 11), (2, 33)])
def test_stock_turnovers_option(turnovers, turns):
    s = BasicRummyState.new_hand(4, BasicRummyRules(hand_size=10, stock_turnovers=turnovers), seed=3)
    draw_and_throw(s, turns - 1)
    assert not s.is_over
    draw_and_throw(s, 1)
    assert s.result.reason == "stock" and s.turnovers == turnovers


def test_max_turns_is_a_stalemate():
    s = BasicRummyState.new_hand(2, BasicRummyRules(max_turns=5), seed=0)
    draw_and_throw(s, 4)
    assert not s.is_over
    draw_and_throw(s, 1)
    assert (s.result.outcome, s.result.reason) == ("stalemate", "max_turns")


def test_aces_high_runs():
    rules = BasicRummyRules(aces="high", hand_size=3)
    s = BasicRummyState.from_hands(["QS KS 4D", "2C 3D 4S"], "AS", "", rules=rules)
    s.step(TAKE_DISCARD)
    assert meld("QS KS AS", aces_high=True) in s.legal_actions()
    low = BasicRummyState.from_hands(["2S 3S 4D", "2C 3D 4H"], "AS", "", rules=BasicRummyRules(aces="high", hand_size=3))
    low.step(TAKE_DISCARD)
    assert [a for a in low.legal_actions() if a >= MELD] == []


def test_clone_is_independent():
    s = BasicRummyState.new_hand(3, seed=1)
    c = s.clone()
    c.step(DRAW_STOCK)
    assert s.phase == Phase.DRAW and s.history == [] and c.history == [(0, DRAW_STOCK)]
    assert s.hands != c.hands


# ----------------------------------------------------------------------------- match


def test_match_adds_hands_up_to_the_target_and_passes_the_deal_left():
    m = BasicRummyMatch.create(3, "basic", first_dealer=0)
    assert m.dealer == 0
    m.record(RummyHandResult("out", 1, 60, (30, 0, 30), (0, 0, 0)))
    assert m.dealer == 1 and m.totals == [0, 60, 0] and not m.is_over
    m.record(RummyHandResult("stalemate", None, 0, (0, 0, 0), (0, 0, 0), reason="stock"))
    m.record(RummyHandResult("rummy", 1, 40, (20, 0, 20), (0, 0, 0)))
    assert m.is_over and m.dealer == 0
    r = m.result()
    assert (r.winner, r.totals, r.hands_won, r.hands_played, r.stalemates) == (1, (0, 100, 0), (0, 2, 0), 3, 1)
    with pytest.raises(ValueError, match="match is over"):
        m.record(RummyHandResult("out", 0, 5, (0, 5, 0), (0, 0, 0)))
    with pytest.raises(ValueError, match="target_score > 0"):
        BasicRummyMatch.create(2, {"target_score": 0})


def test_a_match_new_hand_uses_the_rules_and_the_dealer():
    m = BasicRummyMatch.create(4, "basic_300", first_dealer=2)
    s = m.new_hand(np.random.default_rng(0))
    assert s.dealer == 2 and s.current_player == 3 and s.rules.target_score == 300


# ----------------------------------------------------------------------------- rules and errors


def test_presets_follow_the_spec():
    assert [PRESETS[n].target_score for n in ("basic", "basic_300", "basic_500")] == [100, 300, 500]
    b = PRESETS["basic"]
    assert b.rummy_multiplier == 2 and b.layoff_needs_own_meld and b.go_out_without_discard and b.stock_turnovers == 1
    assert [b.cards_per_hand(n) for n in (2, 3, 4)] == [10, 7, 7]
    assert load_rummy_rules({"preset": "basic_500", "aces": "high"}) == PRESETS["basic_500"].replace(aces="high")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"target_score": -1}, "target_score must be >= 0"),
        ({"rummy_multiplier": 0}, "rummy_multiplier must be >= 1"),
        ({"aces": "middle"}, "aces must be 'low' or 'high'"),
        ({"hand_size": 11}, "hand_size must be 0 .by player count. or 3..10"),
        ({"layoff_needs_own_meld": 1}, "layoff_needs_own_meld must be bool"),
        ({"max_turns": 0}, "max_turns must be >= 1"),
        ({"stock_turnovers": "1"}, "stock_turnovers must be an integer"),
    ],
)
def test_bad_options_name_the_problem(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        BasicRummyRules(**kwargs)


def test_bad_input_gets_clear_errors():
    with pytest.raises(ValueError, match="unknown Basic Rummy rule option.*knock_limit.*allowed: target_score"):
        load_rummy_rules({"knock_limit": 10})
    with pytest.raises(ValueError, match="use a preset .basic, basic_300, basic_500"):
        load_rummy_rules("classic")
    for n in (1, 5, "3", True, 2.0):
        with pytest.raises(ValueError, match="num_players must be an integer 2..4"):
            BasicRummyState.new_hand(n)
    with pytest.raises(ValueError, match="permutation of the 52"):
        BasicRummyState.from_deck(list(range(51)) + [0], 2)
    with pytest.raises(ValueError, match="dealer must be a seat 0..2"):
        BasicRummyState.from_deck(list(range(52)), 3, dealer=3)
    with pytest.raises(ValueError, match="each of 3 hands must have 7 cards"):
        BasicRummyState.from_hands(["AC 2C", "3C 4C", "5C 6C"], "7C")
    with pytest.raises(ValueError, match="named twice"):
        BasicRummyState.from_hands(["AC 2C 3C 4C 5C 6C 7C"] * 2 + ["8C 9C TC JC QC KC AD"], "2D")
    with pytest.raises(ValueError, match="player must be a seat 0..1"):
        BasicRummyState.new_hand(2, seed=0).information_set(2)


def test_illegal_actions_are_refused_naming_the_legal_ones():
    s = BasicRummyState.from_hands(["AC 2C 3C 7D 7H 7S 9S TS JS KD", "4C 5H 6H 8D 8C QD QH 2D 3S 4S"], "5D", "QS")
    with pytest.raises(IllegalActionError, match=r"illegal action 2 \(discard AC\).*phase DRAW; legal: 0 \(draw stock\), 1 \(take discard\)"):
        s.step(discard("AC"))
    for bad in (1.0, None, True, "0"):
        with pytest.raises(IllegalActionError, match="integer action id 0..1266"):
            s.step(bad)
    with pytest.raises(IllegalActionError, match="integer action id 0..1266"):
        s.step(NUM_ACTIONS)
    assert s.history == [] and s.phase == Phase.DRAW
    play(s, DRAW_STOCK, meld("9S TS JS QS"), meld("7D 7H 7S"), meld("AC 2C 3C"), discard("KD"))
    with pytest.raises(IllegalActionError, match="the hand is over"):
        s.step(DRAW_STOCK)


def test_render_hides_other_hands_from_a_perspective():
    s = BasicRummyState.from_hands(["AC 2C 3C 7D 7H 7S 9S TS JS KD", "4C 5H 6H 8D 8C QD QH 2D 3S 4S"], "5D", "QS")
    play(s, DRAW_STOCK, meld("AC 2C 3C"))
    mine, theirs = s.render(perspective=0), s.render(perspective=1)
    assert "[10 cards]" in mine and "[8 cards]" in theirs and "table 0 (player_0)" in theirs
    assert mine.split("\n")[-1].startswith("turn 0, player_0 to play: discard")
    assert theirs.split("\n")[-1] == "turn 0, player_0 to play"  # its legal moves would show its cards
    assert "[" not in s.render()


def test_golden_game_replays_identically():
    """tests/data/rummy_golden_game.json (written by tests/data/make_rummy_golden.py), checked
    by hand: 3 players; player_1 melds TH-KH and later lays 4H on player_2's AH 2H 3H;
    player_0 melds JD QD KD; player_2 melds AC 2C 3C, lays TD on player_0's diamonds and
    goes out discarding 3D (not rummy: AH 2H 3H came on an earlier turn). Left:
    player_0 KC AD 5S QS = 10 + 1 + 5 + 10 = 26, player_1 8D 9D = 17; 26 + 17 = 43."""
    import json

    from data.make_rummy_golden import observation_digest

    record = json.loads((Path(__file__).resolve().parents[1] / "data" / "rummy_golden_game.json").read_text())
    s = BasicRummyState.from_deck(record["deck"], record["num_players"], record["rules"], record["dealer"])
    play(s, *record["actions"])
    assert s.is_over and s.result.to_dict() == record["result"]
    r = s.result
    assert (r.outcome, r.winner, r.points, r.penalties, r.with_discard) == ("out", 2, 43, (26, 17, 0), True)
    assert s.hands[0] == parse_hand("KC AD 5S QS") and s.hands[1] == parse_hand("8D 9D")
    assert s.history[-1] == (2, discard("3D"))
    assert observation_digest(record["deck"], record["dealer"], record["actions"]) == record["observation_sha256"]
