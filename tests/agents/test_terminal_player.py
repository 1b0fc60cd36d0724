"""The person at the terminal (``rummy play``), for every game: the same letters mean the
same moves in every game (``Game.shortcuts``, read by ``rummy_env.agents.human.choose``),
every card on the screen is written one way (suit symbols, the hand and the moves alike),
and counts of cards read as words ("1 card")."""

from __future__ import annotations

import re

import pytest

from rummy_env import agents
from rummy_env.agents.human import QuitGame, choose
from rummy_env.basic.game import DISCARD, DRAW_STOCK, LAYOFF, MELD
from rummy_env.core.cards import NUM_CARDS, card_count, card_str, parse_card, parse_hand, with_suit_symbols
from rummy_env.core.game import games, get_game
from rummy_env.core.meld_table import meld_table
from rummy_env.gin.game import PASS

LETTER_CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")  # a card written with a suit letter


def scripted(game: str, typed: list[str]):
    """The game's terminal player reading ``typed`` line by line; what it writes is kept."""
    screen: list[str] = []
    lines = iter(typed)
    return agents.human_player(game, read=lambda prompt: next(lines), write=screen.append), screen


def first_turn(game: str, seed: int = 1):
    """An env of ``game`` (two players) at its first decision: (env, observation, info)."""
    env = get_game(game).raw_env(num_players=2)
    env.reset(seed=seed)
    obs, _, _, _, info = env.last()
    return env, obs, info


def test_basic_rummy_takes_the_letters_gin_rummy_takes():
    env, obs, info = first_turn("basic")
    human, screen = scripted("basic", ["d"])
    assert human.act(obs, info) == DRAW_STOCK
    assert "d (draw stock), t (take discard)" in screen[0]
    env.step(DRAW_STOCK)
    obs, _, _, _, info = env.last()
    hand = info["information_set"].hand
    card = (hand & -hand).bit_length() - 1  # the lowest card held
    human, screen = scripted("basic", ["x", "x 1z", f"x {card_str(card).lower()}"])
    assert human.act(obs, info) == DISCARD + card
    discards = hand.bit_count()  # "x" alone fits every discard
    assert f"'discard' fits {discards} moves" in screen[1] and "cannot read the card '1z'" in screen[2]
    assert "x CARD (discard)" in screen[0] and "q quits" in screen[0]


def test_the_cards_after_a_letter_pick_one_move():
    basic = get_game("basic")
    melds = meld_table(False).masks
    three, four = (MELD + melds.index(parse_hand(m)) for m in ("QD QH QS", "QC QD QH QS"))
    layoffs = [LAYOFF + NUM_CARDS * slot + parse_card(card) for slot, card in ((0, "4H"), (2, "4H"), (2, "5H"))]
    legal = [DISCARD + parse_card("TC"), three, four, *layoffs]
    names = [basic.action_name(a) for a in legal]
    assert names[1:3] == ["meld QD QH QS", "meld QC QD QH QS"] and names[4] == "lay off 4H on slot 2"

    def typed(text: str) -> int:
        return choose(text, legal, names, basic.shortcuts)

    assert typed("m qd qh qs") == three  # all its cards: that meld, though the four queens hold them too
    assert typed("M QC") == four  # the only meld with QC
    assert typed("l 4h 2") == layoffs[1] and typed("l 5h") == layoffs[2] and typed("x 10c") == legal[0]
    assert typed("2") == four
    for text, message in [("m qd", r"'meld QD' fits 2 moves \(meld QD QH QS, meld QC QD QH QS\)"),
                          ("l 4h", "'lay off 4H' fits 2 moves"),
                          ("l 4h 1", "lay off 4H 1 is not allowed now; allowed: lay off 4H on slot 0, lay off 4H on "
                                     "slot 2, lay off 5H on slot 2$"),
                          ("d", r"d \(draw stock\) is not allowed now"), ("k 4h", "cannot read 'k 4h': type a number "
                                                                               "or x CARD"),
                          ("9", r"no move \[9\]: choose 0..5"), ("m q", "cannot read the card 'q'")]:
        with pytest.raises(ValueError, match=message):
            typed(text)
    with pytest.raises(QuitGame):
        typed("q")


def test_every_game_names_its_letters_alike():
    """A letter stands for moves the game has, and for the same kind of move in every game."""
    meaning: dict[str, tuple[str, str]] = {}
    for name in games():
        game = get_game(name)
        names = [game.action_name(a) for a in range(game.num_actions)]
        for letter, pattern in game.shortcuts.items():
            assert len(letter) == 1 and letter.isalpha() and letter.islower() and letter != "q", (name, letter)
            prefix = " ".join(w for w in pattern.split() if w.islower())
            assert any(n == prefix or n.startswith(prefix + " ") for n in names), (name, pattern)
            assert meaning.setdefault(letter, (prefix, name))[0] == prefix, (letter, name, meaning[letter])
    for name in ("gin", "basic"):
        assert {"d", "t", "x"} <= set(get_game(name).shortcuts), name


@pytest.mark.parametrize("game", ["gin", "basic"])
def test_the_screen_writes_every_card_one_way(game):
    """The hand and the moves in suit symbols; a pile of one card is "1 card", on the
    player's screen and in the game's own drawing."""
    env, obs, info = first_turn(game)
    human, screen = scripted(game, ["0"] * 5)  # the first move, at each seat's screen, up to a discard
    for _ in range(5):
        env.step(human.act(*env.last()[::4]))
    text = "\n".join(screen)
    assert not LETTER_CARD.search(text), text
    assert "discard pile: 1 card," in text and "moves: [0] discard " in text and "x CARD (discard)" in text
    played = get_game(game)
    assert "discard pile: 1 card," in played.deal(played.load_rules(), 2, seed=1).render()


def test_gin_rummy_passes_on_the_upcard_with_a_letter():
    env, obs, info = first_turn("gin")
    human, screen = scripted("gin", ["p"])
    assert human.act(obs, info) == PASS
    assert "t (take discard), p (pass)" in screen[0]


def test_card_count_and_symbols():
    assert [card_count(n) for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    # cards only: Rommé's joker JK and words in capitals stay as they are
    assert with_suit_symbols("lay off JK as 4H on slot 2; discard TC, not 7DX") == \
        "lay off JK as 4\u2665 on slot 2; discard T\u2663, not 7DX"
