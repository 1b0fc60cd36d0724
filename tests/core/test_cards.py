import pytest

from rummy_env.core.cards import (
    card_id,
    card_str,
    card_value,
    cards_to_mask,
    format_hand,
    mask_to_cards,
    parse_card,
    parse_cards,
    parse_hand,
)


def test_ids_follow_the_spec():
    assert card_id(0, 0) == 0  # AC
    assert card_id(12, 3) == 51  # KS
    assert parse_card("7D") == 13 + 6
    assert parse_card("TH") == 26 + 9
    assert [card_str(c) for c in (0, 13, 26, 39)] == ["AC", "AD", "AH", "AS"]


def test_parse_accepts_10_and_lower_case():
    assert parse_card("10h") == parse_card("TH")
    assert parse_cards("ac, 2c 10s") == [0, 1, 39 + 9]


def test_round_trip_every_card():
    for c in range(52):
        assert parse_card(card_str(c)) == c
        assert parse_card(card_str(c, symbols=True).replace("\u2663", "C").replace("\u2666", "D")
                          .replace("\u2665", "H").replace("\u2660", "S")) == c


def test_masks():
    hand = parse_hand("KS AC 7D")
    assert mask_to_cards(hand) == [0, 19, 51]
    assert cards_to_mask([0, 19, 51]) == hand
    assert format_hand(hand) == "AC 7D KS"


def test_values():
    assert [card_value(r) for r in range(13)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert [card_value(r, five_under_ten=True) for r in range(13)] == [5] * 9 + [10] * 4


@pytest.mark.parametrize("bad", ["1H", "AX", "", "10", "KSS", "0C"])
def test_bad_cards_are_refused_with_the_allowed_form(bad):
    with pytest.raises(ValueError, match="expected rank"):
        parse_card(bad)


def test_repeated_and_out_of_range_cards_are_refused():
    with pytest.raises(ValueError, match="repeated"):
        parse_cards("AC AC")
    with pytest.raises(ValueError, match="0..51"):
        cards_to_mask([52])
    with pytest.raises(ValueError, match="rank must be"):
        card_id(13, 0)
