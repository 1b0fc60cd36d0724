"""``openspiel-simple`` (rummy_env/agents/gin/openspiel_simple.py) makes OpenSpiel's
``SimpleGinRummyBot``'s choices: the same decisions as the real bot at every draw,
discard, knock and wall decision of games played in OpenSpiel, and legal, unpeeking
play in our env. Skipped where open_spiel is not installed (``pip install
"rummy-env[openspiel]"``; the dev set-up installs it)."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed: pip install 'rummy-env[openspiel]'")

from conftest import play_checking_no_peeking  # noqa: E402
from gin_hands import redeal_hidden, state_after  # noqa: E402

from rummy_env import agents, gin_rummy_v0  # noqa: E402
from rummy_env.agents.arena import play_hand  # noqa: E402
from rummy_env.agents.gin import openspiel_simple as bot  # noqa: E402
from rummy_env.core.cards import card_str  # noqa: E402
from rummy_env.gin.game import KNOCK  # noqa: E402

gin = pyspiel.gin_rummy
HAND_AT, PLAYERS, CARDS = 2, 2, 52


def test_card_ids_map_to_openspiel_and_back():
    u = bot.utils()
    for c in range(CARDS):
        assert bot.from_openspiel(bot.to_openspiel(c)) == c
        assert u.card_string(bot.to_openspiel(c)).upper() == card_str(c)  # 'Ac' is our 'AC'
    assert sorted(map(bot.to_openspiel, range(CARDS))) == list(range(CARDS))


def observed(state, player: int) -> tuple[list[int], int | None, int, int]:
    """(hand, upcard, stock size, knock card) from the player's observation tensor, decoded
    as the bot decodes it."""
    obs = np.array(state.observation_tensor(player))
    at = PLAYERS + player * CARDS
    hand = np.flatnonzero(obs[at : at + CARDS]).tolist()
    at = PLAYERS + PLAYERS * CARDS + PLAYERS
    knock_card = int(obs[at : at + 10].sum())
    at += 10
    up = np.flatnonzero(obs[at : at + CARDS])
    at += 2 * CARDS  # the upcard, then the discard pile
    stock = int(obs[at : at + CARDS].sum())
    return hand, (int(up[0]) if up.size else None), stock, knock_card


def ported_action(state, player: int) -> int | None:
    """What the port says the bot plays now (None in the phases after a knock, where the
    bot lays its melds: our env does that itself)."""
    phase = state.current_phase()
    hand, upcard, stock, knock_card = observed(state, player)
    legal = state.legal_actions(player)
    if phase == gin.Phase.WALL:
        return gin.KNOCK_ACTION if gin.KNOCK_ACTION in legal else gin.PASS_ACTION
    if phase in (gin.Phase.FIRST_UPCARD, gin.Phase.DRAW):
        return gin.DRAW_UPCARD_ACTION if bot.takes_upcard(hand, upcard, knock_card) else legal[-1]
    if phase == gin.Phase.DISCARD:
        return gin.KNOCK_ACTION if bot.knocks(hand, knock_card) else bot.discard_order(hand)[0]
    if phase == gin.Phase.KNOCK and len(hand) == 11:  # the card a knock puts down
        return bot.discard_order(hand)[0]
    return None


@pytest.mark.parametrize("knock_card", [10, 1])  # a low knock card: hands reach the wall
def test_the_port_makes_the_real_bots_choices_in_openspiel_games(knock_card):
    game = pyspiel.load_game("gin_rummy", {"knock_card": knock_card})
    rng = np.random.default_rng(knock_card)
    seen = {"draw": 0, "take": 0, "discard": 0, "knock": 0, "knock card": 0, "wall": 0}
    for _ in range(150):
        state = game.new_initial_state()
        bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in range(PLAYERS)]
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(outcomes[rng.integers(len(outcomes))]))
                continue
            p = state.current_player()
            phase = state.current_phase()
            want = ported_action(state, p)
            got = bots[p].step(state)
            if want is not None:
                assert got == want, (phase, observed(state, p), state.legal_actions(p))
                kind = ("wall" if phase == gin.Phase.WALL else "knock card" if phase == gin.Phase.KNOCK
                        else "knock" if got == gin.KNOCK_ACTION
                        else ("take" if got == gin.DRAW_UPCARD_ACTION else "draw") if phase != gin.Phase.DISCARD
                        else "discard")
                seen[kind] += 1
            state.apply_action(got)
    assert all(n > 0 for k, n in seen.items() if k != "wall") and (seen["wall"] > 0) == (knock_card == 1), seen


@pytest.mark.parametrize("knock_card", [10, 1])
def test_under_the_openspiel_rules_it_plays_the_real_bots_moves_in_lockstep(knock_card):
    """Hands in both engines (``Lockstep``), each move the port's in our engine, checked
    against the real bot's in OpenSpiel at every decision: the wall (its knock there is
    our take) and the card put down after a knock."""
    from rummy_env.gin.game import DISCARD, DRAW_STOCK, PASS, TAKE_DISCARD
    from rummy_env.gin.openspiel import Lockstep

    rules = {"preset": "openspiel", "knock_limit": knock_card}
    rng = np.random.default_rng(knock_card + 20)
    agent = agents.make("openspiel-simple")
    seen = {"wall": 0, "knock": 0}
    for _ in range(60):
        ls = Lockstep(rng.permutation(CARDS).tolist(), rules)
        params = ls.game.get_parameters()
        real = [pyspiel.make_simple_gin_rummy_bot(params, p) for p in range(PLAYERS)]
        while not (ls.state.is_over or ls.os_state.is_terminal()):
            s, o = ls.state, ls.os_state
            assert ls.differences() == {}
            ours = agent.choose(s.information_set(s.current_player), s.rules, set(s.legal_actions()))
            theirs = real[o.current_player()].step(o)
            phase = o.current_phase()
            if phase == gin.Phase.WALL:
                want = {gin.KNOCK_ACTION: TAKE_DISCARD, gin.PASS_ACTION: PASS}[theirs]
                seen["wall"] += 1
            elif phase == gin.Phase.KNOCK:  # after its knock at the wall: the card put down
                want = KNOCK + bot.from_openspiel(theirs)
            elif theirs == gin.KNOCK_ACTION:  # the card it puts down next, asked of a twin on a copy
                twin = o.clone()
                twin.apply_action(gin.KNOCK_ACTION)
                card = pyspiel.make_simple_gin_rummy_bot(params, o.current_player())
                card.step(o)  # the twin knocks too (it keeps that in mind) ...
                want = KNOCK + bot.from_openspiel(card.step(twin))  # ... and puts down its card
                seen["knock"] += 1
            else:
                want = {gin.DRAW_UPCARD_ACTION: TAKE_DISCARD, gin.DRAW_STOCK_ACTION: DRAW_STOCK,
                        gin.PASS_ACTION: PASS}.get(theirs, DISCARD + bot.from_openspiel(theirs))
            assert ours == want, (phase, ours, want)
            ls.step(ours)
        assert ls.returns() is not None and ls.returns()[0] == ls.returns()[1]
    assert seen["knock"] > 0 and (seen["wall"] > 0) == (knock_card == 1), seen


@pytest.mark.parametrize("preset", ["openspiel", "classic"])
def test_it_plays_legal_moves_in_our_env_and_does_not_peek(preset):
    rng = np.random.default_rng(1)
    env = gin_rummy_v0.raw_env(rules=preset)  # raises on an illegal move
    checked = sum(play_checking_no_peeking(env, "openspiel-simple", game, redeal_hidden, rng, 400)[0] for game in range(6))
    assert checked > 100
    knocks = 0
    for seed in range(30):
        result = play_hand([agents.make("openspiel-simple"), agents.make("simple", seed=seed)], preset, seed=seed)
        knocks += result.knocker == 0
    assert knocks > 3


def test_where_our_rules_forbid_its_card_it_plays_its_next_choice():
    # the bot takes the upcard 9S (it leaves a knock within 10) and would put it back down
    # (the highest card left over); the classic rules forbid the card just taken: it
    # knocks with its next choice instead; under openspiel with 9S, as OpenSpiel's bot

    from rummy_env.core.cards import parse_card
    from rummy_env.gin.game import PASS, TAKE_DISCARD, GinRummyState

    s = state_after("AC 2C 3C 4D 5D 6D 7H 8H 9H 2S", "TC JC QC KC TD JD QD KD TH JH", "9S", "5S")
    info = s.information_set(0)
    agent = agents.make("openspiel-simple")
    assert agent.choose(info, s.rules, set(s.legal_actions())) == TAKE_DISCARD
    s.step(TAKE_DISCARD)
    info = s.information_set(0)
    hand = sorted(bot.to_openspiel(c) for c in range(CARDS) if info.hand >> c & 1)
    assert bot.from_openspiel(bot.discard_order(hand)[0]) == parse_card("9S")  # what OpenSpiel's bot would lay down
    move = agent.choose(info, s.rules, set(s.legal_actions()))
    assert move == KNOCK + parse_card("2S"), move
    assert PASS not in s.legal_actions()
    s = GinRummyState.from_hands("AC 2C 3C 4D 5D 6D 7H 8H 9H 2S", "TC JC QC KC TD JD QD KD TH JH", "9S", "5S",
                                 rules="openspiel")
    s.step(TAKE_DISCARD)
    assert agent.choose(s.information_set(0), s.rules, set(s.legal_actions())) == KNOCK + parse_card("9S")


def test_clear_errors_for_other_card_values_and_without_open_spiel(monkeypatch):

    s = state_after("AC 2C 3C 4D 5D 6D 7H 8H 9H 2S", "TC JC QC KC TD JD QD KD TH JH", "9S", "5S")
    with pytest.raises(ValueError, match="OpenSpiel's card values only"):
        agents.make("openspiel-simple").choose(s.information_set(0), s.rules.__class__(aces="high"), {1, 2})
    real_import = builtins.__import__

    def no_pyspiel(name, *args, **kwargs):
        if name == "pyspiel":
            raise ImportError("No module named 'pyspiel'")
        return real_import(name, *args, **kwargs)

    bot.utils.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_pyspiel)
    with pytest.raises(ImportError, match='needs open_spiel: pip install "rummy-env.openspiel."'):
        agents.make("openspiel-simple")
    monkeypatch.undo()
    bot.utils.cache_clear()
    assert agents.make("openspiel-simple").name == "openspiel-simple"
