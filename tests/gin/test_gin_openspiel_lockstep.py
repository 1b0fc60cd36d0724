"""The ``openspiel`` preset against OpenSpiel's ``gin_rummy`` itself (rummy_env/gin/openspiel.py):
the same deals played move for move in both engines agree at every decision (hands,
discard pile, stock size, player to move, legal moves) and on every hand's returns: the
wall, the card taken and thrown back, and the cap on upcard draws included. The one
difference left is OpenSpiel's 11-card deadwood bug (``KNOWN_DIFFERENCES``), shown to
occur. Skipped where open_spiel is not installed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="open_spiel is not installed: pip install 'rummy-env[openspiel]'")

from rummy_env.core.cards import parse_card, parse_hand  # noqa: E402
from rummy_env.gin import openspiel  # noqa: E402
from rummy_env.gin.game import DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, Phase  # noqa: E402
from rummy_env.gin.openspiel import (  # noqa: E402
    DRAW_UPCARD, KNOWN_DIFFERENCES, OS_KNOCK, OS_PASS, Lockstep, play_scripted as play, to_openspiel,
)
from test_gin_openspiel_rules import WALL_DECK, wall_actions  # noqa: E402


def wall_knock(ls: Lockstep) -> bool:
    """Whether the hand ended in a knock right after a take at the wall."""
    s = ls.state
    return s.result.outcome != "draw" and len(s.stock) <= 2 and s.history[-2] == TAKE_DISCARD


@pytest.mark.parametrize("rules", ["openspiel", {"preset": "openspiel", "oklahoma": True},
                                   {"preset": "openspiel", "knock_limit": 5, "gin_bonus": 20, "undercut_bonus": 10}])
def test_the_same_deals_agree_move_for_move(rules):
    rng = np.random.default_rng(7)
    total: dict[str, int] = {}
    ends: dict[str, int] = {}
    compared = 0
    for h in range(300):
        style = [dict(knock=0.3), dict(knock=0.3, take=0.5, throw_back=0.3), dict(knock=0.5, take=0.0),
                 dict(knock=0.0, take=1.0, throw_back=0.0)][h % 4]
        seen, ls = play(rng.permutation(52).tolist(), rng, rules=rules, **style)
        assert set(seen) <= set(KNOWN_DIFFERENCES), seen  # hands, pile, stock, player and legal moves agree
        for kind, n in seen.items():
            total[kind] = total.get(kind, 0) + n
        compared += ls.compared
        returns = ls.returns()
        assert returns is not None and returns[0] == returns[1], (ls.state.result, returns)  # both over, alike
        r = ls.state.result
        end = "wall knock" if wall_knock(ls) else r.reason or r.outcome
        ends[end] = ends.get(end, 0) + 1
    assert compared > 10000
    assert all(ends.get(k, 0) > 0 for k in ("knock", "wall", "wall knock", "repeated", "upcard_draws")), str(ends)
    assert ends.get("undercut", 0) + ends.get("gin", 0) > 0, str(ends)


def test_the_wall_take_and_knock_scores_alike():
    # both pass the upcard and play on (a few takes among the stock draws) until player_0
    # draws the last stock card but two and player_1 discards 5C; at the wall player_0 holds
    # 3C 4C AD 4D 5D 6D 2H 2S 3S 5S, takes 5C (OpenSpiel's knock) and puts 5S face down:
    # 3C 4C 5C and 4D 5D 6D leave AD 2H 2S 3S = 1 + 2 + 2 + 3 = 8. Player_1 holds
    # AC 2C 2D 3D 3H 4H 5H 6H AS 4S: it lays off AC 2C (onto 3C 4C 5C) and 2D 3D (onto
    # 4D 5D 6D), melds 3H 4H 5H 6H and keeps AS 4S = 5 < 8: an undercut, 8 - 5 + 25 = 28
    # to player_1
    ls = Lockstep(WALL_DECK)
    for action in wall_actions():
        assert ls.differences() == {}
        ls.step(action)
    s = ls.state
    assert (s.phase, s.current_player, len(s.stock), s.discard_pile[-1]) == (Phase.DRAW, 0, 2, parse_card("5C"))
    assert s.legal_actions() == [TAKE_DISCARD, PASS] and ls.os_state.legal_actions() == [OS_PASS, OS_KNOCK]
    assert ls.differences() == {}
    ls.step(TAKE_DISCARD)
    assert s.legal_actions() == [KNOCK + parse_card("3S"), KNOCK + parse_card("5S")]  # knocks only
    assert ls.differences() == {}  # OpenSpiel's choice of the face-down card: the same two
    ls.step(KNOCK + parse_card("5S"))
    assert (s.result.outcome, s.result.knocker_deadwood, s.result.defender_deadwood) == ("undercut", 8, 5)
    assert ls.returns() == ((-28.0, 28.0), (-28.0, 28.0))


def deck_of(non_dealer: str, dealer: str, upcard: str, stock: str = "") -> list[int]:
    """A deck (ours) dealing these cards; the cards not named go under ``stock`` in id order."""
    named = ids(non_dealer) + ids(dealer) + [parse_card(upcard)] + ids(stock)
    return named + [c for c in range(52) if c not in named]


def ids(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def test_a_card_taken_and_thrown_back_by_both_players_in_a_row_draws_the_hand():
    deck = deck_of("2C 5C 8C JC 3D 6D 9D QD 4H 7H", "AC 4C 7C TC 2D 5D 8D JD 3H 6H", "KS", "KH QH")
    ls = Lockstep(deck)
    ls.step(TAKE_DISCARD)  # the non-dealer takes the upcard KS and throws it back
    assert DISCARD + parse_card("KS") in ls.state.legal_actions() and ls.differences() == {}
    ls.step(DISCARD + parse_card("KS"))
    assert ls.state.repeated and ls.differences() == {}
    ls.step(DRAW_STOCK)  # the dealer draws KH instead and throws it: the guard is reset
    ls.step(DISCARD + parse_card("KH"))
    assert not ls.state.repeated
    for seat in (0, 1):  # now each in turn takes KH and throws it back
        assert ls.differences() == {} and ls.state.current_player == seat
        ls.step(TAKE_DISCARD)
        ls.step(DISCARD + parse_card("KH"))
    assert ls.state.is_over and ls.state.result.reason == "repeated" and ls.os_state.is_terminal()
    assert ls.returns() == ((0.0, 0.0), (0.0, 0.0))


def test_a_knock_with_the_card_just_taken():
    # 2C 3C 4C, 5D 6D 7D and 8H 9H TH leave AS (1); the upcard KS is taken and knocked with
    deck = deck_of("2C 3C 4C 5D 6D 7D 8H 9H TH AS", "AC 5C 8C JC 2D 9D QD 3H 6H 2S", "KS")
    ls = Lockstep(deck)
    ls.step(TAKE_DISCARD)
    assert KNOCK + parse_card("KS") in ls.state.legal_actions() and ls.differences() == {}
    ls.step(KNOCK + parse_card("KS"))
    r = ls.state.result
    assert (r.outcome, r.knocker, r.knocker_deadwood) == ("knock", 0, 1)
    assert ls.returns()[0] == ls.returns()[1] == (r.points, -r.points)


def test_the_50th_draw_of_the_upcard_draws_the_hand_in_both():
    deck = np.random.default_rng(11).permutation(52).tolist()
    ls = Lockstep(deck)
    ls.step(TAKE_DISCARD)  # the offer's take does not count
    draws = 0
    while not ls.state.is_over:
        assert ls.differences() == {}
        s = ls.state
        if s.phase == Phase.DRAW:
            draws += 1
            ls.step(TAKE_DISCARD)
        else:  # any card but the one just taken (never a throw-back)
            ls.step(next(a for a in s.legal_actions() if a < KNOCK and a != DISCARD + s.taken_card))
    assert draws == 50 and ls.state.upcard_draws == 50 and ls.state.result.reason == "upcard_draws"
    assert ls.os_state.is_terminal() and ls.returns() == ((0.0, 0.0), (0.0, 0.0))
    assert DRAW_UPCARD == 52 and to_openspiel(0) == 13  # the mapping the test reads: ace of clubs is OpenSpiel's 13


def test_melds_longer_than_openspiels_runs_are_laid_in_pieces():
    assert openspiel.meld_pieces(parse_hand("AH 2H 3H 4H 5H 6H 7H"), True) == [parse_hand_ids("AH 2H 3H 4H"),
                                                                           parse_hand_ids("5H 6H 7H")]
    assert [len(p) for p in openspiel.meld_pieces(parse_hand("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"), True)] == [5, 5, 3]
    assert [len(p) for p in openspiel.meld_pieces(parse_hand("AS 2S 3S 4S 5S 6S"), True)] == [3, 3]
    assert openspiel.meld_pieces(parse_hand("7C 7D 7H 7S"), False) == [parse_hand_ids("7C 7D 7H 7S")]


def parse_hand_ids(text: str) -> list[int]:
    mask = parse_hand(text)
    return [c for c in range(52) if mask >> c & 1]


def test_rules_openspiel_cannot_play_are_refused():
    for rules, word in (("classic", "big_gin_bonus"), ({"preset": "openspiel", "aces": "high"}, "aces: high"),
                        ({"preset": "openspiel", "five_under_ten": True}, "five_under_ten"),
                        ({"preset": "openspiel", "wall_knock": False}, "wall_knock: false"),
                        ({"preset": "openspiel", "discard_taken_card": False}, "discard_taken_card: false"),
                        ({"preset": "openspiel", "max_upcard_draws": 0}, "max_upcard_draws: 0")):
        with pytest.raises(ValueError, match=f"OpenSpiel's gin_rummy has no .*{word}"):
            openspiel.openspiel_game(rules)
    assert Lockstep(list(range(52))).differences() == {}  # a fresh deal agrees
    assert DISCARD == 3  # the action layout the mapping assumes


def test_openspiels_11_card_deadwood_bug_is_listed_and_shown():
    # 4D 5D 6D and 4S 5S 6S leave 2C 4C 3H 6H AS (16): 10 after discarding 6H, a knock
    # within 10; the sets 4C 4D 4S and 6D 6H 6S also leave 16, but 11 after their best
    # discard, and OpenSpiel's least deadwood of 11 cards takes that group
    from rummy_env.core import melds

    hand = parse_hand_ids("2C 4C 4D 5D 6D 3H 6H AS 4S 5S")
    rest = [c for c in range(52) if c not in hand and c != parse_hand_ids("6S")[0]]
    deck = hand + rest[:10] + [rest[10]] + parse_hand_ids("6S") + rest[11:]
    ls = Lockstep(deck)
    for action in (PASS, PASS, DRAW_STOCK):
        assert ls.differences() == {}
        ls.step(action)
    assert min(v for v in melds.discard_deadwood(ls.state.hands[0]) if v >= 0) == 10
    assert ls.differences() == {"11-card deadwood": (11, 10)}  # it refuses the knock we allow
    assert set(KNOWN_DIFFERENCES) == {"11-card deadwood"}
