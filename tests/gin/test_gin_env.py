"""The PettingZoo AEC env: PettingZoo's own tests, options, rewards, infos, errors."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import seed_test
from pettingzoo.utils import wrappers

from conftest import run_api_test
from rummy_env import gin_rummy_v0
from rummy_env.gin import encoding
from rummy_env.core.textview import array_encodings
from rummy_env.gin.game import DRAW_STOCK, PASS, TAKE_DISCARD, IllegalActionError
from rummy_env.gin.rules import PRESETS, Rules

@pytest.mark.parametrize("enc", encoding.ENCODINGS)
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_pettingzoo_api_test(enc, episode):
    run_api_test(gin_rummy_v0.env(encoding=enc, episode=episode))


@pytest.mark.parametrize("rules", ["eaai", "openspiel"])
def test_pettingzoo_api_test_other_presets(rules):
    run_api_test(gin_rummy_v0.env(rules=rules, reward="win_loss"))


def test_pettingzoo_seed_test():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(gin_rummy_v0.env, num_cycles=300)
        seed_test(lambda: gin_rummy_v0.env(episode="match", encoding="planes"), num_cycles=300)


def test_reset_with_seed_keeps_the_rules():
    rules = Rules(knock_limit=5, aces="high", max_turns=40)
    env = gin_rummy_v0.raw_env(rules=rules)
    for seed in (None, 0, 1):
        env.reset(seed=seed)
        assert env.rules == rules and env.game.rules == rules and env.game.knock_limit == 5
    env = gin_rummy_v0.raw_env(rules="openspiel")
    env.reset(seed=3)
    assert env.game.rules == PRESETS["openspiel"]


def test_observation_shapes_equal_the_declared_spaces():
    for enc in array_encodings(encoding.ENCODINGS):  # the text views: tests/core/test_textview.py
        env = gin_rummy_v0.raw_env(encoding=enc)
        env.reset(seed=0)
        for agent in env.possible_agents:
            obs = env.observe(agent)
            space = env.observation_space(agent)
            assert obs["observation"].shape == space["observation"].shape == encoding.observation_shape(enc)
            assert obs["action_mask"].dtype == np.int8 and space.contains(obs)
    assert env.state().shape == env.state_space.shape


def test_flat_slices_hold_the_named_parts():
    env = gin_rummy_v0.raw_env()
    env.reset(seed=4)
    g = env.game
    obs = env.observe("player_0")["observation"]
    sl = encoding.flat_slices()
    assert np.flatnonzero(obs[sl["hand"]]).tolist() == sorted(c for c in range(52) if g.hands[0] >> c & 1)
    assert np.flatnonzero(obs[sl["discard_top"]]).tolist() == [g.discard_pile[-1]]
    assert obs[sl["phase_offer"]][0] == 1.0 and obs[sl["stock_size"]][0] == 1.0
    assert obs[sl["unseen"]].sum() == 52 - 10 - 1
    planes = encoding.encode(g.information_set(0), g.rules, "planes")
    np.testing.assert_array_equal(planes[0].ravel(), obs[sl["hand"]])
    assert sl["opponent_score"].stop == encoding.FLAT_SIZE


def test_masks_are_for_the_player_to_move_only():
    env = gin_rummy_v0.raw_env()
    env.reset(seed=0, options={"dealer": 1})
    assert env.agent_selection == "player_0"
    assert np.flatnonzero(env.observe("player_0")["action_mask"]).tolist() == [TAKE_DISCARD, PASS]
    assert env.observe("player_1")["action_mask"].sum() == 0
    env.step(PASS)
    env.step(PASS)
    assert np.flatnonzero(env.observe("player_0")["action_mask"]).tolist() == [DRAW_STOCK]


def test_raw_env_refuses_illegal_actions_naming_the_legal_ones():
    env = gin_rummy_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action 0 \(draw stock\).*legal: 1 \(take discard\), 2 \(pass\)"):
        env.step(DRAW_STOCK)
    for bad in (500, -1, 2.0, True, None):
        with pytest.raises(IllegalActionError, match="integer action id 0..107"):
            env.step(bad)


def test_refused_actions_change_nothing():
    env = gin_rummy_v0.raw_env(episode="match")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.infos[env.agent_selection].get("hand_result"):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        knocks = legal[legal >= 55]
        env.step(int(knocks[0]) if knocks.size else int(rng.choice(legal)))
    agent = env.agent_selection
    before = (dict(env._cumulative_rewards), dict(env.infos[agent]), list(env.game.history))
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert (dict(env._cumulative_rewards), dict(env.infos[agent]), list(env.game.history)) == before


def test_wrapped_env_follows_the_illegal_move_convention():
    env = gin_rummy_v0.env()
    env.reset(seed=0)
    bad = env.agent_selection
    env.step(DRAW_STOCK)
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env.rewards[bad] == -1 and sum(env.rewards.values()) == -1
    env = gin_rummy_v0.env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="0..107"):
        env.step(108)  # not a move at all: an error, never a silent loss


def standard_stack(**kwargs):
    """raw_env under PettingZoo's own classic-env wrappers, for comparison with env()."""
    e = wrappers.TerminateIllegalWrapper(gin_rummy_v0.raw_env(**kwargs), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_env_behaves_exactly_like_the_standard_wrapper_stack(episode):
    for seed in range(30):
        a, b = gin_rummy_v0.env(episode=episode), standard_stack(episode=episode)
        rng = np.random.default_rng(seed)
        a.reset(seed=seed)
        b.reset(seed=seed)
        for agent_a, agent_b in zip(a.agent_iter(), b.agent_iter()):
            assert agent_a == agent_b
            la, lb = a.last(), b.last()
            np.testing.assert_array_equal(la[0]["observation"], lb[0]["observation"])
            np.testing.assert_array_equal(la[0]["action_mask"], lb[0]["action_mask"])
            assert la[1:] == lb[1:]
            if la[2] or la[3]:
                action = None
            elif rng.random() < 0.01:
                action = int(rng.choice(np.flatnonzero(la[0]["action_mask"] == 0)))  # an illegal move
            else:
                action = int(rng.choice(np.flatnonzero(la[0]["action_mask"])))
            a.step(action)
            b.step(action)
            assert (a.rewards, a.terminations, a.truncations) == (b.rewards, b.terminations, b.truncations)
        assert a.agents == b.agents == []


def _outcome(call):
    """What a call does: its value, or the type and message of what it raised."""
    try:
        return ("ok", call())
    except BaseException as exc:  # noqa: BLE001 - the comparison is the point
        return (type(exc).__name__, str(exc))


def test_env_enforces_the_call_order_as_pettingzoo_does():
    """env() wraps in OrderEnforced (fast attribute reads): every misuse must be met as
    OrderEnforcingWrapper meets it, before reset, in a loop without step, and after the end."""
    fast, plain = gin_rummy_v0.env(), wrappers.OrderEnforcingWrapper(gin_rummy_v0.raw_env(illegal_action="terminate"))
    assert isinstance(fast, wrappers.OrderEnforcingWrapper)
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
        assert _outcome(lambda: getattr(fast, name)) == _outcome(lambda: getattr(plain, name))
        assert _outcome(lambda: getattr(fast, name))[0] == "AttributeError"
    for call in (lambda e: e.step(0), lambda e: e.observe("player_0"), lambda e: e.last(), lambda e: e.state(),
                 lambda e: iter(e.agent_iter())):
        assert _outcome(lambda: call(fast))[0] == _outcome(lambda: call(plain))[0] != "ok"
    for env in (fast, plain):
        env.reset(seed=3)
    for a, b in zip(fast.agent_iter(), plain.agent_iter()):  # next() twice without step(): the same assertion
        assert a == b
        break
    with pytest.raises(AssertionError, match="need to call step"):
        next(iter(fast.agent_iter()))
    with pytest.raises(AssertionError, match="need to call step"):
        next(iter(plain.agent_iter()))
    fast.agent_selection = "player_1"  # a write reaches the env, as the wrapper's own attribute would not
    assert fast.unwrapped.agent_selection == "player_1"


def play_out(env, rng, seed):
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    hand_infos = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if "hand_result" in info:
            hand_infos.append((agent, info))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        knocks = legal[legal >= 55]
        env.step(int(knocks[0]) if knocks.size else int(rng.choice(legal)))
    return totals, hand_infos


def test_hand_episode_rewards_and_showdown_infos():
    rng = np.random.default_rng(0)
    outcomes = set()
    for seed in range(60):
        env = gin_rummy_v0.env()
        totals, infos = play_out(env, rng, seed)
        assert sum(totals.values()) == 0
        assert {a for a, _ in infos} == set(env.possible_agents)  # both seats see the showdown
        result = infos[0][1]["hand_result"]
        outcomes.add(result["outcome"])
        assert totals["player_0"] == result["rewards"][0] and totals["player_1"] == result["rewards"][1]
        if result["outcome"] != "draw":
            shown = result["shown_hands"][result["knocker"]].split()
            laid = " ".join(result["knocker_melds"] + [result["knocker_deadwood_cards"]]).split()
            assert sorted(laid) == sorted(shown) and len(shown) == 10
            assert result["knocker_deadwood"] <= 10
    assert "draw" in outcomes and len(outcomes) >= 2


def test_match_episode_returns_grand_total_difference():
    rng = np.random.default_rng(1)
    env = gin_rummy_v0.env(episode="match")
    totals, infos = play_out(env, rng, 11)
    final = [i for _, i in infos if "match_result" in i]
    assert final, "the match must end with a match_result"
    grand = final[0]["match_result"]["grand_total"]
    assert totals["player_0"] == grand[0] - grand[1] == -totals["player_1"]
    assert max(final[0]["match_result"]["hand_points"]) >= 100


@pytest.mark.parametrize("reward, scale", [("scaled", 100.0), ("win_loss", None)])
def test_reward_options(reward, scale):
    for seed in range(40):
        totals_p, _ = play_out(gin_rummy_v0.env(), np.random.default_rng(seed), seed)
        totals_r, _ = play_out(gin_rummy_v0.env(reward=reward), np.random.default_rng(seed), seed)
        if scale:
            assert totals_r["player_0"] == pytest.approx(totals_p["player_0"] / scale)
        else:
            assert totals_r["player_0"] == np.sign(totals_p["player_0"])
        assert totals_r["player_0"] == -totals_r["player_1"]


def test_explicit_deck_and_dealer_options():
    deck = list(range(52))
    env = gin_rummy_v0.raw_env()
    env.reset(options={"deck": deck, "dealer": 0})
    assert env.game.hands[1] == (1 << 10) - 1 and env.agent_selection == "player_1"
    with pytest.raises(ValueError, match="dealer must be 0 or 1"):
        env.reset(options={"dealer": 2})


def test_render_modes():
    env = gin_rummy_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "player_0" in text and "discard pile" in text and "to offer" in text
    env = gin_rummy_v0.raw_env(render_mode="human")
    env.reset(seed=0)
    env.render()
    env = gin_rummy_v0.raw_env(render_mode="rgb_array", episode="match")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # text drawn, not a blank frame


def test_bad_arguments_name_what_is_allowed():
    with pytest.raises(ValueError, match="encoding"):
        gin_rummy_v0.raw_env(encoding="pixels")
    with pytest.raises(ValueError, match="episode must be one of"):
        gin_rummy_v0.raw_env(episode="season")
    with pytest.raises(ValueError, match="reward must be one of"):
        gin_rummy_v0.raw_env(reward="money")
    with pytest.raises(ValueError, match="render_mode"):
        gin_rummy_v0.raw_env(render_mode="rgb")
    with pytest.raises(ValueError, match="target_score > 0"):
        gin_rummy_v0.raw_env(rules="openspiel", episode="match")


def test_importing_the_env_does_not_import_torch():
    code = "import sys, rummy_env, rummy_env.gin_rummy_v0; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
