"""Match totals worked out by hand (docs/games/gin/rules.md, the match to 100)."""

from __future__ import annotations

import pytest

from rummy_env.gin.game import DRAW_STOCK, KNOCK, PASS, GinRummyState, HandResult
from rummy_env.core.cards import parse_card
from rummy_env.gin.match import Match
from rummy_env.gin.rules import Rules


def won(player: int, points: int, outcome: str = "knock") -> HandResult:
    return HandResult(outcome=outcome, winner=player, points=points)


def drawn(reason: str = "wall") -> HandResult:
    return HandResult(outcome="draw", winner=None, points=0, reason=reason)


def play(m: Match, *results: HandResult) -> Match:
    for r in results:
        m.record(r)
    return m


def test_match_goes_on_below_target_and_ends_at_exactly_100():
    m = play(Match.create("classic"), won(0, 60), won(1, 30), won(0, 39))
    assert not m.is_over and m.hand_points == [99, 30]
    with pytest.raises(ValueError):
        m.result()
    m.record(won(0, 1))  # 100: the target is reached (>=)
    assert m.is_over
    assert m.result().target_reached_by == 0


def test_game_and_line_bonus():
    # P0 wins 60 and 45, P1 wins 30: totals 105 / 30, hands won 2 / 1
    # P0: 105 + game 100 + line 2 x 25 = 255;  P1: 30 + line 1 x 25 = 55
    r = play(Match.create(), won(0, 60), won(1, 30), won(0, 45)).result()
    assert r.hand_points == (105, 30) and r.hands_won == (2, 1)
    assert r.game_bonus == (100, 0)
    assert r.line_bonus == (50, 25)
    assert r.shutout is False and r.shutout_extra == (0, 0)
    assert r.grand_total == (255, 55)
    assert r.winner == 0 and r.target_reached_by == 0


def test_shutout_doubles_hand_points():
    # P1 wins all three hands (40 + 30 + 35 = 105), no draws: shutout.
    # P1: 105 doubled = 210, + game 100 + line 3 x 25 = 385; P0: 0
    r = play(Match.create(), won(1, 40, "gin"), won(1, 30), won(1, 35, "undercut")).result()
    assert r.shutout is True
    assert r.shutout_extra == (0, 105)
    assert r.game_bonus == (0, 100) and r.line_bonus == (0, 75)
    assert r.grand_total == (0, 385)
    assert r.winner == 1 and r.target_reached_by == 1


def test_no_shutout_when_a_hand_was_drawn():
    # same hands with a wall draw in between: no doubling. P1: 105 + 100 + 75 = 280
    r = play(Match.create(), won(1, 40), drawn(), won(1, 30), won(1, 35)).result()
    assert r.shutout is False and r.shutout_extra == (0, 0)
    assert r.grand_total == (0, 280)


def test_no_shutout_after_a_tie_hand():
    # a 'tie' (undercut_on_tie off) is a hand the match winner did not win
    tie = HandResult(outcome="tie", winner=None, points=0)
    r = play(Match.create(), won(1, 40), tie, won(1, 60)).result()
    assert r.shutout is False
    assert r.grand_total == (0, 100 + 100 + 50)


def test_no_shutout_when_loser_won_a_hand():
    # P0 wins 10, P1 wins 100. P0: 10 + 25 = 35; P1: 100 + 100 + 25 = 225 (not doubled)
    r = play(Match.create(), won(0, 10), won(1, 100)).result()
    assert r.shutout is False and r.shutout_extra == (0, 0)
    assert r.line_bonus == (25, 25)
    assert r.grand_total == (35, 225)
    assert r.winner == 1


def test_match_winner_is_higher_grand_total_not_who_reached_target():
    # P1 wins nine hands of 10 (90), then P0 one hand of 100 and reaches the target.
    # P0: 100 + 100 + 25 = 225;  P1: 90 + 9 x 25 = 315 -> P1 wins the match
    m = play(Match.create(), *[won(1, 10)] * 9)
    assert not m.is_over
    r = play(m, won(0, 100)).result()
    assert r.target_reached_by == 0
    assert r.grand_total == (225, 315)
    assert r.winner == 1


def test_equal_grand_totals_have_no_winner():
    # P1 wins six hands: 5 x 12 + 15 = 75, line 150 -> 225
    # P0 wins one hand of 100: 100 + 100 + 25 = 225
    m = play(Match.create(), *[won(1, 12)] * 5, won(1, 15), won(0, 100))
    r = m.result()
    assert r.grand_total == (225, 225)
    assert r.winner is None


def test_eaai_has_no_bonuses():
    # eaai: no game, line or shutout bonus. P0 wins 50 + 50 (a would-be shutout): 100 / 0
    r = play(Match.create("eaai"), won(0, 50), won(0, 50)).result()
    assert r.game_bonus == (0, 0) and r.line_bonus == (0, 0)
    assert r.shutout is False and r.shutout_extra == (0, 0)
    assert r.grand_total == (100, 0)
    assert r.winner == 0


def test_custom_target_and_bonuses():
    # target 50, game 20, line 5, no shutout: P0 wins 30 + 25 = 55 -> 55 + 20 + 2 x 5 = 85
    rules = Rules(target_score=50, game_bonus=20, line_bonus=5, shutout=False)
    m = play(Match.create(rules), won(0, 30))
    assert not m.is_over
    r = play(m, won(0, 25)).result()
    assert r.shutout is False
    assert r.grand_total == (85, 0)


@pytest.mark.parametrize("first", [0, 1])
def test_dealer_alternates_every_hand_including_draws(first):
    m = Match.create(first_dealer=first)
    seen = [m.dealer]
    for r in (won(0, 10), drawn(), won(1, 5), drawn("max_turns")):
        m.record(r)
        seen.append(m.dealer)
    assert seen == [first, 1 - first, first, 1 - first, first]
    s = m.new_hand(seed=3)
    assert s.dealer == m.dealer and s.current_player == 1 - m.dealer


def test_no_recording_after_the_match_is_over():
    m = play(Match.create(), won(0, 120))
    assert m.is_over
    with pytest.raises(ValueError):
        m.record(won(1, 10))
    with pytest.raises(ValueError):
        m.new_hand(seed=0)
    assert m.hand_points == [120, 0] and m.hands_played == 1


@pytest.mark.parametrize("rules", ["openspiel", Rules(target_score=0)])
def test_no_match_with_target_score_zero(rules):
    with pytest.raises(ValueError):
        Match.create(rules)


def test_bad_first_dealer():
    with pytest.raises(ValueError):
        Match.create(first_dealer=2)


def test_record_a_played_hand():
    # the worked example: knocker AC 2C 3C | 4D 5D 6D | 7H 8H 9H | 3S (K = 3) against
    # 5C 6C 7C | QD QH QS | 2D 4H 5S TS (D = 21): player_0 scores 18
    m = Match.create()
    assert m.dealer == 1
    s = GinRummyState.from_hands(
        "AC 2C 3C 4D 5D 6D 7H 8H 9H 3S", "5C 6C 7C QD QH QS 2D 4H 5S TS", "KH", "KS", rules=m.rules, dealer=m.dealer
    )
    for a in (PASS, PASS, DRAW_STOCK, KNOCK + parse_card("KS")):
        s.step(a)
    m.record(s.result)
    assert m.hand_points == [18, 0] and m.hands_won == [1, 0]
    assert m.dealer == 0 and not m.is_over
