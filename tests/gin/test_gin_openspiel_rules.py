"""The rule options that make the ``openspiel`` preset OpenSpiel's game, in the pure game:
``wall_knock`` (at the wall the next player may take the discard only to knock),
``discard_taken_card`` (the card just taken may go straight back, or face down; a card
thrown back by both players in a row draws the hand) and ``max_upcard_draws`` (the Nth
take of the top discard draws the hand). Scripted hands with scores worked by hand, and
the ``classic`` and ``eaai`` rules unchanged (every option off by default)."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env import gin_rummy_v0
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, mask_to_cards, parse_card, parse_hand
from rummy_env.gin.game import (
    BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState, Phase, public_repeated,
    public_upcard_draws,
)
from rummy_env.gin.rules import PRESETS, Rules, load_rules
from rummy_env.gin.text import explain

# the moves of a hand (deck ``numpy.random.default_rng(6690000).permutation(52)``, dealer
# seat 1) that leave player_0 at the wall with 5C on offer (tests/gin/test_gin_openspiel_lockstep.py
# plays it in OpenSpiel too)
WALL_DECK = np.random.default_rng(6690000).permutation(52).tolist()
WALL_EXAMPLE = ("pass, pass, draw, discard TH, draw, discard QD, draw, discard 9H, draw, discard KD, draw, discard 8C, "
                "draw, discard QH, draw, discard JC, draw, discard TS, draw, discard 8D, draw, discard KS, draw, "
                "discard 8H, draw, discard 9S, draw, discard 7C, draw, discard JD, draw, discard 7D, take, discard 7S, "
                "take, discard 7H, draw, discard 7D, draw, discard 7S, draw, discard 9D, draw, discard TD, draw, "
                "discard TC, draw, discard JS, draw, discard 8S, draw, discard 9C, draw, discard QS, draw, discard JH, "
                "draw, discard QC, draw, discard 6H, take, discard 6S, draw, discard 6C, draw, discard 5C")


def action_of(name: str) -> int:
    simple = {"pass": PASS, "draw": DRAW_STOCK, "take": TAKE_DISCARD}
    if name in simple:
        return simple[name]
    verb, card = name.split()
    return (DISCARD if verb == "discard" else KNOCK) + parse_card(card)


def wall_actions() -> list[int]:
    return [action_of(name.strip()) for name in WALL_EXAMPLE.split(",")]


def played(rules, actions, deck=WALL_DECK, dealer: int = 1) -> GinRummyState:
    s = GinRummyState.from_deck(deck, rules, dealer)
    for a in actions:
        s.step(a)
    return s


def test_the_options_are_off_by_default_and_on_in_the_openspiel_preset():
    for name in ("classic", "eaai"):
        r = PRESETS[name]
        assert (r.wall_knock, r.discard_taken_card, r.max_upcard_draws) == (False, False, 0)
    r = PRESETS["openspiel"]
    assert (r.wall_knock, r.discard_taken_card, r.max_upcard_draws) == (True, True, 50)
    with pytest.raises(ValueError, match="max_upcard_draws must be >= 0"):
        Rules(max_upcard_draws=-1)
    with pytest.raises(TypeError, match="wall_knock must be bool"):
        Rules(wall_knock=1)


def test_at_the_wall_the_discard_is_taken_to_knock_and_scored_as_worked_by_hand():
    s = played("openspiel", wall_actions())
    # player_1 drew the stock down to 2 cards and discarded 5C: the wall
    assert (s.phase, s.current_player, len(s.stock), s.discard_pile[-1]) == (Phase.DRAW, 0, 2, parse_card("5C"))
    assert s.at_wall and s.legal_actions() == [TAKE_DISCARD, PASS]
    assert s.hands[0] == parse_hand("3C 4C AD 4D 5D 6D 2H 2S 3S 5S")
    s.step(TAKE_DISCARD)
    # with 5C: 3C 4C 5C and 4D 5D 6D melded, AD 2H 2S 3S 5S left: 5S face down keeps
    # 1 + 2 + 2 + 3 = 8, 3S keeps 10; no face-up discard now, only these knocks
    assert s.legal_actions() == [KNOCK + parse_card("3S"), KNOCK + parse_card("5S")]
    s.step(KNOCK + parse_card("5S"))
    # player_1 holds AC 2C 2D 3D 3H 4H 5H 6H AS 4S: it lays off AC 2C onto 3C 4C 5C and
    # 2D 3D onto 4D 5D 6D, melds 3H 4H 5H 6H and keeps AS 4S = 5: below 8, an undercut,
    # 8 - 5 + 25 = 28 to player_1 (OpenSpiel scores it -28 / +28 too)
    r = s.result
    assert (r.outcome, r.winner, r.points, r.knocker_deadwood, r.defender_deadwood) == ("undercut", 1, 28, 8, 5)
    assert r.rewards == (-28, 28)
    assert sorted(c for c, _ in r.layoffs) == sorted(mask_to_cards(parse_hand("AC 2C 2D 3D")))


def test_the_wall_through_the_env_as_openspiel_deals_it():
    env = gin_rummy_v0.env(rules="openspiel")
    env.reset(options={"deck": WALL_DECK, "dealer": 1})
    for action in wall_actions() + [TAKE_DISCARD, KNOCK + parse_card("5S")]:
        obs, _, _, _, _ = env.last()
        assert obs["action_mask"][action] == 1
        env.step(action)
    assert [env.rewards[a] for a in env.possible_agents] == [-28, 28]


def test_a_pass_at_the_wall_draws_the_hand():
    s = played("openspiel", wall_actions() + [PASS])
    r = s.result
    assert (r.outcome, r.reason, r.winner, r.rewards) == ("draw", "wall", None, (0, 0))
    assert s.passed[0] >> parse_card("5C") & 1 and s.public_history[-1] == (0, "pass", parse_card("5C"))
    assert explain(r.to_dict()) == "the hand is a draw (the stock ran down to two cards): no points"


def test_without_wall_knock_the_discard_at_the_wall_draws_the_hand():
    actions = wall_actions()
    s = played({"preset": "openspiel", "wall_knock": False}, actions)
    assert s.is_over and s.result.reason == "wall" and s.history == actions
    s = played("classic", actions)  # the same moves are legal under classic: no take was thrown back
    assert s.is_over and s.result.reason == "wall"


def test_the_wall_take_is_legal_only_when_a_knock_would_follow():
    # knock limit 5: the best knock after taking 5C keeps 8: player_0 may only pass
    s = played({"preset": "openspiel", "knock_limit": 5}, wall_actions())
    assert s.at_wall and s.legal_actions() == [PASS]
    # deadwood AS 4S (5) in the hand; KS on offer: only KS itself may go face down
    # (10 cards keeping AS 4S), any other card leaves KS and more than 10
    for taken_ok, legal in ((True, [TAKE_DISCARD, PASS]), (False, [PASS])):
        s = at_the_wall("2C 3C 4C 5C 5D 6D 7D 8D AS 4S", "KS", {"preset": "openspiel", "discard_taken_card": taken_ok})
        assert s.legal_actions() == legal, taken_ok
    s = at_the_wall("2C 3C 4C 5C 5D 6D 7D 8D AS 4S", "KS", "openspiel")
    s.step(TAKE_DISCARD)
    assert s.legal_actions() == [KNOCK + parse_card("KS")]  # knocking with the card just taken
    s.step(KNOCK + parse_card("KS"))
    assert s.result.knocker_deadwood == 5
    # Big Gin at the wall: 10H completes 7H-JH; the Big Gin is legal after the take, with Gin
    s = at_the_wall("2C 3C 4C 5D 6D 7D 7H 8H 9H JH", "TH", {"wall_knock": True})
    s.step(TAKE_DISCARD)
    assert BIG_GIN in s.legal_actions() and not any(DISCARD <= a < KNOCK for a in s.legal_actions())


def at_the_wall(hand: str, top: str, rules) -> GinRummyState:
    """player_0 (10 cards ``hand``) at the wall with ``top`` on offer: the stock at 2, the
    other cards shared between player_1 and the discard pile."""
    mine, up = parse_hand(hand), parse_card(top)
    rest = [c for c in range(NUM_CARDS) if not mine >> c & 1 and c != up]
    state = GinRummyState(rules=load_rules(rules), hands=[mine, sum(1 << c for c in rest[:10])], stock=rest[10:12],
                          discard_pile=rest[12:] + [up], dealer=1, knock_limit=load_rules(rules).knock_limit,
                          current_player=0, phase=Phase.DRAW, turn=29)
    return state


DEAL = ("2C 5C 8C JC 3D 6D 9D QD 4H 7H", "AC 4C 7C TC 2D 5D 8D JD 3H 6H", "KS", "KH QH")  # nothing melds


def test_the_card_taken_may_be_discarded_or_knocked_with_only_with_the_option():
    s = GinRummyState.from_hands(*DEAL, rules="openspiel")
    s.step(TAKE_DISCARD)
    assert DISCARD + parse_card("KS") in s.legal_actions()
    s = GinRummyState.from_hands(*DEAL, rules="classic")
    s.step(TAKE_DISCARD)
    assert DISCARD + parse_card("KS") not in s.legal_actions()
    # 2C 3C 4C, 5D 6D 7D and 8H 9H TH leave AS (1); the upcard KS taken and knocked with:
    # the defender lays off AC and 5C onto 2C 3C 4C and keeps 8C JC 2D 9D QD 3H 6H 2S =
    # 8 + 10 + 2 + 9 + 10 + 3 + 6 + 2 = 50: 50 - 1 = 49 to the knocker
    hands = ("2C 3C 4C 5D 6D 7D 8H 9H TH AS", "AC 5C 8C JC 2D 9D QD 3H 6H 2S", "KS", "")
    s = GinRummyState.from_hands(*hands, rules="openspiel")
    s.step(TAKE_DISCARD)
    assert {KNOCK + parse_card("KS"), KNOCK + parse_card("AS")} <= set(s.legal_actions())
    s.step(KNOCK + parse_card("KS"))
    assert (s.result.outcome, s.result.points, s.result.knocker_deadwood, s.result.defender_deadwood) == ("knock", 49, 1, 50)
    s = GinRummyState.from_hands(*hands, rules="classic")
    s.step(TAKE_DISCARD)
    assert KNOCK + parse_card("KS") not in s.legal_actions() and KNOCK + parse_card("AS") in s.legal_actions()


def test_a_card_taken_and_thrown_back_by_both_players_in_a_row_draws_the_hand():
    ks, kh = parse_card("KS"), parse_card("KH")
    s = GinRummyState.from_hands(*DEAL, rules="openspiel")
    s.step(TAKE_DISCARD)  # the non-dealer takes the upcard KS and throws it back
    s.step(DISCARD + ks)
    assert s.repeated and not s.is_over
    s.step(DRAW_STOCK)  # the dealer draws KH and throws it: the guard starts again
    s.step(DISCARD + kh)
    assert not s.repeated
    s.step(TAKE_DISCARD)  # the non-dealer takes KH back and throws it back
    s.step(DISCARD + kh)
    assert s.repeated and not s.is_over
    s.step(TAKE_DISCARD)  # and so does the dealer: drawn
    s.step(DISCARD + kh)
    r = s.result
    assert (r.outcome, r.reason, r.rewards) == ("draw", "repeated", (0, 0))
    assert explain(r.to_dict()) == "the hand is a draw (a card taken and thrown back twice in a row): no points"
    # the option alone: the same hand
    s = GinRummyState.from_hands(*DEAL, rules={"discard_taken_card": True})
    for a in (TAKE_DISCARD, DISCARD + ks, TAKE_DISCARD, DISCARD + ks):
        s.step(a)
    assert s.result.reason == "repeated"


def test_the_nth_draw_of_the_top_discard_draws_the_hand():
    s = GinRummyState.from_hands(*DEAL, rules={"max_upcard_draws": 3})
    s.step(TAKE_DISCARD)  # the offer: not counted
    s.step(DISCARD + parse_card("2C"))
    for n, card in ((1, "AC"), (2, "5C")):  # takes 1 and 2 of the draw phase
        s.step(TAKE_DISCARD)
        assert s.upcard_draws == n
        s.step(DISCARD + parse_card(card))
    hand, pile = s.hands[s.current_player], list(s.discard_pile)
    s.step(TAKE_DISCARD)  # the 3rd: drawn, and the card stays on the pile
    assert (s.result.outcome, s.result.reason, s.upcard_draws) == ("draw", "upcard_draws", 3)
    assert s.hands[s.current_player] == hand and s.discard_pile == pile
    assert explain(s.result.to_dict()) == "the hand is a draw (too many draws of the upcard): no points"
    # without the offer the first turn's take counts
    s = GinRummyState.from_hands(*DEAL, rules={"max_upcard_draws": 1, "first_upcard_pass": False})
    s.step(TAKE_DISCARD)
    assert s.result.reason == "upcard_draws"
    # the take at the wall does not count
    s = at_the_wall("2C 3C 4C 5C 5D 6D 7D 8D AS 4S", "KS", "openspiel")
    s.upcard_draws = 49
    s.step(TAKE_DISCARD)
    assert not s.is_over and s.upcard_draws == 49


def old_legal(s: GinRummyState) -> list[int]:
    """The legal moves before these options existed (the rules of classic and eaai)."""
    if s.phase == Phase.OFFER:
        return [TAKE_DISCARD, PASS]
    if s.phase == Phase.DRAW:
        return [DRAW_STOCK] if s.must_draw_stock or not s.discard_pile else [DRAW_STOCK, TAKE_DISCARD]
    if s.phase == Phase.OVER:
        return []
    hand = s.hands[s.current_player]
    after = melds.discard_deadwood(hand, aces_high=s.rules.aces_high, five_under_ten=s.rules.five_under_ten)
    cards = [c for c in mask_to_cards(hand) if c != s.taken_card]
    out = [DISCARD + c for c in cards] + [KNOCK + c for c in cards if after[c] <= s.knock_limit]
    if s.rules.big_gin and min(v for v in after if v >= 0) == 0 and melds.min_deadwood(hand) == 0:
        out.append(BIG_GIN)
    return out


@pytest.mark.parametrize("preset", ["classic", "eaai"])
def test_classic_and_eaai_play_as_before(preset):
    rng = np.random.default_rng(12)
    ends = set()
    for seed in range(60):
        s = GinRummyState.new_hand(preset, seed=seed)
        while not s.is_over:
            assert s.legal_actions() == old_legal(s)
            legal = s.legal_actions()
            knocks = [a for a in legal if a >= KNOCK]
            s.step(int(knocks[0] if knocks and rng.random() < 0.1 else rng.choice([a for a in legal if a < KNOCK])))
            if not s.is_over and s.phase == Phase.DRAW:
                assert len(s.stock) > 2  # a discard leaving 2 cards ends the hand
        ends.add(s.result.reason or "showdown")
    assert ends <= {"wall", "max_turns", "showdown"} and "wall" in ends


def test_a_state_rebuilt_from_an_information_set_keeps_the_guards():
    rng = np.random.default_rng(3)
    seen = {"repeated": 0, "draws": 0}
    for seed in range(40):
        s = GinRummyState.new_hand({"preset": "openspiel", "max_upcard_draws": 12}, seed=seed, dealer=seed % 2)
        while not s.is_over:
            for player in (0, 1):
                info = s.information_set(player)
                world = GinRummyState.sample_from_information_set(info, s.rules, rng)
                assert (world.repeated, world.upcard_draws) == (s.repeated, s.upcard_draws)
                assert world.legal_actions() == s.legal_actions() or player != s.current_player
            assert public_repeated(s.public_history) == s.repeated
            assert public_upcard_draws(s.public_history, s.rules) == s.upcard_draws
            twin = s.clone()
            assert (twin.repeated, twin.upcard_draws) == (s.repeated, s.upcard_draws)
            seen["repeated"] += s.repeated
            seen["draws"] += s.upcard_draws > 0
            legal = s.legal_actions()
            if TAKE_DISCARD in legal and rng.random() < 0.5:
                s.step(TAKE_DISCARD)
            elif s.taken_card is not None and rng.random() < 0.3:
                s.step(DISCARD + s.taken_card)
            else:
                s.step(int(rng.choice([a for a in legal if a < KNOCK] or legal)))
    assert min(seen.values()) > 20, seen
