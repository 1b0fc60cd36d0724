"""The generic ``ppo`` agent: a policy file of the generic trainer (the MLP over a game's
``flat`` encoding) played by every game without a network of its own (Rommé): the move
the network ranks first among the legal ones, the file checked to be that game's, no
peeking, and Gin and Basic Rummy keeping their own ``ppo``."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import play_checking_no_peeking  # noqa: E402
from env_loops import decisions  # noqa: E402
from hostile_files import hostile_policy  # noqa: E402
from rummy_env import agents, romme_v0  # noqa: E402
from rummy_env.agents.mlp_network import for_game, save_policy  # noqa: E402
from rummy_env.agents.mlp_policy import MLPPolicyAgent  # noqa: E402
from rummy_env.agents.torch_files import UnsafeFileError  # noqa: E402
from rummy_env.core.game import get_game  # noqa: E402


def trained_file(tmp_path, game="romme", seed=0):
    """A policy file as ``rummy train --game GAME`` writes one, with random weights (a seed)."""
    torch.manual_seed(seed)
    net = for_game(game, hidden=(16,))
    path = tmp_path / f"{game}-policy.pt"
    save_policy(net, path, game, None)
    return net, path


def test_it_plays_the_networks_most_probable_legal_move_at_every_decision(tmp_path):
    net, path = trained_file(tmp_path)
    agent = agents.make(f"ppo:{path}", seed=1, game="romme")
    assert isinstance(agent, MLPPolicyAgent) and agent.game == "romme"
    flat = get_game("romme").encoding("flat")
    env = romme_v0.raw_env(num_players=3)
    env.reset(seed=4)
    checked = 0
    for _, obs, info in decisions(env):
        action = agent.act(obs, info)
        with torch.no_grad():
            logits = net.logits(net.trunk(torch.from_numpy(flat.encode(info["information_set"], info["rules"])[None])))
        legal = np.flatnonzero(obs["action_mask"])
        assert action == legal[int(np.argmax(logits.numpy()[0, legal]))]
        env.step(action)
        checked += 1
        if checked == 150:
            break
    assert checked >= 100  # a whole hand of three, every decision checked
    sampled = agents.make(f"ppo:path={path},greedy=false", seed=3, game="romme")
    again = agents.make(f"ppo:path={path},greedy=false", seed=3, game="romme")
    env.reset(seed=5)
    obs, _, _, _, info = env.last()
    assert sampled.act(obs, info) == again.act(obs, info)  # seeded


def test_the_games_own_ppo_comes_first_and_a_file_must_be_the_games(tmp_path):
    assert type(agents.make("ppo", game="gin")).__name__ == "PPOAgent"
    assert type(agents.make("ppo", game="basic")).__name__ == "RummyPPOAgent"
    assert type(agents.make("ppo", game="romme")).__name__ == "RommePPOAgent"  # the shipped network
    assert "ppo" in agents.available("romme", required=False)  # a page can pick it: no file needed
    _, basic_file = trained_file(tmp_path, game="basic")
    with pytest.raises(ValueError, match="holds a network for 'basic', not 'romme'"):
        agents.make(f"ppo:{basic_file}", game="romme")
    hostile, marker = hostile_policy(tmp_path)
    with pytest.raises(UnsafeFileError):
        agents.make(f"ppo:{hostile}", game="romme")
    assert not marker.exists()


def test_it_never_peeks_at_hidden_cards(tmp_path):
    _, path = trained_file(tmp_path, seed=2)
    env = romme_v0.raw_env(num_players=2)
    rng = np.random.default_rng(0)
    checked, _ = play_checking_no_peeking(env, f"romme/ppo:{path}", 0, lambda g, seat, r: g.redeal_hidden(seat, r),
                                          rng, 60)
    assert checked == 60
