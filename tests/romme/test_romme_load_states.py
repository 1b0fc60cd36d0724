"""Rommé's vector engine loads pure states (``VectorRomme.load_states``): loaded into rows
among rows holding other hands, a mid-hand position (a meld being built card by card, lay-offs,
joker swaps and the joker they owe, a card taken from the pile, stocks turned over, shuffled
from the hand's own seed or flipped) plays on exactly as the pure state: every seat's
observation, the mask, the player to move, every later step and the result. The generic search
then plays ``random`` playouts there with the Python playouts' values."""

import numpy as np
import pytest

from rummy_env.agents.search import SearchAgent
from rummy_env.core.game import get_game
from rummy_env.core.vector import LoadsStates
from rummy_env.romme import vector
from rummy_env.romme.cards import parse_kinds
from rummy_env.romme.game import COMMIT, DISCARD, PICK, RommeState
from romme_positions import inputs, kinds_seen, random_states
from engine_checks import check_load_refusals, play_on as play_alongside

ROMME = get_game("romme")
needs_compiled = pytest.mark.skipif(vector.compiled_engine() is None,
                                    reason="Rommé's compiled engine is not used here (numba off or missing)")

# table sizes and rules: the defaults; a flipped stock; going out without a discard with free
# takes, jokers side by side and around the corner; a higher threshold needing a run, no extra card
RULES = [
    (2, {}),
    (3, {"turnover": "flip", "adjacent_jokers": True, "aces_around_the_corner": True}),
    (4, {"go_out_without_discard": True, "take_discard_before_out": "free", "never_out_double": True}),
    (6, {"come_out_points": 40, "come_out_needs_run": True, "deal_extra_card": False, "jokers": 4}),
]


def play_on(engine, rows: np.ndarray, states: list, steps: int, seed: int) -> int:
    """``engine_checks.play_on`` with random legal moves and the lowest legal id now and then
    (stocks run out); returns the hands that ended."""
    return play_alongside(engine, rows, states, steps, ROMME.encoding("flat"), np.random.default_rng(seed),
                          lambda engine, mask, rng: np.where(rng.random(engine.num_envs) < 0.4,
                                                             np.argmax(mask != 0, axis=1), engine.random_actions(rng)))


@needs_compiled
@pytest.mark.parametrize("players, rules", RULES)
def test_loaded_rows_play_on_exactly_as_the_pure_hands(players, rules):
    states = random_states(players, rules, 16, seed=players)
    seen = kinds_seen(states)
    assert all(seen.values()), seen
    engine = ROMME.vector(2 * len(states) + 3, players, rules=rules, seed=1)
    assert isinstance(engine, vector.VectorRomme) and isinstance(engine, LoadsStates)
    engine.reset()
    rows = np.random.default_rng(players).permutation(engine.num_envs)[: len(states)]
    engine.load_states(rows, [s.clone() for s in states])
    assert play_on(engine, rows, states, 150, seed=players) > 0


@needs_compiled
def test_a_hand_rummy_finished_from_a_meld_half_built():
    """Loaded with seven clubs of a thirteen-card meld picked, the row finishes the meld,
    commits it and discards its last card: a hand rummy, scored as the pure game scores it."""
    hands = ["AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 5D", "JK JK 2S 3S 4S 9H 9D KH KD QS QD 7H 8H"]
    state = RommeState.from_hands(hands, "7D")
    clubs = [PICK + k for k in parse_kinds("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")]
    for action in clubs[:7]:
        state.step(action)
    engine = vector.VectorRomme(3, 2, seed=0)
    engine.reset()
    engine.load_states(np.array([1]), [state.clone()])
    for action in clubs[7:] + [COMMIT, DISCARD + parse_kinds("5D")[0]]:
        np.testing.assert_array_equal(engine.action_mask()[1], state.legal_mask())
        actions = np.argmax(engine.action_mask(), axis=1)
        actions[1] = action
        step = engine.step(actions)
        state.step(action)
    assert state.result.outcome == "hand_rummy" and step.terminated[1] and step.results[1] == state.result


@needs_compiled
def test_loading_refuses_what_is_not_a_live_hand_of_the_engine():
    engine = ROMME.vector(4, 2, seed=0)
    engine.reset()
    check_load_refusals(engine, random_states(2, {}, 1, seed=3)[0], random_states(3, {}, 1, seed=3)[0],
                        random_states(2, {"jokers": 4}, 1, seed=3)[0],
                        get_game("basic").deal(get_game("basic").load_rules(), 2, seed=0), "Rommé")


@needs_compiled
def test_random_playouts_go_to_the_engine_with_the_python_values(monkeypatch):
    """``search:rollout=random`` on Rommé: with ``playouts=engine`` (the Python playouts
    refused) the values matrix, candidates and move are those of ``playouts=python``."""
    for k, state in enumerate(random_states(3, {}, 3, seed=11)):
        got = []
        for playouts in ("python", "engine"):
            if playouts == "engine":
                monkeypatch.setattr(SearchAgent, "_play_out", lambda *a: (_ for _ in ()).throw(AssertionError("python")))
            agent = SearchAgent(game="romme", seed=k, simulations=24, rollout="random", playouts=playouts)
            got.append((agent.act(*inputs(state)), *agent.last_search))
        monkeypatch.undo()
        assert got[1][:2] == got[0][:2]
        np.testing.assert_array_equal(got[1][2], got[0][2])
