"""Stable-Baselines3 on the Gymnasium view: ``make_vec_env`` (which asks for
``render_mode="rgb_array"``) builds the env, and the shipped MaskablePPO example trains
briefly and beats ``random``."""

import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

import rummy_env  # noqa: E402, F401

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sb3_maskable_ppo.py"


def test_make_vec_env_builds_the_env_with_its_default_render_mode():
    venv = make_vec_env("rummy_env/GinRummy-v0", n_envs=2, seed=0, env_kwargs={"opponent": "simple"})
    assert venv.render_mode == "rgb_array"
    obs = venv.reset()
    assert obs.shape == (2, 479)
    masks = venv.env_method("action_masks")
    assert all(m.any() for m in masks)
    frame = venv.env_method("render")[0]
    assert frame.ndim == 3 and frame.shape[2] == 3


def test_the_maskable_ppo_example_trains_briefly_and_beats_random():
    out = subprocess.run([sys.executable, str(EXAMPLE), "--steps", "40000", "--hands", "200"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    found = re.search(r"vs random: ([+-][\d.]+) \+- ([\d.]+) points a hand", out.stdout)
    assert found, out.stdout
    mean, ci = float(found.group(1)), float(found.group(2))
    assert mean - ci > 5.0, out.stdout  # random against random scores about 0


# ----------------------------------------------------------------------------- a trained model as an agent

import json  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from conftest import play_checking_no_peeking  # noqa: E402
from env_loops import decisions  # noqa: E402
from hostile_files import hostile_policy  # noqa: E402
from rummy_env import agents  # noqa: E402
from rummy_env.agents.sb3_policy import FORMAT  # noqa: E402
from rummy_env.agents.torch_files import UnsafeFileError  # noqa: E402
from rummy_env.core.game import get_game  # noqa: E402
from rummy_env.eval.config import TournamentConfig  # noqa: E402
from rummy_env.eval.tournament import run  # noqa: E402
from rummy_env.gym import env_id, save_policy  # noqa: E402

# (game, players, encoding, policy_kwargs): each game once, with the default MLP and with others
TRAINED = [("basic", 3, "flat", None), ("romme", 2, "flat", {"net_arch": [32, 16], "activation_fn": torch.nn.ReLU}),
           ("gin", 2, "planes", {"net_arch": {"pi": [24], "vf": [8]}})]


def tiny_model(name, n, encoding="flat", policy_kwargs=None, **view):
    """MaskablePPO trained a few hundred steps on the game's view: enough to have weights of its own."""
    torch.set_num_threads(1)
    venv = make_vec_env(env_id(name), n_envs=2, seed=0, env_kwargs={
        "num_players": n, "seat": "random", "encoding": encoding, "reward": "scaled", **view})
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, policy_kwargs=policy_kwargs)
    return model.learn(128)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Each game's tiny model and its policy file."""
    folder = tmp_path_factory.mktemp("sb3")
    out = {}
    for name, n, encoding, kwargs in TRAINED:
        model = tiny_model(name, n, encoding, kwargs)
        out[name] = (model, save_policy(model, folder / f"{name}.pt"), n, encoding)
    return out


def predicted(model, game, state, seat, encoding):
    """What ``model.predict`` plays at ``seat`` of ``state``, from the observation the view
    gives there (the information set in the view's encoding, no match scores)."""
    obs = game.encoding(encoding).encode(state.information_set(seat), state.rules)
    return model.predict(obs, action_masks=state.legal_mask().astype(bool), deterministic=True)[0]


@pytest.mark.parametrize("name", [t[0] for t in TRAINED])
def test_a_saved_model_plays_a_tournament_through_its_spec_as_predict_plays(trained, tmp_path, name):
    """The ``sb3`` agent, named by a spec only, plays every one of its moves in a
    tournament as ``model.predict(obs, action_masks=..., deterministic=True)`` picks on the
    observation the view would have given."""
    model, path, n, encoding = trained[name]
    game = get_game(name)
    spec = f"sb3:path={path}"
    cfg = TournamentConfig(agents=[spec, "random", "heuristic"][:n], game=name,
                           players_per_table=n, deals=2, seed=0, out=str(tmp_path / "t"), batch="off")
    summary = run(cfg, progress=False)
    assert summary["games"] > 0
    rules = game.load_rules(cfg.rules)
    moves = 0
    for line in (cfg.out_dir / "results.jsonl").read_text().splitlines()[1:]:
        record = json.loads(line)
        for hand in record["hands"]:
            state = game.deal(rules, n, deck=hand["deck"], dealer=hand["dealer"])
            for action in hand["actions"]:
                seat = state.current_player
                if record["players"][seat] == spec:
                    assert int(predicted(model, game, state, seat, encoding)) == action
                    moves += 1
                state.step(action)
    assert moves > 20


def test_the_agent_and_predict_agree_on_the_views_own_observations(trained):
    """On the view itself (the observation the learner saw), the agent's move is predict's."""
    model, path, n, encoding = trained["romme"]
    agent = agents.make(f"sb3:{path}", game="romme")
    env = make_vec_env(env_id("romme"), n_envs=1, seed=3, env_kwargs={"num_players": n, "seat": "random"}).envs[0]
    view = env.unwrapped
    decisions = 0
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            mask = view.action_masks()
            action = int(model.predict(obs, action_masks=mask, deterministic=True)[0])
            seen = {"information_set": view.game.information_set(view.seat), "rules": view.rules}
            assert agent.act({"observation": obs, "action_mask": info["action_mask"]}, seen) == action
            obs, _, done, _, info = env.step(action)
            decisions += 1
    assert decisions > 30


def test_sampling_plays_legal_moves_and_repeats_with_its_seed(trained):
    _, path, n, _ = trained["basic"]
    game = get_game("basic")

    def moves(seed):
        env = game.raw_env(num_players=n)
        env.reset(seed=1)
        agent = agents.make(f"sb3:path={path},greedy=false", seed=seed, game="basic")
        out = []
        for _, obs, info in decisions(env):
            action = agent.act(obs, info)
            assert obs["action_mask"][action]
            out.append(action)
            env.step(action)
        return out

    assert moves(5) == moves(5) and moves(5) != moves(6)


def test_rummy_play_seats_a_saved_model(trained, monkeypatch, capsys):
    """``rummy play --opponent sb3:FILE``: the person's seat played by a stand-in that takes
    the first legal move."""
    from rummy_env.cli import main

    _, path, _, _ = trained["romme"]

    class FirstLegal(agents.Agent):
        game = "romme"

        def act(self, observation, info):
            return int(np.flatnonzero(observation["action_mask"])[0])

    monkeypatch.setattr(agents, "human_player", lambda game, **kw: FirstLegal())
    assert main(["play", "--game", "romme", "--players", "3", "--opponent", f"sb3:{path}", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert f"against 'sb3:{path}'" in out and "player_1" in out


def test_the_web_app_seats_a_model_its_operator_names_and_refuses_a_clients_file(trained, tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from rummy_env.web.app import create_app
    from web_helpers import BASE, error, play_through

    _, path, n, _ = trained["basic"]
    app = create_app(records=tmp_path, agents_named={"mine": f"basic/sb3:{path}"})
    with TestClient(app, base_url=BASE) as client:
        answer = client.post("/api/games", json={"game": "basic", "players": n, "opponents": ["mine"]})
        assert answer.status_code == 200, answer.text
        final = play_through(client, answer.json()["table"], answer.json()["id"], np.random.default_rng(0))
        assert final["over"] and str(path) not in json.dumps(final)
        error(client.post("/api/games", json={"game": "basic", "opponents": [f"sb3:path={path}"]}), 400, "names a file")


def test_the_policy_file_is_plain_data_and_says_what_it_was_trained_on(trained):
    model, path, n, encoding = trained["gin"]
    payload = torch.load(path, weights_only=True)
    assert payload["format"] == FORMAT and payload["game"] == "gin" and payload["num_players"] == n
    assert payload["encoding"] == encoding == "planes" and payload["rules"] == get_game("gin").load_rules(None).to_dict()
    assert payload["obs_shape"] == list(model.observation_space.shape) and payload["activation"] == "Tanh"
    assert [layer["weight"].shape[0] for layer in payload["hidden"]] == [24]


def test_files_that_are_not_a_policy_for_the_game_are_refused_naming_the_problem(trained, tmp_path):
    _, path, _, _ = trained["basic"]
    with pytest.raises(ValueError, match=r"holds a policy for Basic Rummy, not Rommé"):
        agents.make(f"sb3:{path}", game="romme")
    with pytest.raises(ValueError, match="the sb3 agent needs path=FILE"):
        agents.make("sb3", game="basic")
    with pytest.raises(FileNotFoundError, match="sb3 policy file .* not found"):
        agents.make(f"sb3:{tmp_path / 'none.pt'}", game="basic")
    evil, marker = hostile_policy(tmp_path)
    with pytest.raises(UnsafeFileError, match="holds pickled Python objects"):
        agents.make(f"sb3:{evil}", game="basic")
    assert not marker.exists()
    payload = torch.load(path, weights_only=True)
    for change, words in [({"format": "rummy-env-policy-v1"}, "its format is 'rummy-env-policy-v1'"),
                          ({"game": "poker"}, "unknown game 'poker'"),
                          ({"num_players": 9}, "num_players must be an integer 2..4"),
                          ({"obs_shape": [3]}, r"its observations are \[3\]"),
                          ({"activation": "Softmax"}, "activation 'Softmax' is not one of"),
                          ({"hidden": [{"weight": torch.zeros(4, 5), "bias": torch.zeros(4)}]},
                           r"hidden layer 0 should hold a float weight \(n, 910\)"),
                          ({"action_net": {"weight": payload["action_net"]["weight"][:5],
                                           "bias": payload["action_net"]["bias"][:5]}}, "it has 5 actions")]:
        bad = tmp_path / "bad.pt"
        torch.save({**payload, **change}, bad)
        with pytest.raises(ValueError, match=f"is not a usable sb3 policy file .*{words}"):
            agents.make(f"sb3:{bad}", game="basic")


def test_save_policy_refuses_what_the_file_cannot_hold(tmp_path):
    from stable_baselines3.common.vec_env import VecNormalize

    model = tiny_model("basic", 2)
    with pytest.raises(ValueError, match="VecNormalize"):
        save_policy(model, tmp_path / "p.pt", env=VecNormalize(model.get_env()))
    with pytest.raises(ValueError, match="env must be a single-seat view"):
        save_policy(model, tmp_path / "p.pt", env=object())
    with pytest.raises(ValueError, match=r"reads observations of shape \(910,\), the view gives"):
        save_policy(model, tmp_path / "p.pt", env=gymnasium.make(env_id("romme")))
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip")
    with pytest.raises(ValueError, match="the model has no env .*pass env="):
        save_policy(loaded, tmp_path / "p.pt")
    save_policy(loaded, tmp_path / "p.pt", env=gymnasium.make(env_id("basic")))  # the view it was trained on
    assert agents.make(f"sb3:{tmp_path / 'p.pt'}", game="basic").policy.num_players == 2


@pytest.mark.parametrize("name", ["basic", "romme"])
def test_the_agent_plays_the_same_when_cards_it_cannot_know_are_dealt_otherwise(trained, name):
    _, path, n, _ = trained[name]
    game = get_game(name)
    rng = np.random.default_rng(0)
    checked = sum(play_checking_no_peeking(game.raw_env(num_players=n), f"{name}/sb3:{path}", seed, game.redeal_hidden,
                                           rng, 200)[0] for seed in range(2))
    assert checked > 20
