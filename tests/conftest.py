"""Shared test helpers: random hands, a seeded random-play driver, PettingZoo's api_test."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

# PettingZoo's api_test warns about any dict observation of an env missing from its own
# list; those two warnings are expected. Every other warning is an error (pyproject's
# filterwarnings = error).
DICT_OBS_WARNINGS = ("Observation space for each agent probably should be", "Observation is not a NumPy array")


def run_api_test(env, cycles: int = 400) -> None:
    """PettingZoo's ``api_test`` with every warning an error but the two about dict observations."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in DICT_OBS_WARNINGS:
            warnings.filterwarnings("ignore", message=message)
        api_test(env, num_cycles=cycles, verbose_progress=False)


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """n uniformly random hands of ``size`` cards as uint64 masks."""
    idx = np.argsort(rng.random((n, 52)), axis=1)[:, :size].astype(np.uint64)
    return (np.uint64(1) << idx).sum(axis=1, dtype=np.uint64)


def meld_rich_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """Hands drawn from few ranks and suits, so sets and runs overlap a lot."""
    out = np.zeros(n, dtype=np.uint64)
    for i in range(n):
        ranks = rng.choice(13, int(rng.integers(3, 6)), replace=False)
        suits = rng.choice(4, int(rng.integers(1, 3)), replace=False)
        low = int(rng.integers(0, 8))
        pool = [s * 13 + r for s in range(4) for r in range(13) if r in ranks or (s in suits and low <= r < low + 6)]
        if len(pool) < size:
            pool = list(range(52))
        out[i] = sum(1 << int(c) for c in rng.choice(pool, size, replace=False))
    return out


def random_position(seed: int, rng: np.random.Generator, low: int, high: int):
    """A hand dealt with ``seed`` after ``low``..``high`` random legal moves (it may be over)."""
    from rummy_env.gin.game import GinRummyState

    s = GinRummyState.new_hand(seed=seed)
    for _ in range(int(rng.integers(low, high))):
        if s.is_over:
            break
        s.step(int(rng.choice(s.legal_actions())))
    return s


def play_checking_no_peeking(env, spec: str, seed: int, redeal, rng: np.random.Generator, limit: int) -> tuple[int, int]:
    """Play one episode of ``env`` (reset with ``seed``) with the agent ``spec`` on every
    seat; at each decision (up to ``limit``) ask a fresh agent of the same seed again with
    the cards the player cannot see dealt otherwise (``redeal(game, seat, rng)``) and the
    env's own info otherwise unchanged, and assert the same action. Returns (decisions
    checked, of them with match points in the info)."""
    from rummy_env import agents

    checked = scored = 0
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        g = env.game
        seat = g.current_player
        action = agents.make(spec, seed=seed).act(obs, info)
        env.game = redeal(g, seat, rng)
        alt_info = dict(info, information_set=env.game.information_set(seat))
        assert agents.make(spec, seed=seed).act(env.observe(agent), alt_info) == action
        env.game = g
        checked += 1
        scored += "match_points" in info
        env.step(action)
        if checked >= limit:  # long matches need not be played out
            break
    return checked, scored


def partition_ok(state) -> bool:
    """Whether the places of the cards (``card_places``) partition the 52-card deck."""
    return sorted(c for cards in state.card_places().values() for c in cards) == list(range(52))


def assert_seats_see_nothing_hidden(env, rng: np.random.Generator, repeats: int = 1) -> tuple[int, int]:
    """At the env's current position, for every seat and ``repeats`` times: deal the cards
    that seat cannot know differently (the game's ``redeal_hidden``) and assert that its
    observation, action mask and information set do not change. Returns (redeals that
    moved some card, redeals)."""
    g = env.game
    changed = done = 0
    for seat, agent in enumerate(env.possible_agents):
        real, info = env.observe(agent), g.information_set(seat)
        for _ in range(repeats):
            env.game = env.game_interface.redeal_hidden(g, seat, rng)
            changed += env.game.card_places() != g.card_places()
            done += 1
            alt = env.observe(agent)
            assert env.game.information_set(seat) == info
            env.game = g
            np.testing.assert_array_equal(real["observation"], alt["observation"])
            np.testing.assert_array_equal(real["action_mask"], alt["action_mask"])
    return changed, done


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(params=["compiled", "numpy"])
def solver_backend(request, monkeypatch):
    """Run a test twice: with the meld solver's, the heuristic's and the observation's
    compiled kernels (skipped without numba) and with their numpy array operations and
    Python loops."""
    from rummy_env.agents.gin import heuristic_terms
    from rummy_env.core import melds
    from rummy_env.gin import encoding

    scalar_caches = (melds._scalar_min_deadwood, melds._scalar_discard_deadwood)
    for cache in scalar_caches:  # single hands are memoised: solve them again on this path
        cache.cache_clear()
    request.addfinalizer(lambda: [cache.cache_clear() for cache in scalar_caches])
    if request.param == "numpy":
        for twin in (melds.KERNELS, heuristic_terms.KERNELS, encoding._encode_flat):
            monkeypatch.setattr(twin, "chosen", twin.otherwise)
    elif melds.KERNELS.get() is None or heuristic_terms.KERNELS.get() is None:
        pytest.skip("the numba kernels are not in use here")
    return request.param


@pytest.fixture()
def browser_ready() -> None:
    """Skips a browser test, saying why, where playwright or Chromium is missing (and fails
    it instead under ``RUMMY_REQUIRE_BROWSER=1``, as CI sets). Here, not in a conftest of
    tests/web: a second module named ``conftest`` would shadow this one for
    ``from conftest import ...``."""
    import os

    from web_helpers import browser_missing

    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    missing = browser_missing()
    if missing:
        if os.environ.get("RUMMY_REQUIRE_BROWSER") == "1":
            pytest.fail(f"RUMMY_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
