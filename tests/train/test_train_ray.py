"""``rummy train --backend ray``: rollout workers as Ray actors on a local Ray instance.

The same workers in the trainer's process and in actors give the same run bit for bit;
a killed actor is replaced and its rollout redone (the run equals one where nothing
died: nothing lost, nothing counted twice); a killed driver resumes from its checkpoint,
on Ray or in-process. Also the worker split, seeds and config errors (no Ray needed)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env.train.config import load_config  # noqa: E402
from rummy_env.train.curves import read_scalars  # noqa: E402
from rummy_env.train.ppo import Trainer, load_checkpoint  # noqa: E402
from rummy_env.train.rollout import worker_seeds  # noqa: E402
from rummy_env.train.workers import split_games  # noqa: E402

TINY = {"num_envs": 24, "rollout_steps": 8, "minibatch_size": 128, "hidden": [32], "eval_every": 0,
        "progress": False, "snapshot_every": 1, "checkpoint_every": 2, "torch_threads": 1, "rollout_workers": 2,
        "opponents": {"self": 0.3, "pool": 0.3, "random": 0.1, "simple": 0.2, "heuristic": 0.1}}


def tiny(tmp_path, **extra):
    return load_config(None, {**TINY, "runs_dir": str(tmp_path), **extra})


def same_weights(a: Trainer, b: Trainer) -> bool:
    x, y = a.net.state_dict(), b.net.state_dict()
    return all(torch.equal(x[k], y[k]) for k in x)


def counters(t: Trainer) -> tuple[int, int, int]:
    return t.update, t.global_step, t.episodes


def run(config, run_dir, on_update=None) -> Trainer:
    trainer = Trainer.start(config, run_dir)
    try:
        trainer.train(on_update=on_update)
    finally:
        trainer.close()
    return trainer


class Killed(Exception):
    """Stands for the driver dying in the middle of a run."""


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


# ---------------------------------------------------------------- without Ray


def test_games_are_split_evenly_and_each_worker_deals_its_own():
    assert split_games(10, 3) == [4, 3, 3] and split_games(5, 1) == [5]
    with pytest.raises(ValueError, match="cannot split 2 games over 3 rollout workers"):
        split_games(2, 3)
    seeds = [worker_seeds(7, i) for i in range(4)]
    assert seeds[0][:2] == (10, 9)  # worker 0: the single-process trainer's deals and draws
    assert len({s for triple in seeds for s in triple}) == 12  # no two streams alike


def test_config_names_the_backend_and_worker_errors(tmp_path):
    with pytest.raises(ValueError, match="'backend' = 'spark': choose local or ray"):
        tiny(tmp_path, backend="spark")
    with pytest.raises(ValueError, match="'rollout_workers' = 30: must be at most num_envs"):
        tiny(tmp_path, rollout_workers=30)
    with pytest.raises(ValueError, match="'rollout_workers' = 0: must be a positive integer"):
        tiny(tmp_path, rollout_workers=0)
    assert tiny(tmp_path, ray_address="null").ray_address is None


def test_local_workers_split_the_games_and_resume_refuses_another_split(tmp_path):
    t = run(tiny(tmp_path, total_updates=2), tmp_path / "a")
    assert [w.env.num_envs for w in t.rollouts.workers] == [12, 12]
    assert counters(t)[:2] == (2, 2 * 24 * 8)
    games = load_checkpoint(tmp_path / "a" / "checkpoint.pt")["games"]
    assert [g["env"]["num_envs"] for g in games] == [12, 12]  # one state per worker, as plain data
    with pytest.raises(ValueError, match="cannot change \\['rollout_workers'\\] when resuming"):
        Trainer.resume(tmp_path / "a", {"rollout_workers": 3})


# ---------------------------------------------------------------- on a local Ray instance


# the oracle critic's weights travel with the policy's; advice features are computed in the actors
@pytest.mark.parametrize("extra", [{}, {"critic": "oracle", "critic_hidden": [16], "advice": True},
                                   {"game": "romme", "players": [2, 3], "hands_per_update": 4, "imitation_samples": 0,
                                    "opponents": {"self": 0.3, "pool": 0.3, "random": 0.2, "heuristic": 0.2}},
                                   {"game": "basic", "players": [2, 4], "hands_per_update": 6, "imitation_samples": 0,
                                    "card_hidden": 8, "rollouts": "engine",
                                    "opponents": {"self": 0.2, "pool": 0.4, "random": 0.2, "heuristic": 0.2}}],
                         ids=["shared", "oracle+advice", "romme-in-process", "basic-engine"])
def test_ray_actors_train_exactly_as_the_same_workers_in_process(tmp_path, local_ray, extra):
    local = run(tiny(tmp_path, total_updates=3, **extra), tmp_path / "local")
    remote = run(tiny(tmp_path, total_updates=3, backend="ray", **extra), tmp_path / "ray")
    assert counters(remote) == counters(local) and remote.update == 3
    assert same_weights(local, remote)
    if "critic" in extra:
        x, y = local.critic.state_dict(), remote.critic.state_dict()
        assert all(torch.equal(x[k], y[k]) for k in x)
    a, b = read_scalars(tmp_path / "local"), read_scalars(tmp_path / "ray")
    np.testing.assert_array_equal(a["losses/policy_loss"][1], b["losses/policy_loss"][1])


# the runs where nothing died are played in-process: the same run as on Ray (the test above)
def test_a_killed_actor_is_replaced_and_its_rollout_redone_never_counted_twice(tmp_path, local_ray):
    straight = run(tiny(tmp_path, total_updates=5), tmp_path / "straight")

    def kill_an_actor(trainer):
        if trainer.update in (2, 3):  # worker 1 at update 2, worker 0 at update 3
            local_ray.kill(trainer.rollouts.actors[trainer.update % 2])

    killed = run(tiny(tmp_path, total_updates=5, backend="ray"), tmp_path / "killed", on_update=kill_an_actor)
    assert killed.rollouts.restarts == 2 and straight.rollouts.restarts == 0
    assert counters(killed) == counters(straight)
    assert same_weights(killed, straight)
    scalars = read_scalars(tmp_path / "killed")
    steps, episodes = scalars["charts/episodes"]
    assert list(steps) == [24 * 8 * u for u in range(1, 6)]  # each update logged once
    np.testing.assert_array_equal(episodes, read_scalars(tmp_path / "straight")["charts/episodes"][1])
    assert list(scalars["charts/worker_restarts"][1]) == [1, 2, 2]

    # the driver dies after update 3 (checkpoint at 2): resumed on Ray, and in-process,
    # the run goes on as if nothing happened
    def kill_the_driver(trainer):
        if trainer.update == 3:
            raise Killed

    with pytest.raises(Killed):
        run(tiny(tmp_path, total_updates=5, backend="ray"), tmp_path / "driver", on_update=kill_the_driver)
    at_update_2 = (tmp_path / "driver" / "checkpoint.pt").read_bytes()
    for backend in ("ray", "local"):
        (tmp_path / "driver" / "checkpoint.pt").write_bytes(at_update_2)
        resumed = Trainer.resume(tmp_path / "driver", {"backend": backend})
        assert resumed.update == 2
        try:
            resumed.train()
        finally:
            resumed.close()
        assert counters(resumed) == counters(straight) and same_weights(resumed, straight), backend


def test_an_actor_killed_while_its_rollout_is_in_flight_is_replaced_and_the_rollout_redone(tmp_path, local_ray,
                                                                                         monkeypatch):
    from rummy_env.train.ray_rollouts import RayRollouts

    straight = run(tiny(tmp_path, total_updates=4), tmp_path / "straight")
    redo = RayRollouts._get_or_redo
    in_flight = []
    collects = {"n": 0}

    def kill_worker_0_at_the_third_update(self, index, ref, weights):
        if index == 0:
            collects["n"] += 1
            if collects["n"] == 3:  # both rollouts were sent a moment ago: worker 0's is still playing
                done, _ = local_ray.wait([ref], timeout=0)
                in_flight.append(not done)
                local_ray.kill(self.actors[0])
        return redo(self, index, ref, weights)

    monkeypatch.setattr(RayRollouts, "_get_or_redo", kill_worker_0_at_the_third_update)
    killed = run(tiny(tmp_path, total_updates=4, backend="ray"), tmp_path / "killed")
    assert in_flight == [True] and killed.rollouts.restarts == 1
    assert counters(killed) == counters(straight) and same_weights(killed, straight)


def test_actors_that_cannot_start_stop_the_run_with_a_clear_error(tmp_path, local_ray, monkeypatch):
    import rummy_env.train.ray_rollouts as ray_rollouts

    class NoPackageOnThisNode:  # defined here, so Ray ships it by value, as a node without rummy-env would fail
        def __init__(self, *args):
            raise ImportError("No module named 'rummy_env'")

        def state(self):  # what the driver asks first
            return {}

    monkeypatch.setattr(ray_rollouts, "RolloutActor", NoPackageOnThisNode)
    with pytest.raises(RuntimeError, match=r"(?s)the rollout actors could not start.*same rummy-env.*"
                                           r"No module named 'rummy_env'"):
        Trainer.start(tiny(tmp_path, total_updates=1, backend="ray"), tmp_path / "broken")
    # the failed actors were stopped: nothing is left holding the CPUs (Ray frees them shortly after)
    import time

    deadline = time.monotonic() + 30
    while local_ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert local_ray.available_resources().get("CPU", 0) == 2


def test_the_train_command_runs_its_rollouts_on_ray(tmp_path, local_ray, capsys):
    from rummy_env.cli import main

    # Ray is already up here (the fixture), so --address is recorded but not joined
    code = main(["train", "--runs-dir", str(tmp_path), "--name", "onray", "--num-envs", "16", "--rollout-steps", "8",
                 "--total-updates", "2", "--minibatch-size", "128", "--hidden", "[32]", "--eval-every", "0",
                 "--progress", "false", "--backend", "ray", "--rollout-workers", "2", "--address", "auto"])
    assert code == 0
    (run_dir,) = tmp_path.glob("onray__0__*")
    config = load_config(run_dir / "config.yaml")
    assert (config.backend, config.rollout_workers, config.ray_address) == ("ray", 2, "auto")
    assert "rollouts: 2 worker(s) on ray at auto" in capsys.readouterr().out
    assert load_checkpoint(run_dir / "checkpoint.pt")["counters"]["global_step"] == 2 * 16 * 8
