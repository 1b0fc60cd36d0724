"""Rommé's rules and cards: presets (their YAML files: tests/core/test_rules.py), validation that names what is
allowed, physical ids and kinds, text, values."""

import numpy as np
import pytest

from rummy_env.core.cards import parse_card
from rummy_env.romme import cards
from rummy_env.romme.cards import (
    JOKER, card_text, card_value, counts_of, counts_of_kinds, format_hand, hand_penalty, kind_of, kind_str, kinds_of,
    num_physical, parse_hand, parse_kind, parse_kinds, penalty_value, penalty_values, physical_deck,
)
from rummy_env.romme.rules import (
    PRESETS, RommeRules, check_num_players, load_romme_rules,
)

# ----------------------------------------------------------------------------- rules


def test_defaults_and_presets_follow_the_spec():
    r = load_romme_rules()
    assert r == PRESETS["romme"] == RommeRules()
    assert (r.jokers, r.num_cards, r.deal_extra_card, r.aces_around_the_corner) == (6, 110, True, False)
    assert (r.naturals_per_meld, r.adjacent_jokers, r.come_out_points, r.come_out_needs_run) == (
        "at_least_two", False, 30, False)
    assert (r.take_discard_before_out, r.go_out_without_discard, r.joker_penalty, r.never_out_double) == (
        "meld", False, 20, False)
    assert (r.hand_rummy_multiplier, r.hands_per_table, r.loss_limit, r.turnover, r.max_turns) == (
        2, 8, 0, "shuffle", 400)
    assert PRESETS["romme_40"] == r.replace(come_out_points=40)
    assert PRESETS["romme_40_run"] == r.replace(come_out_points=40, come_out_needs_run=True)
    assert [r.cards_dealt(True), r.cards_dealt(False), r.replace(deal_extra_card=False).cards_dealt(True)] == [14, 13, 13]
    assert load_romme_rules({"preset": "romme_40", "jokers": 4}) == PRESETS["romme_40"].replace(jokers=4)
    assert r.allows_naturals(2, 2) and not r.replace(naturals_per_meld="more_than_jokers").allows_naturals(2, 2)
    assert check_num_players(6) == 6


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"jokers": 7}, "jokers must be 0..6"),
        ({"jokers": -1}, "jokers must be >= 0"),
        ({"come_out_points": 2.5}, "come_out_points must be an integer"),
        ({"naturals_per_meld": "two"}, "naturals_per_meld must be 'at_least_two' or 'more_than_jokers'"),
        ({"take_discard_before_out": "never"}, "'meld' or 'free'"),
        ({"turnover": "burn"}, "'shuffle' or 'flip'"),
        ({"adjacent_jokers": 1}, "adjacent_jokers must be bool"),
        ({"hand_rummy_multiplier": 0}, "hand_rummy_multiplier must be >= 1"),
        ({"max_turns": 0}, "max_turns must be >= 1"),
        ({"hands_per_table": 0}, "would never end"),
        ({"loss_limit": -500}, "loss_limit must be >= 0"),
    ],
)
def test_bad_options_are_refused_naming_what_is_allowed(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        RommeRules(**kwargs)


def test_unknown_options_presets_and_seats_are_refused():
    with pytest.raises(ValueError, match="unknown Rommé rule option"):
        load_romme_rules({"aces": "high"})
    with pytest.raises(ValueError, match="unknown Rommé rules 'gin'"):
        load_romme_rules("gin")
    with pytest.raises(ValueError, match="2..6"):
        check_num_players(7)
    assert RommeRules(hands_per_table=0, loss_limit=500).loss_limit == 500


# ----------------------------------------------------------------------------- cards


def test_physical_ids_and_kinds():
    assert num_physical() == 110 and num_physical(RommeRules(jokers=4)) == 108
    assert list(physical_deck(RommeRules(jokers=4))[-2:]) == [106, 107]
    assert [kind_of(p) for p in (0, 51, 52, 103, 104, 109)] == [0, 51, 0, 51, JOKER, JOKER]
    assert np.array_equal(kinds_of([[0, 52], [104, 20]]), [[0, 0], [JOKER, 20]])
    with pytest.raises(ValueError, match="0..109"):
        kind_of(110)
    hand = counts_of([0, 52, 104, 105, 7])
    assert hand.dtype == np.uint8 and hand.shape == (53,) and hand[0] == 2 and hand[JOKER] == 2 and hand.sum() == 5
    batch = counts_of(np.array([[0, 52, 104], [1, 2, 3]]))
    assert batch.shape == (2, 53) and list(batch.sum(1)) == [3, 3]
    with pytest.raises(ValueError, match="repeated"):
        counts_of([0, 0, 5])
    deck = counts_of(physical_deck())
    assert list(deck[:52]) == [2] * 52 and deck[JOKER] == 6


def test_text_round_trips():
    assert parse_kind("AC") == 0 and parse_kind("10h") == parse_kind("TH") == parse_card("TH")
    assert parse_kind("JK") == parse_kind("*") == parse_kind("jk") == JOKER
    assert parse_kinds("AC, AC * 7D") == [0, 0, JOKER, parse_card("7D")]
    hand = parse_hand("7D AC AC * JK")
    assert format_hand(hand) == "AC AC 7D JK JK"
    assert kind_str(JOKER) == "JK" and card_text(104) == "JK" and card_text(52 + 14) == "2D"
    with pytest.raises(ValueError, match="'JK' or '\\*'"):
        parse_kind("XX")
    with pytest.raises(ValueError, match="0..2"):
        parse_hand("AC AC AC")
    assert counts_of_kinds([]).sum() == 0 and cards.expand(hand) == [0, 0, parse_card("7D"), JOKER, JOKER]


def test_values_and_penalties():
    assert [card_value(parse_card(c)) for c in ("AS", "2S", "9H", "TD", "JC", "QC", "KC")] == [11, 2, 9, 10, 10, 10, 10]
    with pytest.raises(ValueError):
        card_value(JOKER)
    assert penalty_values()[JOKER] == 20 and penalty_value(JOKER, RommeRules(joker_penalty=25)) == 25
    assert list(penalty_values()[:13]) == [11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert hand_penalty(parse_hand("AC KD JK")) == 41
    assert list(hand_penalty(np.stack([parse_hand("AC"), parse_hand("JK JK")]), RommeRules(joker_penalty=25))) == [11, 50]
