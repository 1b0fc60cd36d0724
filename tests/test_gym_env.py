"""Gymnasium views: the single-agent env (check_env, masks, opponents) and the vector env."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import rummy_env  # noqa: F401  (registers rummy_env/GinRummy-v0)
from rummy_env.gin.game import BIG_GIN, DRAW_STOCK, KNOCK, NUM_ACTIONS, PASS, TAKE_DISCARD, IllegalActionError
from rummy_env.gym.gin import GinRummyEnv, VectorGinRummyEnv


@pytest.mark.filterwarnings("ignore:.*illegal action")  # the checker plays unmasked random actions
@pytest.mark.parametrize("encoding", ["flat", "planes"])
def test_passes_gymnasiums_env_checker(encoding):
    check_env(GinRummyEnv(encoding=encoding), skip_render_check=True)
    check_env(GinRummyEnv(encoding=encoding, rules="eaai", seat="random", reward="win_loss"), skip_render_check=True)


def test_registered_and_played_to_the_end_with_masks():
    env = gymnasium.make("rummy_env/GinRummy-v0", opponent="random", seat="random")
    rng = np.random.default_rng(0)
    outcomes = set()
    for episode in range(80):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            assert mask.dtype == bool and mask.any()
            assert (mask == info["action_mask"].astype(bool)).all()
            assert env.unwrapped.game.current_player == info["seat"]
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert env.observation_space.contains(obs) and not trunc
            done = term
        result = info["hand_result"]
        outcomes.add(result["outcome"])
        assert reward == result["rewards"][info["seat"]]
    assert "draw" in outcomes and len(outcomes) > 1


def test_callable_opponent_sees_its_own_seat_and_mask():
    seen = []

    def first_legal(observation, mask):
        seen.append((observation.shape, mask.sum()))
        return int(np.flatnonzero(mask)[0])

    env = GinRummyEnv(opponent=first_legal, seat=1)
    env.reset(seed=3)
    while not env.game.is_over:
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert seen and all(shape == (479,) and n > 0 for shape, n in seen)


def test_illegal_learner_action_ends_the_episode_with_the_penalty_and_a_warning():
    env = GinRummyEnv(seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(UserWarning, match=f"illegal action {illegal} ends the episode with reward -1.0; legal now"):
        obs, reward, term, trunc, info = env.step(illegal)
    assert term and reward == -1.0 and info["illegal_action"] == illegal


@pytest.mark.parametrize("action", [NUM_ACTIONS + 5, -1, 2.0, True, "0", np.array([0, 1])])
def test_an_action_that_is_no_action_id_is_an_error_and_changes_nothing(action):
    env = GinRummyEnv(seat=0)
    env.reset(seed=0)
    before = env.game.clone()
    with pytest.raises(IllegalActionError, match="action must be an integer action id 0..107, got"):
        env.step(action)
    assert env.game.history == before.history and not env.game.is_over


def test_numpy_integers_are_action_ids():
    """Vector-env libraries pass numpy scalars or 0-d arrays (SB3's DummyVecEnv does)."""
    for wrap in (np.int64, np.int32, np.array):
        env = GinRummyEnv(seat=0)
        env.reset(seed=0)
        first = int(np.flatnonzero(env.action_masks())[0])
        env.step(wrap(first))
        assert len(env.game.history) >= 1


def test_reset_always_leaves_the_learner_to_move_and_reports_the_hands_dealt_past():
    """When the learner deals, the opponent may take the upcard and knock at once: such a
    hand is dealt past and reported, never returned as a position with no legal move."""
    env = gymnasium.make("rummy_env/GinRummy-v0", opponent="simple", seat="random").unwrapped
    skipped = []
    for seed in range(2000):
        obs, info = env.reset(seed=seed)
        assert env.action_masks().any() and env.game.current_player == env.seat and not env.game.is_over
        for hand in info["skipped_hands"]:
            result = hand["hand_result"]
            assert result["knocker"] == 1 - hand["seat"] and result["outcome"] in ("knock", "gin", "big_gin")
            assert hand["reward"] == result["rewards"][hand["seat"]] != 0
            skipped.append(seed)
        env.step(int(np.flatnonzero(env.action_masks())[0]))  # the crash: the first step
    assert 1665 in skipped and 3 <= len(skipped) <= 20  # about 1 in 300


def test_vector_env_never_counts_a_hand_the_learner_did_not_play():
    """A hand that ends before the learner moves (often right after the learner's own
    hand ended, in the same step) is reported apart and does not touch the reward of the
    episode that did end."""

    def knock_eager(mask):
        knock = mask[:, KNOCK:BIG_GIN].any(axis=1)
        take = mask[:, TAKE_DISCARD] == 1
        return np.where(knock, KNOCK + mask[:, KNOCK:BIG_GIN].argmax(axis=1), np.where(take, TAKE_DISCARD, mask.argmax(axis=1)))

    env = VectorGinRummyEnv(256, opponent="simple", seat="random", seed=0)
    obs, info = env.reset(seed=0)
    skipped = same_step = 0
    for _ in range(300):
        assert (env._last.player == env.seats).all() and env.action_masks().any(axis=1).all()
        obs, rewards, term, trunc, info = env.step(knock_eager(env.action_masks()))
        final, passed = info["final"], info["skipped_hands"] > 0
        for i in np.flatnonzero(term):
            seat, winner, points = final["learner_seat"][i], final["winner"][i], final["points"][i]
            assert rewards[i] == (0 if winner < 0 else (points if winner == seat else -points))
        assert not rewards[~term].any()
        assert (info["skipped_rewards"][passed] != 0).all() and not info["skipped_rewards"][~passed].any()
        skipped += int(info["skipped_hands"].sum())
        same_step += int((passed & term).sum())
    assert skipped >= 3 and same_step >= 1


@pytest.mark.filterwarnings("ignore:.*illegal action")
def test_render_modes_include_rgb_array():
    env = GinRummyEnv(seat=0, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[1] > 600
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # text drawn, not a blank frame
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.render().shape == frame.shape  # frames of a game keep one size (video writers need it)
    text = GinRummyEnv(seat=0, render_mode="ansi")
    text.reset(seed=0)
    assert isinstance(text.render(), str) and "player_0" in text.render()
    with pytest.raises(ValueError, match=r"render_mode must be None or one of \['ansi', 'human', 'rgb_array'\]"):
        GinRummyEnv(render_mode="rgb")
    check_env(gymnasium.make("rummy_env/GinRummy-v0", render_mode="rgb_array").unwrapped)


def test_named_agents_as_opponents():
    for spec in ("simple", "heuristic", "medium"):
        env = gymnasium.make("rummy_env/GinRummy-v0", opponent=spec, seat=1)
        obs, info = env.reset(seed=1)
        while True:
            obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            if term:
                break
        assert "hand_result" in info


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="unknown agent 'grandmaster'; available"):
        GinRummyEnv(opponent="grandmaster")
    with pytest.raises(ValueError, match="unknown opponent 'mcts'; allowed: random, simple, heuristic"):
        VectorGinRummyEnv(2, opponent="mcts")
    with pytest.raises(TypeError, match="opponent must be"):
        GinRummyEnv(opponent=3)
    with pytest.raises(ValueError, match="seat must be"):
        GinRummyEnv(seat=2)
    with pytest.raises(ValueError, match="reward must be"):
        VectorGinRummyEnv(4, reward="money")


def test_vector_env_learner_always_to_move_and_rewards_match_the_showdown():
    env = VectorGinRummyEnv(32, seat="random", seed=0)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        assert (env._last.player == env.seats).all()
        mask = env.action_masks()
        assert mask.any(axis=1).all()
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, rewards, term, trunc, info = env.step(actions)
        assert env.observation_space.contains(obs) and not trunc.any()
        final = info["final"]
        done = np.flatnonzero(term)
        ended += done.size
        for i in done:
            seat, winner, points = final["learner_seat"][i], final["winner"][i], final["points"][i]
            want = 0 if winner < 0 else (points if winner == seat else -points)
            assert rewards[i] == want
        assert not rewards[~term].any()
    assert ended > 50


def test_vector_env_batched_callable_opponent_and_seeding():
    calls = []

    def always_stock_or_first(obs, mask):
        calls.append(obs.shape[0])
        return np.where(mask[:, DRAW_STOCK] == 1, DRAW_STOCK, mask.argmax(axis=1))

    def run(seed):
        env = VectorGinRummyEnv(8, opponent=always_stock_or_first, seat=0, seed=seed)
        obs, _ = env.reset(seed=seed)
        trace = [obs]
        for _ in range(40):
            m = env.action_masks()
            obs, r, term, _, _ = env.step(m.argmax(axis=1))
            trace.append(obs)
        return np.stack(trace)

    np.testing.assert_array_equal(run(4), run(4))
    assert calls and max(calls) <= 8


def test_vector_env_with_the_scripted_agents_as_opponents():
    """Against a learner that always draws from the stock and throws its first legal card,
    the named scripted opponents win far more points a hand than a random one."""
    points = {}
    for name in ("random", "simple", "heuristic"):
        env = VectorGinRummyEnv(64, opponent=name, seat=0, seed=3)
        env.reset(seed=3)
        total, ended = 0.0, 0
        for _ in range(150):
            m = env.action_masks()
            actions = np.where(m[:, DRAW_STOCK], DRAW_STOCK, np.where(m[:, PASS], PASS, m.argmax(axis=1)))
            _, r, term, _, _ = env.step(actions)
            total, ended = total + r[term].sum(), ended + term.sum()
        points[name] = total / ended
    assert points["heuristic"] < points["random"] - 20 and points["simple"] < points["random"] - 20
