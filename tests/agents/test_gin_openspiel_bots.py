"""Our agents as OpenSpiel bots (rummy_env/agents/gin/openspiel_bot.py): the information set
a bot builds from OpenSpiel's state is our engine's own on the same deal, every agent plays
whole legal games of OpenSpiel's ``gin_rummy`` (knocks, lay-offs, the wall: decided by the
agent), and a bot's
move does not change when cards its player cannot see change. Skipped without open_spiel."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed: pip install 'rummy-env[openspiel]'")

from rummy_env.agents.gin.openspiel_bot import openspiel_bot  # noqa: E402
from rummy_env.gin.game import BIG_GIN, KNOCK, TAKE_DISCARD  # noqa: E402
from rummy_env.gin.openspiel import Lockstep, information_set, to_openspiel  # noqa: E402


def test_the_information_set_read_from_openspiel_is_our_engines():
    # at every decision, the wall and the choice of the face-down card after a take there included
    rng = np.random.default_rng(1)
    checked = walls = 0
    for h in range(90):
        ls = Lockstep(rng.permutation(52).tolist())
        while not (ls.state.is_over or ls.os_state.is_terminal()):
            p = ls.state.current_player
            mine, theirs = ls.state.information_set(p), information_set(ls.os_state, ls.os_state.current_player())
            for field in dataclasses.fields(mine):
                assert getattr(mine, field.name) == getattr(theirs, field.name), field.name
            checked += 1
            walls += ls.state.at_wall
            legal = ls.state.legal_actions()
            knocks = [a for a in legal if KNOCK <= a < BIG_GIN]
            plain = [a for a in legal if a < KNOCK and (a != TAKE_DISCARD or ls.state.at_wall or h % 2)]
            ls.step(int(knocks[0] if knocks and (rng.random() < 0.3 or not plain) else plain[rng.integers(len(plain))]))
    assert checked > 3000 and walls > 10, (checked, walls)


def play(game, bots, rng) -> tuple:
    state = game.new_initial_state()
    for bot in bots:
        bot.restart()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(int(outcomes[rng.integers(len(outcomes))]))
        else:
            state.apply_action(bots[state.current_player()].step(state))  # an illegal action raises
    return state


@pytest.mark.parametrize("spec", ["random", "simple", "heuristic", "mcts:simulations=8,candidates=1", "ppo"])
def test_every_agent_plays_whole_legal_games_of_openspiel(spec):
    if spec == "ppo":
        pytest.importorskip("torch")
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(2)
    knocked = laid_off = 0
    games = 4 if spec.startswith("mcts") else 16
    for g in range(games):
        ours = g % 2
        bots = [None, None]
        bots[ours] = openspiel_bot(spec, ours, seed=g)
        bots[1 - ours] = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - ours)
        state = play(game, bots, rng)
        knocked += state.knocked()[ours]
        laid_off += bool(state.knocked()[1 - ours] and state.layoffs())
    assert knocked + laid_off > 0, (knocked, laid_off)  # the showdown's steps were played by our side too
    if spec == "simple":  # it knocks as soon as it may
        assert knocked > 0 and laid_off > 0, (knocked, laid_off)
    assert pyspiel.evaluate_bots(game.new_initial_state(), [openspiel_bot(spec, 0, 5), openspiel_bot("simple", 1, 6)], 3)


@pytest.mark.parametrize("spec", ["simple", "heuristic"])
def test_at_the_wall_the_agent_decides(spec):
    # our agent is asked at OpenSpiel's wall (our draw at the wall: its take is OpenSpiel's
    # knock) and after a knock there (the card put face down); simple takes whenever it may
    game = pyspiel.load_game("gin_rummy", {"knock_card": 1})  # few knocks: hands reach the wall
    rng = np.random.default_rng(4)
    walls = knocks = 0
    for g in range(80):
        bots = [openspiel_bot(spec, 0, seed=g, game=game), openspiel_bot(spec, 1, seed=g + 100, game=game)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(outcomes[rng.integers(len(outcomes))]))
                continue
            action = bots[state.current_player()].step(state)
            if state.current_phase().name == "WALL":
                walls += 1
                knocks += action == 55
                assert action in state.legal_actions()
                if spec == "simple":
                    assert action == (55 if 55 in state.legal_actions() else 54)
            state.apply_action(action)  # an illegal action raises
    assert walls > 0 and (knocks > 0 or spec != "simple"), (walls, knocks)


def test_a_bots_move_does_not_change_with_cards_its_player_cannot_see():
    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(40):
        deck = rng.permutation(52).tolist()
        ls = Lockstep(deck)
        moves = []
        while not (ls.state.is_over or ls.os_state.is_terminal()) and len(moves) < 30:
            legal = [a for a in ls.state.legal_actions() if not KNOCK <= a < BIG_GIN]
            moves.append(int(legal[rng.integers(len(legal))]))
            ls.step(moves[-1])
        if ls.state.is_over or ls.os_state.is_terminal():
            continue
        p = ls.state.current_player
        # a card the opponent holds and never showed, and one deep in the stock, swapped
        hidden = [c for c in range(52) if ls.state.hands[1 - p] >> c & 1 and not ls.state.known[1 - p] >> c & 1]
        deep = ls.state.stock[0]  # the stock's last card: drawn by nobody yet
        other = list(deck)
        i, j = other.index(hidden[0]), other.index(deep)
        other[i], other[j] = other[j], other[i]
        twin = Lockstep(other)
        for a in moves:
            twin.step(a)
        assert twin.os_state.hands()[1 - p] != ls.os_state.hands()[1 - p]
        for spec in ("heuristic", "simple", "random"):
            a, b = openspiel_bot(spec, p, seed=9), openspiel_bot(spec, p, seed=9)
            assert a.step(ls.os_state) == b.step(twin.os_state), spec
            compared += 1
    assert compared > 30
    assert to_openspiel(0) == 13  # our AC is OpenSpiel's Ac


def test_where_openspiel_refuses_a_knock_of_ours_it_discards_that_card():
    # OpenSpiel's 11-card deadwood bug (tests/gin/test_gin_openspiel_lockstep.py): it refuses the
    # knock with 6H that our rules allow; the bot of an agent that knocks discards 6H
    from rummy_env.core.cards import parse_card, parse_hand
    from rummy_env.gin.game import DRAW_STOCK, PASS

    hand = [c for c in range(52) if parse_hand("2C 4C 4D 5D 6D 3H 6H AS 4S 5S") >> c & 1]
    six = parse_card("6S")
    rest = [c for c in range(52) if c not in hand and c != six]
    ls = Lockstep(hand + rest[:10] + [rest[10], six] + rest[11:])
    for action in (PASS, PASS, DRAW_STOCK):
        ls.step(action)
    assert 55 not in ls.os_state.legal_actions()
    assert openspiel_bot("simple", 0, seed=1).step(ls.os_state) == to_openspiel(parse_card("6H"))
