"""The compiled vector engine (numba) against the array operations it replaces: the same
games, step for step, under every rule option, reward mode and encoding; and the array
path when numba is switched off."""

import os
import subprocess
import sys

import numpy as np
import pytest

from rummy_env.gin.game import KNOCK, NUM_ACTIONS, GinRummyState
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy, compiled_engine

pytestmark = pytest.mark.skipif(compiled_engine() is None, reason="numba is missing or switched off")

RULES = [
    "classic", "eaai", "openspiel",
    Rules(aces="high"), Rules(five_under_ten=True), Rules(oklahoma=True), Rules(oklahoma=True, five_under_ten=True),
    Rules(first_upcard_pass=False), Rules(knock_limit=0), Rules(knock_limit=20), Rules(big_gin_bonus=0),
    Rules(undercut_bonus=0, undercut_on_tie=False), Rules(max_turns=12), Rules(aces="high", max_turns=40, knock_limit=5),
    Rules(wall_knock=True), Rules(wall_knock=True, knock_limit=20, big_gin_bonus=0), Rules(discard_taken_card=True),
    Rules(max_upcard_draws=3), Rules(wall_knock=True, max_turns=30),
]


def lockstep(a: VectorGinRummy, b: VectorGinRummy, steps: int, seed: int, subsets: bool = True) -> set:
    """Play both engines on the same random legal actions; every array must agree. The
    outcomes seen, so a test can check it reached showdowns."""
    rng_a, rng_b, pick = np.random.default_rng(seed), np.random.default_rng(seed), np.random.default_rng(seed + 1)
    ra, rb = a.reset(seed=seed), b.reset(seed=seed)
    seen = set()
    for _ in range(steps):
        for x, y in zip(ra, rb):
            assert (x is None and y is None) or np.array_equal(x, y)
        np.testing.assert_array_equal(a.discard_deadwood(), b.discard_deadwood())
        for name in VectorGinRummy._STATE:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        actions = a.random_actions(rng_a)
        np.testing.assert_array_equal(actions, b.random_actions(rng_b))
        mask = a.action_mask()
        ender = mask[:, KNOCK:].any(axis=1) & (pick.random(a.num_envs) < 0.5)  # reach showdowns often
        actions[ender] = NUM_ACTIONS - 1 - mask[ender, :KNOCK - 1:-1].argmax(axis=1)  # the highest legal id
        active = pick.random(a.num_envs) < 0.8 if subsets else None
        ra, rb = a.step(actions, active=active), b.step(actions, active=active)
        seen |= set(ra.outcome.tolist())
    return seen


@pytest.mark.parametrize("rules", RULES)
def test_compiled_engine_equals_the_array_operations(rules):
    engines = [VectorGinRummy(32, rules=rules, engine=e) for e in ("compiled", "arrays")]
    seen = lockstep(*engines, steps=300, seed=7)
    gin_only = engines[0].rules.knock_limit == 0  # random hands rarely reach Gin
    assert {-1, 0} <= seen and (gin_only or len(seen) >= 3)  # running games, draws and some showdowns


@pytest.mark.parametrize("encoding, reward", [("flat", "points"), ("planes", "scaled"), (None, "win_loss")])
def test_compiled_engine_in_every_encoding_and_reward_mode(encoding, reward):
    a, b = (VectorGinRummy(24, encoding=encoding, reward=reward, engine=e) for e in ("compiled", "arrays"))
    lockstep(a, b, steps=250, seed=3)


def test_loaded_and_copied_positions_play_on_alike():
    """load_states and copy_games in the middle of play: the compiled engine re-solves what
    it keeps about the hands (each seat's deadwood) and the two engines stay equal."""
    a, b = (VectorGinRummy(12, rules="eaai", engine=e) for e in ("compiled", "arrays"))
    lockstep(a, b, steps=40, seed=1, subsets=False)
    states = [GinRummyState.new_hand("eaai", seed=i) for i in range(3)]
    for v in (a, b):
        v.load_states([0, 5, 9], states)
        v.copy_games(v, [1, 2], [3, 4])
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(120):
        np.testing.assert_array_equal(a.observe(), b.observe())
        np.testing.assert_array_equal(a.observe(players=1 - a.current), b.observe(players=1 - b.current))
        ra, rb = a.step(a.random_actions(rng_a)), b.step(b.random_actions(rng_b))
        for x, y in zip(ra, rb):
            assert np.array_equal(x, y)


def test_random_actions_are_uniform_over_the_legal_ones():
    v = VectorGinRummy(1, seed=0)
    v.reset()
    v.step(np.array([2]))
    v.step(np.array([2]))
    v.step(np.array([0]))  # both passed, then a stock draw: 10 or more discards are legal
    legal = np.flatnonzero(v.action_mask()[0])
    rng = np.random.default_rng(0)
    counts = np.bincount([int(v.random_actions(rng)[0]) for _ in range(4000)], minlength=108)
    assert set(np.flatnonzero(counts)) == set(legal.tolist())
    expected = 4000 / legal.size
    assert np.all(np.abs(counts[legal] - expected) < 5 * np.sqrt(expected))


def test_engine_compiled_is_refused_without_numba():
    """With RUMMY_ENV_NO_NUMBA=1 'auto' runs the array path and 'compiled' is a clear error."""
    code = ("from rummy_env.gin.vector import VectorGinRummy\n"
            "print(VectorGinRummy(2).engine)\n"
            "try:\n    VectorGinRummy(2, engine='compiled')\nexcept ValueError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, RUMMY_ENV_NO_NUMBA="1"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "arrays" and "engine='compiled' needs numba" in lines[1]


def test_a_pickled_engine_plays_on_compiled():
    import pickle

    a = VectorGinRummy(6, seed=2)
    a.reset()
    b = pickle.loads(pickle.dumps(a))
    assert b.engine == "compiled"
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    for _ in range(50):
        for x, y in zip(a.step(a.random_actions(rng_a)), b.step(b.random_actions(rng_b))):
            assert np.array_equal(x, y)
