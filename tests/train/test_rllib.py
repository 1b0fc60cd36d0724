"""RLlib (the ``rllib`` extra): our PettingZoo env through RLlib's PettingZoo wrapper, the
action-masking PPO model, and self-play with a shared policy and a policy per seat,
trained for a short budget on a local Ray instance (about 20 s)."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from rummy_env.core.game import IllegalActionError  # noqa: E402
from rummy_env.train.rllib import make_env, masked_module_class, selfplay_config  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_the_wrapped_env_gives_masks_and_refuses_illegal_moves():
    env = make_env({"reward": "points"})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    (agent,) = obs
    mask = obs[agent]["action_mask"]
    assert mask.dtype == np.float32 and set(np.unique(mask)) <= {0.0, 1.0}
    assert env.observation_space[agent].contains(obs[agent])
    with pytest.raises(IllegalActionError):
        env.step({agent: int(np.flatnonzero(mask == 0)[0])})
    totals = {}
    for _ in range(500):  # a hand of random legal moves, to its end
        (agent,) = obs
        obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))})
        for k, v in rewards.items():
            totals[k] = totals.get(k, 0) + v
        if terminated["__all__"] or truncated["__all__"]:
            break
    assert terminated["__all__"] and set(totals) == {"player_0", "player_1"}
    assert totals["player_0"] == -totals["player_1"]  # zero-sum points
    with pytest.raises(ValueError, match="may not set \\['illegal_action'\\]"):
        make_env({"illegal_action": "terminate"})
    with pytest.raises(ValueError, match="policies 'league': choose shared or per-seat"):
        selfplay_config("league")


# RLlib registers its multi-agent env wrapper with gymnasium at each algorithm it builds
# here (env runner in this process): the second build warns that it replaces the first
@pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")
@pytest.mark.parametrize("policies, ids", [("shared", ["shared"]), ("per-seat", ["player_0", "player_1"])])
def test_rllib_ppo_self_play_trains_with_illegal_moves_masked_out(local_ray, policies, ids):
    config = (selfplay_config(policies, hidden=(64,))
              .training(train_batch_size_per_learner=400, minibatch_size=100, num_epochs=1)
              .debugging(seed=0))
    algo = config.build_algo()
    try:
        before = {pid: {k: v.clone() for k, v in algo.get_module(pid).state_dict().items()} for pid in ids}
        for _ in range(2):  # any illegal move would raise (the env is built with illegal_action="raise")
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] == 800
        assert result["env_runners"]["num_episodes_lifetime"] > 0
        for pid in ids:
            assert np.isfinite(result["learners"][pid]["policy_loss"])
            after = algo.get_module(pid).state_dict()
            assert any(not torch.equal(before[pid][k], after[k]) for k in after)  # it learned
        # the model gives illegal moves probability 0, legal ones all some
        module = algo.get_module(ids[-1])
        assert isinstance(module, masked_module_class())
        env = make_env()
        obs, _ = env.reset(seed=5)
        (agent,) = obs
        batch = {"obs": {k: torch.from_numpy(v[None]) for k, v in obs[agent].items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0]
        probs = torch.softmax(logits, -1).numpy()
        legal = obs[agent]["action_mask"] == 1
        assert probs[~legal].max() == 0.0 and probs[legal].min() > 0 and legal.sum() < legal.size
    finally:
        algo.stop()
