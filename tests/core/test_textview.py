"""The text views (``rummy_env.core.textview``): ``text``, ``json`` and their ``_no_moves``
twins, registered by every game. Hand-checked positions of each game, the option without
moves, the Text space, the envs (PettingZoo's api_test, Gymnasium's checker), and the
vector engines' refusal. That the views show nothing hidden is the conformance suite's
(tests/core/test_conformance.py: every registered encoding)."""

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import run_api_test
from rummy_env.core.cards import parse_cards
from rummy_env.core.game import games, get_game
from rummy_env.core.textview import VERSION, TextEncoding, TextObservation

VIEWS = ("text", "text_no_moves", "json", "json_no_moves")


def scripted(name: str, hands: tuple[str, ...], actions: tuple[int, ...], num_players: int = 2):
    """A hand of ``name`` dealt by seat 0 from a deck that starts with ``hands`` (cards in
    deal order: the first player's, the next, ..., then the upcard and the stock's top),
    the other cards after them in id order; then ``actions`` played."""
    game = get_game(name)
    rules = game.load_rules()
    first = [c for h in hands for c in parse_cards(h)]
    deck = first + [c for c in range(game.deck_size_of(rules)) if c not in first]
    state = game.deal(rules, num_players, deck=deck, dealer=0)
    for action in actions:
        state.step(action)
    return game, rules, state


def text(game, rules, state, seat: int, view: str = "text", scores=None) -> str:
    return game.encoding(view).encode(state.information_set(seat), rules, scores)


GIN_HANDS = ("7C 7D 7H 3S 4S 5S 2H AC 3D KD", "9C TC JC 2C 4D 6D 8H 9H QS KS", "QH", "6S")

GIN_MOVER = """\
rummy-env text view 1
Gin Rummy (gin_rummy_v0), 2 players. You are player_1.
To move: you. Phase: discard (discard a card, knock laying a card face down, or declare Big Gin).

Your hand (11 cards; deadwood 16):
  set: 7C 7D 7H
  run: 3S 4S 5S 6S
  deadwood: AC 3D KD 2H

Table: no melds
Discard pile (bottom to top): QH
Stock: 30 cards

Players:
  player_0: 10 cards; known in hand: none; discarded: none; passed: QH
  player_1 (you): 11 cards; known in hand: none; discarded: none; passed: QH
Facts: turn: 1; knock limit: 10; dealer: player_0; phase: discard

Since your last move: nothing

Legal moves (12; answer with the action id):
  1. discard AC (action 3)
  2. discard 7C (action 9)
  3. discard 3D (action 18)
  4. discard 7D (action 22)
  5. discard KD (action 28)
  6. discard 2H (action 30)
  7. discard 7H (action 35)
  8. discard 3S (action 44)
  9. discard 4S (action 45)
  10. discard 5S (action 46)
  11. discard 6S (action 47)
  12. knock, discard KD: deadwood 6 (action 80)"""

GIN_WAITING = """\
rummy-env text view 1
Gin Rummy (gin_rummy_v0), 2 players. You are player_0.
To move: player_1. Phase: discard (discard a card, knock laying a card face down, or declare Big Gin).

Your hand (10 cards; deadwood 49):
  run: 9C TC JC
  deadwood: 2C 4D 6D 8H 9H QS KS

Table: no melds
Discard pile (bottom to top): QH
Stock: 30 cards

Players:
  player_0 (you): 10 cards; known in hand: none; discarded: none; passed: QH
  player_1: 11 cards; known in hand: none; discarded: none; passed: QH
Facts: turn: 1; knock limit: 10; dealer: player_0; phase: discard

Since your last move:
  player_1 draws from the stock

Legal moves: none (it is not your turn)"""


def test_gin_position_worked_out_by_hand():
    """player_1 and player_0 pass the upcard QH, player_1 draws 6S: holding 7C 7D 7H,
    3S-6S and AC 3D KD 2H (deadwood 1 + 3 + 10 + 2 = 16), player_1 may discard any of
    the 11 cards (ids 3 + card) or knock discarding KD (55 + 25), which leaves 6; no
    other discard leaves 10 or less. Both passed QH (the upcard, then the top discard
    when player_1 drew from the stock); player_0 saw that draw."""
    game, rules, state = scripted("gin", GIN_HANDS, (2, 2, 0))
    assert text(game, rules, state, 1) == GIN_MOVER
    assert text(game, rules, state, 0) == GIN_WAITING
    assert state.legal_actions() == [3, 9, 18, 22, 28, 30, 35, 44, 45, 46, 47, 80]


BASIC_MOVER = """\
rummy-env text view 1
Basic Rummy (basic_rummy_v0), 2 players. You are player_1.
To move: you. Phase: play (meld, lay off, then discard or go out).

Your hand (11 cards; 55 points in hand (what it pays if another player goes out)):
  set: 7C 7D 7H
  run: 3S 4S 5S 6S
  others: AC 3D KD 2H

Table: no melds
Discard pile (bottom to top): QH
Stock: 30 cards

Players:
  player_0: 10 cards; known in hand: none; discarded: none; put on table: none
  player_1 (you): 11 cards; known in hand: none; discarded: none; put on table: none
Facts: turn: 1; dealer: player_0; phase: play; the player to move may still go rummy: yes

Since your last move: nothing

Legal moves (15; answer with the action id):
  1. discard AC (action 2)
  2. discard 7C (action 8)
  3. discard 3D (action 17)
  4. discard 7D (action 21)
  5. discard KD (action 27)
  6. discard 2H (action 29)
  7. discard 7H (action 34)
  8. discard 3S (action 43)
  9. discard 4S (action 44)
  10. discard 5S (action 45)
  11. discard 6S (action 46)
  12. meld 7C 7D 7H (action 87)
  13. meld 3S 4S 5S (action 338)
  14. meld 3S 4S 5S 6S (action 339)
  15. meld 4S 5S 6S (action 347)"""


def test_basic_rummy_position_worked_out_by_hand():
    """player_1 draws 6S: its 11 cards pay 7 * 3 + 3 + 4 + 5 + 6 + 1 + 3 + 10 + 2 = 55;
    it may discard any of them (ids 2 + card) or lay down one of the four melds its hand
    holds: the 7s, and the spade runs 3-5, 3-6 and 4-6 (ids from the meld table, as
    their names say)."""
    game, rules, state = scripted("basic", GIN_HANDS, (0,))
    assert text(game, rules, state, 1) == BASIC_MOVER
    assert [game.action_name(a, rules) for a in (87, 338, 339, 347)] == [
        "meld 7C 7D 7H", "meld 3S 4S 5S", "meld 3S 4S 5S 6S", "meld 4S 5S 6S"]


ROMME_MOVER = """\
rummy-env text view 1
Rommé (romme_v0), 2 players. You are player_1.
To move: you. Phase: play (build and lay melds, lay off, swap jokers, then discard or go out).

Your hand (14 cards; 53 penalty points left over after these melds (worth 50)):
  set: 7C 7D 7H
  run: 9S TS JS
  others: 5C KC 4D 8D QD AH 2H 3S

Table: no melds
Discard pile (bottom to top): 5D
Stock: 82 cards

Players:
  player_0: 13 cards; known in hand: none; discarded: none
  player_1 (you): 14 cards; known in hand: none; discarded: none
Facts: turn: 1; dealer: player_0; phase: play; to come out: 30 points

Since your last move: nothing

Legal moves (20; answer with the action id):
  1. discard 5C (action 7)
  2. discard 7C (action 9)
  3. discard KC (action 15)
  4. discard 4D (action 19)
  5. discard 7D (action 22)
  6. discard 8D (action 23)
  7. discard QD (action 27)
  8. discard AH (action 29)
  9. discard 2H (action 30)
  10. discard 7H (action 35)
  11. discard 3S (action 44)
  12. discard 9S (action 50)
  13. discard TS (action 51)
  14. discard JS (action 52)
  15. meld 7C (action 62)
  16. meld 7D (action 75)
  17. meld 7H (action 88)
  18. meld 9S (action 103)
  19. meld TS (action 104)
  20. meld JS (action 105)"""


def test_romme_position_worked_out_by_hand():
    """player_1 opens with 14 cards: the 7s (21) and 9S TS JS (29) make 50, enough to
    come out (30), the rest pays 5 + 10 + 4 + 8 + 10 + 11 + 2 + 3 = 53. Not out yet, it
    may discard any of its 14 kinds (ids 3 + kind: 5C is kind 4, ...) or put a card of
    one of the two melds into the pending meld (ids 56 + kind, labelled ``meld 7C`` as on
    a person's screen): the other cards form no meld."""
    game, rules, state = scripted("romme", ("7C 7D 7H 9S TS JS 2H 4D KC 5C 8D AH 3S QD",), ())
    assert text(game, rules, state, 1) == ROMME_MOVER


def positions(name: str, n: int, seeds=range(2)):
    """Every position of random hands of ``name`` at ``n`` players (the state at each step)."""
    game = get_game(name)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.deal(game.load_rules(), n, seed=rng, dealer=seed % n)
        while True:
            yield state
            if state.is_over:
                break
            state.step(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("name", games())
def test_views_without_moves_are_the_views_less_the_moves(name):
    """``text_no_moves`` is ``text`` without its last section, ``json_no_moves`` the JSON
    without ``legal_moves``; the legal moves listed are the mover's, in id order, and no
    one else's."""
    game = get_game(name)
    rules = game.load_rules()
    n = game.max_players
    listed = 0
    for state in positions(name, n):
        for seat in range(n):
            info = state.information_set(seat)
            full, bare = (game.encoding(v).encode(info, rules) for v in ("text", "text_no_moves"))
            data, data_bare = (json.loads(game.encoding(v).encode(info, rules)) for v in ("json", "json_no_moves"))
            assert full.startswith(bare + "\n\nLegal moves") and "Legal moves" not in bare
            assert data.pop("legal_moves") == [{"id": a, "move": game.move_view(a, rules, info)["label"]}
                                               for a in (state.legal_actions() if seat == data["to_move"] else [])]
            assert data == data_bare
            listed += seat == data["to_move"]
    assert listed > 20


@pytest.mark.parametrize("name", games())
def test_views_fit_their_text_space(name):
    """Every view of random hands (in a match, with the scores) is in its ``spaces.Text``
    (printable ASCII, newlines and the title's letters, at most ``max_length``), a
    ``TextObservation``, and the JSON view parses to ``TextEncoding.data``."""
    game = get_game(name)
    rules = game.load_rules()
    views = {v: game.encoding(v) for v in VIEWS}
    boxes = {v: e.space(rules) for v, e in views.items()}
    n = game.max_players
    scores = tuple(range(10, 10 + n))
    for state in positions(name, n, range(1)):
        info = state.information_set(state.current_player)
        for v, encoding in views.items():
            obs = encoding.encode(info, rules, scores)
            assert isinstance(obs, TextObservation) and boxes[v].contains(obs), (v, len(obs), boxes[v].max_length)
        assert json.loads(views["json"].encode(info, rules, scores)) == views["json"].data(info, rules, scores)
    text = views["text"].encode(info, rules, scores)
    assert state.is_over and "Result:" in text and "Legal moves: none (the hand is over)" in text
    assert "Match points: " + ", ".join(f"player_{s} {p}" for s, p in enumerate(scores)) in text
    box = boxes["text"]
    assert not box.contains("\t") and not box.contains("x" * (box.max_length + 1)) and not box.contains("")
    assert box.contains(box.sample())


@pytest.mark.parametrize("name", games())
def test_envs_give_text_views(name):
    """PettingZoo's ``api_test`` with ``encoding="text"`` (every registered view runs in
    the conformance suite's) and in a match, where the view shows the match points."""
    game = get_game(name)
    run_api_test(game.env(encoding="text"), 60)
    if game.load_rules().match:
        env = game.env(encoding="json", episode="match")
        run_api_test(env, 60)
        env.reset(seed=1)
        obs = json.loads(env.last()[0]["observation"])
        assert obs["version"] == VERSION and obs["score"]["points"] == [0] * env.unwrapped.num_players


@pytest.mark.filterwarnings("ignore:.*illegal action")  # the checker plays unmasked random actions
@pytest.mark.parametrize("name", games())
def test_gymnasium_view_gives_text_views(name):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from rummy_env.gym import env_id

    env = gymnasium.make(env_id(name), encoding="text_no_moves").unwrapped
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and "You are player_0" in obs and "Legal moves" not in obs


@pytest.mark.parametrize("name", games())
@pytest.mark.parametrize("view", VIEWS)
def test_vector_engines_refuse_text_views(name, view):
    """A vector engine writes arrays: a text view is refused by name, saying why."""
    with pytest.raises(ValueError, match=f"batch writer.*'{view}' has none|'{view}' encoding is a string"):
        get_game(name).vector(2, encoding=view)


def test_an_encoding_object_picks_the_options():
    """The env takes a ``TextEncoding`` object as it takes a registered name."""
    from rummy_env.gin.textview import WORDS

    env = get_game("gin").raw_env(encoding=TextEncoding("gin", WORDS, "json", moves=False))
    env.reset(seed=0)
    assert "legal_moves" not in json.loads(env.observe("player_0")["observation"])
    with pytest.raises(ValueError, match="format must be one of"):
        TextEncoding("gin", WORDS, "yaml")


DOCS = Path(__file__).resolve().parents[2] / "docs" / "text-views.md"


def test_the_docs_show_what_the_views_give():
    """docs/text-views.md shows the views of the positions above as the code gives them,
    and its table of JSON fields names every field of the JSON view."""
    page = DOCS.read_text()
    for name, hands, actions, expected in (("gin", GIN_HANDS, (2, 2, 0), GIN_MOVER), ("basic", GIN_HANDS, (0,), BASIC_MOVER),
                                           ("romme", ("7C 7D 7H 9S TS JS 2H 4D KC 5C 8D AH 3S QD",), (), ROMME_MOVER)):
        game, rules, state = scripted(name, hands, actions)
        data = game.encoding("json").data(state.information_set(1), rules)
        shown = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in data.items())
        assert f"```text\n{expected}\n```" in page and "```text\n{\n" + shown + "\n}\n```" in page, name
    table = page.split("## The JSON fields")[1].split("\n\n")[1]
    documented = {key for row in table.splitlines()[2:] for key in row.split("|")[1].replace("`", "").replace(",", " ").split()}
    assert documented == set(data) | {"legal_moves"}
