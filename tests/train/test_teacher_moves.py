"""The warm start's teacher hands (``rummy_env.train.teacher_moves``): kept in the run's
folder as they end, a rerun plays only the batches missing and gets the same data, the
number of workers changes nothing, a folder of other settings is refused, a run stopped
during its warm start resumes to the straight run's network, and a teacher's move the
network cannot play is left out of the policy's fit."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env.train import teacher_moves as tm  # noqa: E402
from rummy_env.train.adapter import adapter_for  # noqa: E402
from rummy_env.train.config import load_config  # noqa: E402
from rummy_env.train.imitation import pretrain  # noqa: E402
from rummy_env.train.ppo import Trainer  # noqa: E402

TINY = {"game": "basic", "players": {2: 1, 3: 1}, "imitation_teacher": "heuristic", "imitation_samples": 600,
        "imitation_epochs": 1, "hands_per_update": 4, "total_updates": 1, "minibatch_size": 64, "hidden": [16],
        "eval_every": 0, "progress": False, "torch_threads": 1, "opponents": {"heuristic": 1}}


def config(tmp_path, **values):
    return load_config(None, {**TINY, "runs_dir": str(tmp_path), **values})


def counting(monkeypatch):
    """Count the batches played (``play_batch`` calls in this process)."""
    played = []
    real = tm.play_batch

    def spy(job):
        played.append(job[2])
        return real(job)

    monkeypatch.setattr(tm, "play_batch", spy)
    return played


def test_a_rerun_plays_only_the_missing_batches_and_gets_the_same_moves(tmp_path, monkeypatch):
    c = config(tmp_path)
    adapter = adapter_for("basic")
    folder = tmp_path / "imitation"
    first = tm.teacher_moves(c, adapter, folder=folder)
    files = sorted(folder.glob("teacher-*.npz"))
    assert len(first["act"]) == 600 and len(files) >= 2 and (folder / "labels.json").is_file()
    files[0].unlink()  # as if stopped before it was written
    played = counting(monkeypatch)
    again = tm.teacher_moves(c, adapter, folder=folder)
    assert played == [0]
    assert all(np.array_equal(first[k], again[k]) for k in tm.KEYS)
    played.clear()
    assert all(np.array_equal(first[k], tm.teacher_moves(c, adapter, folder=folder)[k]) for k in tm.KEYS)
    assert played == []  # all on disk: nothing is played
    # the moves are the first batches in order, whatever was kept: without a folder, the same
    assert all(np.array_equal(first[k], tm.teacher_moves(c, adapter)[k]) for k in tm.KEYS)


def test_workers_change_nothing(tmp_path):
    adapter = adapter_for("basic")
    one = tm.teacher_moves(config(tmp_path, imitation_samples=60), adapter)
    two = tm.teacher_moves(config(tmp_path, imitation_samples=60, rollout_workers=2), adapter)
    assert all(np.array_equal(one[k], two[k]) for k in tm.KEYS)


def test_a_folder_of_other_settings_is_refused(tmp_path):
    adapter = adapter_for("basic")
    folder = tmp_path / "imitation"
    tm.teacher_moves(config(tmp_path, imitation_samples=20), adapter, folder=folder)
    with pytest.raises(ValueError, match=r"other settings \(teacher: 'heuristic' there, 'random' now\)"):
        tm.teacher_moves(config(tmp_path, imitation_samples=20, imitation_teacher="random"), adapter, folder=folder)


def test_a_run_stopped_during_its_warm_start_resumes_to_the_straight_runs_network(tmp_path, monkeypatch):
    straight = Trainer.start(config(tmp_path, imitation_samples=1500), tmp_path / "straight")
    straight.close()
    real = tm.play_batch
    calls = []

    def crash_on_the_third(job):
        calls.append(job[2])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(job)

    monkeypatch.setattr(tm, "play_batch", crash_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        Trainer.start(config(tmp_path, imitation_samples=1500), tmp_path / "stopped")
    assert not (tmp_path / "stopped" / "checkpoint.pt").exists()
    kept = sorted((tmp_path / "stopped" / "imitation").glob("teacher-*.npz"))
    assert len(kept) == 2
    played = counting(monkeypatch)
    resumed = Trainer.resume(tmp_path / "stopped")
    resumed.close()
    assert 0 not in played and 1 not in played and played  # the kept batches are not played again
    a, b = straight.net.state_dict(), resumed.net.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_teachers_move_the_network_cannot_play_is_left_out_of_the_policys_fit():
    """Rommé's network chooses among the advised move, the draws and the discards; a
    teacher's lay-off it was not advised is unplayable: counted, not fitted (before, its
    log-probability of about -1e9 became the loss)."""
    from rummy_env.agents.romme.network import CHOICES, RommePolicyNet
    from rummy_env.romme.encoding import FLAT_SIZE
    from rummy_env.romme.game import DISCARD, LAYOFF, NUM_ACTIONS

    torch.manual_seed(0)
    net = RommePolicyNet((16,))
    n = 64
    obs = np.zeros((n, FLAT_SIZE + 1), dtype=np.float32)
    obs[:, -1] = DISCARD + 3  # advised: discard kind 3
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
    mask[:, [DISCARD + 3, DISCARD + 5, LAYOFF + 7]] = True
    act = np.full(n, DISCARD + 5)
    act[: n // 4] = LAYOFF + 7  # not advised, not among the choices
    assert LAYOFF + 7 not in CHOICES
    data = {"obs": obs, "mask": mask, "act": act, "ret": np.zeros(n, dtype=np.float32)}
    stats = pretrain(net, data, epochs=40, lr=1e-2, batch_size=32, generator=torch.Generator().manual_seed(0))
    assert stats["unplayable"] == pytest.approx(0.25)
    assert np.isfinite(stats["policy_loss"]) and stats["policy_loss"] < 10
    logp, _ = net(torch.from_numpy(obs[:1]), torch.from_numpy(mask[:1]))
    assert int(logp.argmax()) == DISCARD + 5  # the playable moves were learned
