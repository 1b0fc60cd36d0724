"""The advice features: the same from the vector engine and from an information set, in
agreement with the heuristic's own moves, and blind to the cards the player cannot see."""

import numpy as np
import pytest

from rummy_env.agents.gin.heuristic_features import (
    ADVICE_CARD_SLICES,
    ADVICE_SCALARS,
    ADVICE_SIZE,
    advice_of_env,
    advice_of_infoset,
)
from rummy_env.agents.gin.heuristic_vector import heuristic_actions
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import BIG_GIN, DISCARD, KNOCK, PASS, TAKE_DISCARD, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy
from rummy_env.train.opponents import information_set_of

N_CARD = len(ADVICE_CARD_SLICES) * NUM_CARDS


def _slice(features, name):
    k = ADVICE_CARD_SLICES.index(name)
    return features[..., k * NUM_CARDS : (k + 1) * NUM_CARDS]


def _scalar(features, name):
    return features[..., N_CARD + ADVICE_SCALARS.index(name)]


@pytest.mark.parametrize("rules", ["classic", Rules(oklahoma=True, aces="high", five_under_ten=True, max_turns=30),
                                   {"preset": "openspiel", "knock_limit": 2}])  # few knocks: hands reach the wall
def test_same_advice_from_the_engine_and_from_the_information_set(rules):
    env = VectorGinRummy(24, rules=rules, seed=7)
    env.reset()
    rng = np.random.default_rng(0)
    rows = np.arange(env.num_envs)
    phases = set()
    for _ in range(60 if isinstance(rules, str) else 90):
        features = advice_of_env(env, rows)
        assert features.shape == (env.num_envs, ADVICE_SIZE) and features.dtype == np.float32
        mask = env.action_mask()
        for g in rows:
            info = information_set_of(env, g)
            phases.add(info.phase)
            alone = advice_of_infoset(info, env.rules, np.flatnonzero(mask[g]))
            np.testing.assert_array_equal(alone, features[g])
        env.step(heuristic_actions(env, rows, rng))
    assert {Phase.DRAW, Phase.DISCARD} <= phases


def test_advice_names_the_heuristics_own_moves():
    env = VectorGinRummy(64, rules="classic", seed=11)
    env.reset()
    rng = np.random.default_rng(1)
    rows = np.arange(env.num_envs)
    seen = {"take": 0, "draw": 0, "discard": 0, "knock": 0}
    for _ in range(80):
        features = advice_of_env(env, rows)
        actions = heuristic_actions(env, rows, rng)
        mask = env.action_mask()
        for g in rows:
            a, f = int(actions[g]), features[g]
            pick = np.flatnonzero(_slice(f, "heuristic_card"))
            if a in (TAKE_DISCARD, PASS) or (a == 0 and mask[g, TAKE_DISCARD]):
                assert _scalar(f, "take") == (a == TAKE_DISCARD)
                assert np.isclose(_scalar(f, "take_gain"), _scalar(f, "stock_expected") - _scalar(f, "after_take"), atol=1e-6)
                seen["take" if a == TAKE_DISCARD else "draw"] += 1
            elif KNOCK <= a < BIG_GIN:
                assert _scalar(f, "knock") == 1 and pick.tolist() == [a - KNOCK]
                seen["knock"] += 1
            elif DISCARD <= a < KNOCK:
                assert _scalar(f, "knock") == 0 and a - DISCARD in pick
                gap = _slice(f, "score_gap")
                assert (gap[pick] == 0).all() and (gap[mask[g, DISCARD:KNOCK] == 0] == 1).all()
                seen["discard"] += 1
        env.step(actions)
    assert min(seen.values()) > 0, seen


def test_advice_does_not_change_with_the_cards_the_player_cannot_see():
    """Swap the opponent's unknown cards with stock cards: the mover's advice is unchanged."""
    env = VectorGinRummy(32, rules="classic", seed=5)
    env.reset()
    rng = np.random.default_rng(3)
    rows = np.arange(env.num_envs)
    for _ in range(25):
        env.step(heuristic_actions(env, rows, rng))
    before = advice_of_env(env, rows)
    changed = 0
    for g in rows:
        p, q = int(env.current[g]), 1 - int(env.current[g])
        hidden = int(env.hands[g, q]) & ~int(env.known[g, q])
        stock = [int(c) for c in env.decks[g, env.stock_next[g] :]]
        hidden_cards = [c for c in range(NUM_CARDS) if hidden >> c & 1]
        if not hidden_cards or not stock:
            continue
        a, b = hidden_cards[0], stock[0]
        env.hands[g, q] = np.uint64((int(env.hands[g, q]) & ~(1 << a)) | (1 << b))
        env.decks[g, env.stock_next[g]] = a
        changed += 1
    env._mask = None  # recompute the legal moves from the changed games
    assert changed > 0
    np.testing.assert_array_equal(advice_of_env(env, rows), before)


def test_advice_from_a_ready_analysis_is_the_advice_and_checks_its_rows():
    from rummy_env.agents.gin.heuristic_features import advice
    from rummy_env.agents.gin.heuristic_vector import analyse, positions_of

    env = VectorGinRummy(32, seed=4)
    env.reset()
    rng = np.random.default_rng(4)
    for _ in range(6):
        env.step(heuristic_actions(env, np.arange(32), rng))
    pos = positions_of(env, np.arange(32))
    analysis = analyse(pos, env.rules)
    half = slice(0, 16)
    np.testing.assert_array_equal(advice(pos.subset(half), env.rules, analysis.subset(half)),
                                  advice_of_env(env, np.arange(16)))
    with pytest.raises(ValueError, match="the analysis has 32 positions, pos has 16"):
        advice(pos.subset(half), env.rules, analysis)
