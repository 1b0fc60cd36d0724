"""The Basic Rummy AEC env (basic_rummy_v0): PettingZoo's own tests for 2, 3 and 4 players,
spaces, infos with the scoring, rewards, errors, rendering and the benchmark script."""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import seed_test

from conftest import run_api_test
from env_loops import decisions
from rummy_env import basic_rummy_v0
from rummy_env.basic import encoding as rummy_encoding
from rummy_env.basic.game import DRAW_STOCK, MELD, NUM_ACTIONS, TAKE_DISCARD, IllegalActionError
from rummy_env.basic.rules import BasicRummyRules
from rummy_env.core.textview import array_encodings
from test_basic_game import discard, meld

@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_api_test(n):
    run_api_test(basic_rummy_v0.env(num_players=n), 300)
    run_api_test(basic_rummy_v0.env(num_players=n, encoding="planes", episode="match", reward="win_loss"), 300)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pettingzoo_seed_test(n):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(lambda: basic_rummy_v0.env(num_players=n), num_cycles=300)


def test_reset_with_seed_keeps_the_rules_and_players():
    rules = BasicRummyRules(aces="high", target_score=300, stock_turnovers=2)
    env = basic_rummy_v0.raw_env(num_players=3, rules=rules)
    for seed in (None, 0, 1):
        env.reset(seed=seed)
        assert env.rules == rules and env.game.rules == rules and env.game.num_players == 3
        assert env.possible_agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_observation_shapes_equal_the_declared_spaces(n):
    for enc in array_encodings(rummy_encoding.ENCODINGS):  # the text views: tests/core/test_textview.py
        env = basic_rummy_v0.raw_env(num_players=n, encoding=enc, episode="match")
        env.reset(seed=0)
        for agent in env.possible_agents:
            obs = env.observe(agent)
            space = env.observation_space(agent)
            assert obs["observation"].shape == space["observation"].shape == rummy_encoding.observation_shape(enc)
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (NUM_ACTIONS,)
            assert space.contains(obs)
        assert env.state().shape == env.state_space.shape == (rummy_encoding.STATE_SIZE,)
    assert rummy_encoding.flat_slices()["players_4"].stop == rummy_encoding.FLAT_SIZE == 910


def test_flat_slices_hold_the_named_parts_relative_to_the_observer():
    env = basic_rummy_v0.raw_env(num_players=3)
    deck = list(range(52))
    env.reset(seed=0, options={"dealer": 2, "deck": deck})  # seat 0: AC-7C; upcard 9D (id 21)
    env.step(TAKE_DISCARD)
    g = env.game
    sl = rummy_encoding.flat_slices()
    obs0 = env.observe("player_0")["observation"]
    assert np.flatnonzero(obs0[sl["hand"]]).tolist() == list(range(7)) + [21]
    assert obs0[sl["taken"]][21] == 1 and obs0[sl["phase_play"]][0] == 1
    obs2 = env.observe("player_2")["observation"]  # player_0 is two seats to player_2's left
    assert obs2[sl["known_rel1"]][21] == 1 and obs2[sl["hand_size_rel1"]][0] == pytest.approx(8 / 11)
    assert obs2[sl["dealer_rel0"]][0] == 1 and obs2[sl["players_3"]][0] == 1
    assert obs2[sl["unseen"]].sum() == 52 - 7 - 1  # its own hand and the known card
    planes = rummy_encoding.encode(g.information_set(0), g.rules, "planes")
    np.testing.assert_array_equal(planes[0].ravel(), obs0[sl["hand"]])
    env.step(meld("AC 2C 3C 4C 5C 6C"))  # (AC-7C would leave the taken 9D alone: illegal)
    obs1 = env.observe("player_1")["observation"]
    assert np.flatnonzero(obs1[sl["played_rel2"]]).tolist() == list(range(6))
    assert np.flatnonzero(obs1[sl["layoff_targets"]]).tolist() == [6]  # 7C extends the run


def test_masks_are_for_the_player_to_move_only():
    env = basic_rummy_v0.raw_env(num_players=4)
    env.reset(seed=0, options={"dealer": 1})
    assert env.agent_selection == "player_2"
    assert np.flatnonzero(env.observe("player_2")["action_mask"]).tolist() == [DRAW_STOCK, TAKE_DISCARD]
    for other in ("player_0", "player_1", "player_3"):
        assert env.observe(other)["action_mask"].sum() == 0


def test_hand_end_infos_and_rewards():
    # The scripted rummy of test_rummy_game: player_0 scores 2 x 60 = 120.
    from rummy_env.basic.game import BasicRummyState

    s = BasicRummyState.from_hands(["AC 2C 3C 7D 7H 7S 9S TS JS KD", "4C 5H 6H 8D 8C QD QH 2D 3S 4S"], "5D", "QS")
    for reward, expect in (("points", [120, -120]), ("scaled", [1.2, -1.2]), ("win_loss", [1, -1])):
        env = basic_rummy_v0.raw_env(reward=reward)
        env.reset(options={"dealer": 1, "deck": list(s.deck)})
        for a in (DRAW_STOCK, meld("9S TS JS QS"), meld("7D 7H 7S"), meld("AC 2C 3C"), discard("KD")):
            env.step(a)
        assert all(env.terminations.values())
        assert [env._cumulative_rewards[a] for a in env.agents] == pytest.approx(expect)
        for agent in env.agents:
            info = env.infos[agent]
            assert info["hand_result"]["outcome"] == "rummy" and info["hand_result"]["points"] == 120
            assert info["hand_result"]["hands_left"] == ["", "4C 8C 2D 8D QD 5H 6H QH 3S 4S"]
            assert info["game"] == "basic_rummy" and info["information_set"].result is not None
    assert env.infos["player_0"]["information_set"].known[1] == s.hands[1]  # shown once a player goes out


def test_win_loss_rewards_are_zero_sum_for_more_players():
    env = basic_rummy_v0.raw_env(num_players=4, reward="win_loss")
    rng = np.random.default_rng(0)
    for seed in range(30):
        env.reset(seed=seed)
        finals = dict.fromkeys(env.possible_agents, 0.0)
        for _, obs, _ in decisions(env, finals):
            legal = np.flatnonzero(obs["action_mask"])
            plays = legal[legal >= MELD]
            env.step(int(rng.choice(plays if plays.size else legal)))
        result = env.game.result
        if result.winner is not None:
            assert sorted(finals.values()) == pytest.approx([-1 / 3] * 3 + [1.0])
            assert finals[f"player_{result.winner}"] == 1.0
            break
    else:
        pytest.fail("nobody went out in 30 games")


def test_a_match_episode_adds_hands_to_the_target():
    env = basic_rummy_v0.raw_env(num_players=3, episode="match", rules={"target_score": 60})
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for _, obs, _ in decisions(env, returns):
        legal = np.flatnonzero(obs["action_mask"])
        plays = legal[legal >= MELD]
        env.step(int(rng.choice(plays if plays.size else legal)))
    final = env.match.result()
    assert max(final.totals) >= 60 and final.hands_played == len(env.match.results) >= 1
    assert sum(returns.values()) == pytest.approx(0)
    assert returns[f"player_{final.winner}"] == pytest.approx(final.totals[final.winner])


def test_raw_env_refuses_illegal_actions_and_env_terminates():
    env = basic_rummy_v0.raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 2 .*legal: 0 \(draw stock\), 1 \(take discard\)"):
        env.step(2)
    for bad in (NUM_ACTIONS, -1, 2.0, True, None):
        with pytest.raises(IllegalActionError, match="integer action id 0..1266"):
            env.step(bad)
    wrapped = basic_rummy_v0.env(num_players=3, illegal_reward=-5)
    wrapped.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs the illegal move as a warning
        wrapped.step(2)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards == {"player_0": -5.0, "player_1": 0.0, "player_2": 0.0}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_players": 5}, "num_players must be an integer 2..4"),
        ({"num_players": 1}, "num_players must be an integer 2..4"),
        ({"encoding": "image"}, "unknown encoding"),
        ({"episode": "set"}, "episode must be one of"),
        ({"reward": "elo"}, "reward must be one of"),
        ({"rules": "classic"}, "unknown Basic Rummy rules 'classic'"),
        ({"episode": "match", "rules": {"target_score": 0}}, "needs rules with target_score > 0"),
        ({"render_mode": "rgb"}, r"render_mode must be None or one of \['ansi', 'human', 'rgb_array'\]"),
    ],
)
def test_bad_arguments_name_what_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=message):
        basic_rummy_v0.raw_env(**kwargs)
    env = basic_rummy_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match="dealer must be a seat 0..2"):
        env.reset(options={"dealer": 3})


def test_render_ansi_shows_the_table():
    env = basic_rummy_v0.raw_env(num_players=4, render_mode="ansi", episode="match")
    env.reset(seed=2)
    text = env.render()
    assert text.count("player_") >= 4 and "stock: 23 cards" in text and "match points: player_0 0" in text
    frames = basic_rummy_v0.raw_env(num_players=4, render_mode="rgb_array")
    frames.reset(seed=2)
    frame = frames.render()
    assert frame.dtype == np.uint8 and frame.shape[2] == 3 and len(np.unique(frame.reshape(-1, 3), axis=0)) > 10


def test_bench_script_runs_on_a_tiny_budget(tmp_path):
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_rummy.py"
    out = subprocess.run([sys.executable, str(script), "--seconds", "0.2", "--repeats", "1"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    for n in (2, 3, 4):
        assert f"basic_rummy_v0.env(num_players={n})" in out.stdout
