"""Policy files and checkpoints never unpickle objects: a file whose pickle would run code is
refused by every reader (the agents, ``init_policy``, ``--resume``) without running it, with
one message naming the file and the command that converts it; that command turns an old
file into one that loads the safe way, itself running nothing the file names; every shipped file loads the
safe way; and the games a Gin checkpoint keeps are plain data that resume exactly."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env import agents  # noqa: E402
from rummy_env.agents import torch_files  # noqa: E402
from rummy_env.agents.basic.network import BasicPolicyNet  # noqa: E402
from rummy_env.agents.basic.network import load_policy as load_basic  # noqa: E402
from rummy_env.agents.basic.network import save_policy as save_basic  # noqa: E402
from rummy_env.agents.gin.network import PolicyNet, load_policy, policy_payload, save_policy  # noqa: E402
from rummy_env.cli import main  # noqa: E402
from rummy_env.gin.vector import VectorGinRummy  # noqa: E402
from hostile_files import hostile_policy  # noqa: E402

SHIPPED = sorted((Path(__file__).resolve().parents[2] / "rummy_env" / "agents").glob("*/data/*.pt"))


def test_a_hostile_policy_file_is_refused_by_every_reader_and_runs_nothing(tmp_path):
    path, marker = hostile_policy(tmp_path)
    for load in (load_policy, load_basic):
        with pytest.raises(torch_files.UnsafeFileError) as refused:
            load(path)
        assert str(path) in str(refused.value) and "rummy convert-policy" in str(refused.value)
    for spec in (f"ppo:{path}", f"basic/ppo:{path}", f"mcts:rollout=net,net={path}"):
        with pytest.raises(ValueError, match="holds pickled Python objects"):
            agents.make(spec)
    assert not marker.exists()
    # the same file wrapped the way a policy file would look is refused just the same
    wrapped, marker2 = hostile_policy(tmp_path, "wrapped.pt", lambda p: {"format": "rummy-env-policy-v1", "extra": p})
    with pytest.raises(torch_files.UnsafeFileError):
        load_policy(wrapped)
    assert not marker2.exists()


def test_the_cli_refuses_a_hostile_file_in_one_line(tmp_path, capsys):
    path, marker = hostile_policy(tmp_path)
    code = main(["tournament", "--agents", f"ppo:{path}", "random", "--deals", "1", "--out", str(tmp_path / "t"),
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "rummy convert-policy" in err and str(path) in err
    assert not marker.exists()


def test_training_refuses_a_hostile_init_policy_and_checkpoint(tmp_path):
    from rummy_env.train.config import load_config
    from rummy_env.train.files import CheckpointError
    from rummy_env.train.ppo import Trainer, load_checkpoint

    path, marker = hostile_policy(tmp_path)
    with pytest.raises(ValueError, match="init_policy: .*holds pickled Python objects"):
        Trainer.start(load_config(None, {"init_policy": str(path), "num_envs": 4, "runs_dir": str(tmp_path / "runs"),
                                         "progress": False}))
    with pytest.raises(CheckpointError, match="rummy convert-policy"):
        load_checkpoint(path)
    assert not marker.exists()


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_policy_file_loads_the_safe_way(path):
    payload = torch.load(path, map_location="cpu", weights_only=True)
    assert isinstance(payload["state_dict"], dict) and payload["format"].startswith("rummy-env-")


def test_written_policy_files_are_plain_data(tmp_path):
    net = PolicyNet((8,), 4)
    save_policy(net, tmp_path / "p.pt", "classic", {"seconds": np.float64(1.5), "note": Path("x"), "pair": (1, 2)})
    payload = torch.load(tmp_path / "p.pt", weights_only=True)
    assert payload["extra"] == {"seconds": 1.5, "note": "x", "pair": (1, 2)}
    save_basic(BasicPolicyNet((8,), 4), tmp_path / "b.pt", "basic")
    assert load_basic(tmp_path / "b.pt")[1]["hidden"] == [8]
    with pytest.raises(TypeError, match=r"\['extra'\]\['when'\] is of type object"):
        save_policy(net, tmp_path / "q.pt", "classic", {"when": object()})
    assert not (tmp_path / "q.pt").exists()


def test_convert_policy_rewrites_a_trusted_old_file_that_then_loads_safely(tmp_path, capsys):
    net = PolicyNet((8,), 4)
    old = policy_payload(net, "classic", {"seconds": np.float64(2.0)})  # a numpy scalar: needs full unpickling
    torch.save(old, tmp_path / "old.pt")
    with pytest.raises(torch_files.UnsafeFileError):
        load_policy(tmp_path / "old.pt")
    assert main(["convert-policy", str(tmp_path / "old.pt")]) == 0
    assert "converted" in capsys.readouterr().out and (tmp_path / "old.pt.pickled").is_file()
    back, meta = load_policy(tmp_path / "old.pt")
    assert meta["extra"] == {"seconds": 2.0}
    for name, tensor in net.state_dict().items():
        assert torch.equal(back.state_dict()[name], tensor)


def test_convert_policy_upgrades_a_gin_checkpoint_of_version_0_2_which_then_resumes_exactly(tmp_path):
    from rummy_env.train.config import load_config
    from rummy_env.train.files import CheckpointError
    from rummy_env.train.ppo import Trainer, load_checkpoint

    overrides = {"num_envs": 8, "rollout_steps": 4, "total_updates": 2, "eval_every": 0, "checkpoint_every": 1,
                 "minibatch_size": 16, "update_epochs": 1, "hidden": [16], "card_hidden": 8, "progress": False,
                 "torch_threads": 1, "runs_dir": str(tmp_path / "runs")}
    trainer = Trainer.start(load_config(None, overrides))
    trainer.train()
    trainer.close()
    run = trainer.run_dir
    # the same checkpoint as 0.2 wrote it: the workers' engines and generators pickled
    state = load_checkpoint(run / "checkpoint.pt")
    old_games = []
    for w, g in zip(trainer.rollouts.workers, state["games"]):
        old_games.append({"env": w.env, "rng": w.rng, "kind": w.kind, "pool_index": w.pool_index,
                          "learner_seat": w.learner_seat, "generator": g["generator"]})
    torch.save({**state, "format": "rummy-env-ppo-checkpoint-v1", "games": pickle.dumps(old_games)},
               run / "checkpoint.pt")
    with pytest.raises(CheckpointError, match="older format .* rummy convert-policy"):
        Trainer.resume(run, {"total_updates": 3})
    assert main(["convert-policy", str(run / "checkpoint.pt")]) == 0
    resumed = Trainer.resume(run, {"total_updates": 3})
    for w, before in zip(resumed.rollouts.workers, trainer.rollouts.workers):
        for name in VectorGinRummy._STATE:
            assert np.array_equal(getattr(w.env, name), getattr(before.env, name))
        assert w.rng.bit_generator.state == before.rng.bit_generator.state
    resumed.close()


def test_an_engine_snapshot_plays_on_exactly_as_the_engine():
    rng = np.random.default_rng(0)
    a = VectorGinRummy(16, seed=3)
    a.reset()
    for _ in range(30):
        a.step(a.random_actions(rng))
    b = VectorGinRummy(16, seed=99)
    b.restore(torch_files.plain(a.snapshot()))  # as a checkpoint gives it back: tensors
    for _ in range(200):
        actions = a.random_actions(rng)
        ra, rb = a.step(actions), b.step(actions)
        assert np.array_equal(ra.observation, rb.observation) and np.array_equal(ra.rewards, rb.rewards)
    with pytest.raises(ValueError, match="holds 16 games; this engine plays 4"):
        VectorGinRummy(4).restore(a.snapshot())


def test_convert_policy_names_a_missing_file_in_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "rummy_env.cli", "convert-policy", str(tmp_path / "nope.pt")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "nope.pt" in out.stderr


def test_convert_policy_runs_nothing_a_hostile_file_names_and_refuses_it_by_name(tmp_path, capsys):
    from hostile_files import MarkerPayload

    from rummy_env.train.convert import convert

    # a file whose own pickle would run a command: refused, the global named, nothing written
    path, marker = hostile_policy(tmp_path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"holds the global (posix|os)\.system, which rummy convert-policy does not"):
        convert(path)
    assert main(["convert-policy", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "system" in err and str(path) in err
    # a 0.2 checkpoint whose pickled games would run a command: read as inert records, refused
    games = tmp_path / "games.pt"
    torch.save({"format": "rummy-env-ppo-checkpoint-v1", "games": pickle.dumps([{"env": MarkerPayload(marker)}])},
               games)
    with pytest.raises(ValueError, match="its games are not the Gin engines a 0.2 checkpoint holds"):
        convert(games)
    assert not marker.exists() and path.read_bytes() == before
    assert not (tmp_path / "evil.pt.pickled").exists() and not (tmp_path / "games.pt.pickled").exists()
    # and a file that is no torch file at all is named as such
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="junk.pt' is not a readable torch file"):
        convert(tmp_path / "junk.pt")
