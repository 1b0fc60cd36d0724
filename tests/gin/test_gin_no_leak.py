"""No hidden information leaks: observations and information sets do not change when the
cards a player cannot know (the opponent's unknown cards, the stock order, the knocker's
face-down card) are dealt differently. Checked in every phase, for both seats."""

import numpy as np
from conftest import assert_seats_see_nothing_hidden, random_position
from gin_hands import redeal_hidden
import pytest

from rummy_env.core import cards as encoding_cards
from rummy_env import gin_rummy_v0
from rummy_env.gin import encoding
from rummy_env.core.cards import mask_to_cards
from rummy_env.gin.game import KNOCK, GinRummyState, Phase


@pytest.mark.parametrize("enc, rules", [(enc, "classic") for enc in encoding.ENCODINGS] + [("flat", "openspiel")])
def test_observations_ignore_hidden_cards_in_every_phase(enc, rules):
    # under openspiel at the wall too (the take to knock, the pass), and after a card thrown back
    rng = np.random.default_rng(1)
    env = gin_rummy_v0.raw_env(encoding=enc, rules=rules)
    seen = set()
    changed = views = walls = 0
    # 120 games in the flat encoding; the others (text and JSON, costly to compare) in 40,
    # which still meet every phase and ending
    for game in range(120 if enc == "flat" else 40):
        env.reset(seed=game)
        while True:
            g = env.unwrapped.game
            ending = "none" if g.result is None else g.result.outcome
            seen.add((g.phase, ending))
            walls += g.at_wall
            moved, redeals = assert_seats_see_nothing_hidden(env, rng, repeats=2)
            changed, views = changed + moved, views + redeals
            if g.is_over:
                break
            legal = g.legal_actions()
            knocks = [a for a in legal if a >= KNOCK]
            knock_now = knocks and (rng.random() < 0.8 if rules == "classic" else g.at_wall or rng.random() < 0.1)
            env.step(knocks[0] if knock_now else int(rng.choice(legal)))
    phases = {p for p, _ in seen}
    assert phases == set(Phase)
    endings = {e for p, e in seen if p == Phase.OVER}
    assert "draw" in endings and endings & {"knock", "gin", "undercut"}
    assert changed > 0.9 * views  # the redeals did move hidden cards (the stock is always hidden)
    assert (walls > 0) == (rules == "openspiel"), walls


def test_information_set_does_not_hold_the_opponents_stock_draws():
    s = GinRummyState.new_hand(seed=5)
    s.step(2)
    s.step(2)
    s.step(0)  # non-dealer draws from the stock: the dealer must not learn the card
    drawn = s.hands[s.current_player] & ~GinRummyState.new_hand(seed=5).hands[s.current_player]
    info = s.information_set(1 - s.current_player)
    assert info.opponent_known & drawn == 0 and info.unseen & drawn == drawn
    assert all(card == -1 for _, event, card in info.public_history if event == "draw_stock")


def knocked_state(seed: int) -> GinRummyState:
    rng = np.random.default_rng(seed)
    s = GinRummyState.new_hand(seed=seed)
    while not s.is_over:
        legal = s.legal_actions()
        knocks = [a for a in legal if KNOCK <= a < KNOCK + 52]
        s.step(knocks[0] if knocks else int(rng.choice(legal)))
    return s


def test_the_face_down_knock_card_is_never_shown():
    found = 0
    for seed in range(300):
        s = knocked_state(seed)
        if s.knock_card is None:
            continue
        found += 1
        defender = 1 - s.result.knocker
        info = s.information_set(defender)
        assert (s.result.knocker, "knock", -1) == info.public_history[-1]
        assert not info.opponent_known >> s.knock_card & 1 and not info.discard_mask >> s.knock_card & 1
        assert encoding_cards.card_str(s.knock_card) not in s.render(perspective=defender).split("discard pile")[0]
    assert found > 20


def test_render_for_a_seat_hides_the_opponents_cards_and_moves():
    s = GinRummyState.new_hand(seed=5)
    s.step(2)
    s.step(2)
    s.step(0)  # player 0 now holds 11 cards and is to discard
    text = s.render(perspective=1)
    for card in mask_to_cards(s.hands[0]):
        assert encoding_cards.card_str(card) not in text and encoding_cards.card_str(card, symbols=True) not in text
    assert "discard " in s.render(perspective=0)


def test_env_infos_carry_only_the_players_own_information_set():
    env = gin_rummy_v0.raw_env()
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    for _ in range(40):
        g = env.game
        seat = g.current_player
        info = env.infos[env.agent_selection]["information_set"]
        assert info == g.information_set(seat) and info.player == seat
        assert redeal_hidden(g, seat, rng).information_set(seat) == info
        if g.is_over:
            break
        env.step(int(rng.choice(g.legal_actions())))


def test_sampled_worlds_keep_what_the_opponent_knows_of_our_hand():
    rng = np.random.default_rng(4)
    checked = 0
    for seed in range(200):
        s = random_position(seed, rng, 5, 50)
        if s.is_over:
            continue
        for seat in (0, 1):
            world = GinRummyState.sample_from_information_set(s.information_set(seat), s.rules, rng)
            assert world.information_set(1 - seat).opponent_known == s.information_set(1 - seat).opponent_known
            checked += s.known[seat] != 0
    assert checked > 10


def test_hand_result_shows_nothing_after_a_draw():
    rng = np.random.default_rng(0)
    for seed in range(50):
        s = GinRummyState.new_hand(seed=seed)
        while not s.is_over:
            legal = [a for a in s.legal_actions() if a < KNOCK] or s.legal_actions()
            s.step(int(rng.choice(legal)))
        d = s.result.to_dict()
        assert d["outcome"] == "draw"
        assert d["shown_hands"] == ["", ""] and d["knocker_melds"] == [] and d["defender_deadwood_cards"] == ""


def test_sampled_worlds_are_consistent_with_the_information_set():
    rng = np.random.default_rng(2)
    for seed in range(150):
        s = random_position(seed, rng, 0, 60)
        if s.is_over:
            with pytest.raises(ValueError, match="over"):
                GinRummyState.sample_from_information_set(s.information_set(0), s.rules, rng)
            continue
        for seat in (0, 1):
            info = s.information_set(seat)
            world = GinRummyState.sample_from_information_set(info, s.rules, rng)
            assert world.information_set(seat) == info
            assert world.legal_actions() == s.legal_actions() or world.current_player != seat
            while not world.is_over:  # the world plays on to the end
                world.step(int(rng.choice(world.legal_actions())))
