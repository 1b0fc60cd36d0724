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
    with pytest.raises(ValueError, match="unknown agent 'grandmaster' for Gin Rummy; available"):
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


# ----------------------------------------------------------------------------- every game's single-seat view

from rummy_env import agents  # noqa: E402
from rummy_env.core import game as game_registry  # noqa: E402
from rummy_env.core.game import games, get_game  # noqa: E402
from rummy_env.gym import env_id, register_views  # noqa: E402
from rummy_env.core.render import text_to_rgb  # noqa: E402
from rummy_env.gym.view import SingleSeatEnv  # noqa: E402

# a sample of each game's player counts: the least and the most (tests/core/test_conformance.py checks them all)
VIEW_CASES = sorted({(name, n) for name in games() for n in (get_game(name).min_players, get_game(name).max_players)})


def test_every_game_has_a_view_under_an_id_from_its_title():
    assert [env_id(name) for name in ("gin", "basic", "romme")] == [
        "rummy_env/GinRummy-v0", "rummy_env/BasicRummy-v0", "rummy_env/Romme-v0"]
    for name in games():
        spec = gymnasium.registry[env_id(name)]
        assert spec.kwargs == {"game": name}
        env = gymnasium.make(env_id(name)).unwrapped
        assert isinstance(env, SingleSeatEnv) and env.game_interface is get_game(name)
        assert env.num_players == get_game(name).min_players


def test_a_game_registered_later_gets_its_view_by_registering(monkeypatch):
    """A fourth game: a Game registered under a new name and title gets an id and a view
    from ``register_views`` alone, with no line about it in the view."""
    basic = get_game("basic")
    monkeypatch.setattr(game_registry, "_GAMES", dict(game_registry._GAMES))
    monkeypatch.setattr(game_registry, "_ALIASES", dict(game_registry._ALIASES))
    fourth = type("Kalooki", (type(basic),), {"name": "kalooki", "title": "Kalooki Rummy (test)", "aliases": ()})()
    game_registry.register_game(fourth)
    try:
        assert "rummy_env/KalookiRummyTest-v0" in register_views()
        env = gymnasium.make("rummy_env/KalookiRummyTest-v0", num_players=3, seat=2)
        obs, info = env.reset(seed=0)
        assert env.unwrapped.game_interface is fourth and env.unwrapped.game.current_player == 2
        assert env.observation_space.contains(obs) and info["action_mask"].any()
    finally:
        gymnasium.registry.pop("rummy_env/KalookiRummyTest-v0", None)


def _play_out(env, rng, on_learner_move=None):
    """Play one hand of the view with random legal actions; returns the last step."""
    obs, info = env.reset(seed=int(rng.integers(1 << 30)))
    view = env.unwrapped
    while True:
        mask = view.action_masks()
        assert mask.dtype == bool and mask.any() and (mask == info["action_mask"].astype(bool)).all()
        assert view.game.current_player == view.seat == info["seat"] and env.observation_space.contains(obs)
        if on_learner_move is not None:
            on_learner_move(view)
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not trunc and env.observation_space.contains(obs)
        if term:
            return reward, info


@pytest.mark.parametrize("name, n", VIEW_CASES)
@pytest.mark.parametrize("reward", ["points", "scaled", "win_loss"])
def test_the_learners_reward_is_what_the_games_aec_env_gives_its_seat(name, n, reward):
    """Replaying each hand of the view in the game's PettingZoo env (same deck, dealer and
    actions) gives the learner's seat the view's reward, in every reward mode."""
    game = get_game(name)
    env = gymnasium.make(env_id(name), num_players=n, seat="random", reward=reward,
                         opponent="heuristic" if n > 2 else "random")
    rng = np.random.default_rng(n)
    for _ in range(3):
        got, info = _play_out(env, rng)
        state = env.unwrapped.game
        aec = game.raw_env(num_players=n, reward=reward)
        aec.reset(options={"deck": list(state.deck), "dealer": state.dealer})
        for action in state.actions:
            aec.step(action)
        assert info["hand_result"] == state.result.to_dict()
        assert got == aec.rewards[f"player_{info['seat']}"]


@pytest.mark.parametrize("name, n", VIEW_CASES)
def test_the_view_shows_nothing_the_learner_cannot_know(name, n):
    """At every decision of the learner, dealing the cards it cannot know differently
    changes neither its observation nor its info (mask, seat)."""
    game = get_game(name)
    env = gymnasium.make(env_id(name), num_players=n, seat="random")
    rng = np.random.default_rng(3)
    moved = []

    def check(view):
        real, seat = view.game, view.seat
        obs, info = view.observe(seat), view._info()
        view.game = game.redeal_hidden(real, seat, rng)
        moved.append(view.game.card_places() != real.card_places())
        np.testing.assert_array_equal(view.observe(seat), obs)
        alt = view._info()
        view.game = real
        assert alt.keys() == info.keys() and alt["seat"] == info["seat"]
        np.testing.assert_array_equal(alt["action_mask"], info["action_mask"])

    for _ in range(2):
        _play_out(env, rng, check)
    assert sum(moved) > 10  # the redeals really moved hidden cards


def test_one_opponent_per_seat_in_turn_order_after_the_learner():
    """A list gives each other seat its own opponent: the first plays the seat after the
    learner's, and so on round the table."""
    calls = {k: set() for k in range(3)}

    def player(k):
        def act(observation, mask):
            calls[k].add(view.game.current_player)
            return int(np.flatnonzero(mask)[0])
        return act

    env = gymnasium.make("rummy_env/BasicRummy-v0", num_players=4, seat=1, opponent=[player(0), player(1), player(2)])
    view = env.unwrapped
    rng = np.random.default_rng(0)
    for _ in range(3):
        _play_out(env, rng)
    assert calls == {0: {2}, 1: {3}, 2: {0}}


def test_named_opponents_are_made_for_the_views_game_one_per_seat():
    env = gymnasium.make("rummy_env/Romme-v0", num_players=3, opponent="heuristic").unwrapped
    first, second = env.opponents
    assert first is not second and agents.plays(first) == agents.plays(second) == "romme"
    mixed = gymnasium.make("rummy_env/BasicRummy-v0", num_players=3, opponent=["random", "heuristic"]).unwrapped
    assert mixed.opponents[0] == "random" and agents.plays(mixed.opponents[1]) == "basic"
    obs, info = mixed.reset(seed=4)
    assert mixed.game.current_player == 0


def test_opponents_reseeded_by_reset_repeat_the_hands():
    def trace(seed):
        env = gymnasium.make("rummy_env/Romme-v0", num_players=3, seat="random", opponent="random")
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        out = [obs]
        done = False
        while not done:
            obs, reward, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
            out.append(obs)
        return np.stack(out), env.unwrapped.game.actions

    (a, actions_a), (b, actions_b) = trace(5), trace(5)
    np.testing.assert_array_equal(a, b)
    assert actions_a == actions_b


def test_bad_view_arguments_are_refused_in_one_line():
    with pytest.raises(ValueError, match=r"num_players must be an integer 2\.\.4, got 5"):
        gymnasium.make("rummy_env/BasicRummy-v0", num_players=5)
    with pytest.raises(ValueError, match=r"seat must be a seat 0\.\.2 or 'random', got 3"):
        gymnasium.make("rummy_env/BasicRummy-v0", num_players=3, seat=3)
    with pytest.raises(ValueError, match=r"a list needs one choice per other seat \(2 for 3 players\), got 1"):
        gymnasium.make("rummy_env/Romme-v0", num_players=3, opponent=["random"])
    with pytest.raises(ValueError, match="unknown agent 'simple' for Basic Rummy"):
        gymnasium.make("rummy_env/BasicRummy-v0", opponent="simple")
    with pytest.raises(ValueError, match="opponent .* plays Gin Rummy, not Rommé"):
        gymnasium.make("rummy_env/Romme-v0", opponent=agents.make("heuristic", game="gin"))
    with pytest.raises(ValueError, match="unknown encoding 'pixels'"):
        gymnasium.make("rummy_env/Romme-v0", encoding="pixels")
    with pytest.raises(ValueError, match="reward must be one of"):
        gymnasium.make("rummy_env/BasicRummy-v0", reward="money")
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        SingleSeatEnv("poker")
    env = gymnasium.make("rummy_env/BasicRummy-v0").unwrapped
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=f"action must be an integer action id 0..{get_game('basic').num_actions - 1}"):
        env.step(get_game("basic").num_actions)


@pytest.mark.parametrize("name", ["basic", "romme"])
def test_render_modes_draw_the_table_from_the_learners_seat(name):
    text = gymnasium.make(env_id(name), num_players=3, seat=1, render_mode="ansi")
    text.reset(seed=0)
    assert text.render() == text.unwrapped.game.render(perspective=1)
    frames = gymnasium.make(env_id(name), num_players=3, render_mode="rgb_array")
    frames.reset(seed=0)
    frame = frames.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # text drawn, not a blank frame


@pytest.mark.parametrize("name", games())
def test_frames_of_a_game_keep_one_size_while_the_table_grows(name):
    """Video writers need frames of one size: a whole hand of the heuristic's (melds laid
    on the table add lines) and a text far longer than any table draw at the game's size."""
    game = get_game(name)
    env = gymnasium.make(env_id(name), num_players=game.max_players, opponent="heuristic", render_mode="rgb_array")
    env.reset(seed=3)
    me = agents.make("heuristic", seed=3, game=name)
    shapes, lines, done = set(), set(), False
    while not done:
        shapes.add(env.render().shape)
        lines.add(len(env.unwrapped.game.render(perspective=None).splitlines()))
        info = {"information_set": env.unwrapped.game.information_set(env.unwrapped.seat), "rules": env.unwrapped.rules}
        _, _, done, _, _ = env.step(me.act({"action_mask": env.unwrapped.action_masks()}, info))
    shapes.add(env.render().shape)
    assert len(shapes) == 1, (lines, shapes)  # Basic Rummy and Rommé: lines come and go, the size stays
    crowded = "\n".join("  table 9 (player_1): 9C TC [JC] QC KC" * 9 for _ in range(5 * game.frame_lines))
    assert text_to_rgb(crowded, game.frame_lines).shape == shapes.pop()
