"""Distillation (rummy_env/train/distill.py, ``rummy distill``): labels from the student's own games,
resumable collection, the fit moving the network toward the teacher, held-out hands, and clear errors."""

import numpy as np
import pytest

pytest.importorskip("torch")

from rummy_env import agents  # noqa: E402
from rummy_env.agents.arena import play_hand  # noqa: E402
from rummy_env.cli import main  # noqa: E402
from rummy_env.gin.game import NUM_ACTIONS  # noqa: E402
from rummy_env.train.distill import collect, fit, heldout, load, load_split  # noqa: E402


def test_labels_are_the_teachers_answers_in_the_students_games_and_collection_resumes(tmp_path):
    # the student as its own teacher: every label must be the move it played
    assert collect("ppo", "ppo", "random", 3, tmp_path / "same", seed=10) == 3
    same = load(tmp_path / "same")
    assert len(same["act"]) > 10 and np.array_equal(same["act"], same["student"])
    # a different teacher: labels legal, some differ; a rerun plays only the missing hands
    folder = tmp_path / "simple"
    assert collect("ppo", "simple", "random", 2, folder, seed=10) == 2
    stamp = (folder / "hand-10.npz").stat().st_mtime_ns
    assert collect("ppo", "simple", "random", 4, folder, seed=10) == 2
    assert (folder / "hand-10.npz").stat().st_mtime_ns == stamp  # hands already there are not played again
    assert sorted(p.name for p in folder.glob("*.npz")) == [f"hand-{s}.npz" for s in (10, 11, 12, 13)]
    data = load(folder)
    n = len(data["act"])
    assert data["obs"].shape == (n, agents.make("ppo").net.obs_size) and data["mask"].shape == (n, NUM_ACTIONS)
    rows = np.arange(n)
    assert data["mask"][rows, data["act"]].all() and data["mask"][rows, data["student"]].all()
    assert (data["mask"].sum(axis=1) > 1).all()  # forced moves are not labelled
    assert (data["act"] != data["student"]).any()


def test_knock_decisions_only(tmp_path):
    from rummy_env.gin.game import BIG_GIN, KNOCK

    collect("ppo", "heuristic", "simple", 8, tmp_path / "k", seed=20, decisions="knock")
    data = load(tmp_path / "k")
    collect("ppo", "heuristic", "simple", 8, tmp_path / "a", seed=20)
    every = load(tmp_path / "a")
    assert np.array_equal(every["obs"], data["obs"]) and np.array_equal(every["student"], data["student"])  # same games
    knockable = data["mask"][:, KNOCK : BIG_GIN + 1].any(axis=1)
    assert knockable.any() and not knockable.all()
    assert np.array_equal(data["act"][knockable], every["act"][knockable])  # the teacher's answers there
    assert np.array_equal(data["act"][~knockable], data["student"][~knockable])  # the student's own moves elsewhere
    assert (every["act"][~knockable] != every["student"][~knockable]).any()  # which the teacher would not all play
    with pytest.raises(ValueError, match="decisions must be one of all, knock"):
        collect("ppo", "heuristic", "simple", 1, tmp_path / "z", decisions="discards")


def test_fit_moves_the_network_toward_the_teacher_and_the_result_plays(tmp_path):
    collect("ppo", "simple", "heuristic", 6, tmp_path / "labels", seed=3)
    data = load(tmp_path / "labels")
    assert (data["act"] != data["student"]).mean() > 0.05
    stats = fit(agents.make("ppo").path, data, tmp_path / "fitted.pt", epochs=20, lr=3e-3, batch_size=16)
    assert stats["policy_loss"] < 0.7 * stats["policy_loss_before"] and stats["agreement"] > stats["agreement_before"]
    result = play_hand([agents.make(f"ppo:{tmp_path / 'fitted.pt'}"), agents.make("heuristic", seed=1)], seed=2)
    assert result.outcome in ("knock", "gin", "big_gin", "undercut", "draw")


def test_distill_errors_name_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="the student must be a ppo agent"):
        collect("random", "mcts", "heuristic", 2, tmp_path / "x")
    with pytest.raises(ValueError, match="hands must be >= 1"):
        collect("ppo", "mcts", "heuristic", 0, tmp_path / "x")
    with pytest.raises(ValueError, match="unknown agent|no agent"):
        collect("ppo", "nonsense", "heuristic", 1, tmp_path / "x")
    with pytest.raises(FileNotFoundError, match="no labelled hands"):
        load(tmp_path / "empty")
    collect("ppo", "simple", "random", 1, tmp_path / "kept", seed=1)
    with pytest.raises(ValueError, match="labels made with other settings .teacher: 'simple' there, 'heuristic' now"):
        collect("ppo", "heuristic", "random", 2, tmp_path / "kept", seed=1)
    (tmp_path / "kept" / ".hand-2.999.tmp").write_bytes(b"half a file")  # a collection stopped mid-write
    (tmp_path / "kept" / "hand-2.tmp.npz").write_bytes(b"not a label file name")
    assert len(load(tmp_path / "kept")["act"]) > 0
    assert collect("ppo", "simple", "random", 2, tmp_path / "kept", seed=1) == 1
    assert not list((tmp_path / "kept").glob(".hand-*.tmp"))
    (tmp_path / "kept" / "labels.json").unlink()
    with pytest.raises(ValueError, match="label files but no labels.json"):
        collect("ppo", "simple", "random", 3, tmp_path / "kept", seed=1)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "hand-0.npz").write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="hand-0.npz' is not a readable label file"):
        load(tmp_path / "bad")
    collect("ppo", "simple", "random", 1, tmp_path / "ok", seed=1)
    with pytest.raises(ValueError, match="epochs must be >= 1"):
        fit(agents.make("ppo").path, load(tmp_path / "ok"), tmp_path / "o.pt", epochs=0)


def test_distill_command_collects_then_fits(tmp_path, capsys):
    labels, out = tmp_path / "labels", tmp_path / "d.pt"
    assert main(["distill", "--teacher", "simple", "--opponent", "random", "--hands", "2", "--labels", str(labels),
                 "--out", str(out), "--epochs", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "2 hands played now" in text and f"ppo:{out}" in text and out.is_file()
    assert main(["distill", "--labels", str(labels)]) == 2
    assert "nothing to do" in capsys.readouterr().err


def test_held_out_hands_are_whole_and_the_held_out_agreement_counts_kept_and_changed_moves(tmp_path):
    import torch

    from rummy_env.agents.gin.network import load_policy

    collect("ppo", "simple", "random", 4, tmp_path / "l", seed=3)
    everything = load(tmp_path / "l")
    fitted, test = load_split(tmp_path / "l", 0.25)
    (tmp_path / "one").mkdir()  # the last hand (seed 6) alone, in a folder of its own
    (tmp_path / "one" / "hand-6.npz").write_bytes((tmp_path / "l" / "hand-6.npz").read_bytes())
    last = load(tmp_path / "one")
    for k in everything:
        assert np.array_equal(test[k], last[k])
        assert np.array_equal(np.concatenate([fitted[k], test[k]]), everything[k])
    with pytest.raises(ValueError, match="holdout must be a share between 0 and 1"):
        load_split(tmp_path / "l", 1.0)
    with pytest.raises(ValueError, match="at least 2 labelled hands .* found 1"):
        load_split(tmp_path / "one", 0.5)

    path = agents.make("ppo").path
    net, _ = load_policy(path)
    with torch.no_grad():
        best = net(torch.from_numpy(everything["obs"]), torch.from_numpy(everything["mask"]))[0].argmax(1).numpy()
    other = np.array([next(a for a in np.flatnonzero(m) if a != b) for m, b in zip(everything["mask"], best)])
    n = len(best)
    data = dict(everything, student=best.copy(), act=best.copy())
    data["act"][n // 2:] = other[n // 2:]  # the teacher played another move on the second half
    r = heldout(path, data)
    assert (r["agreement"], r["kept"], r["changed"], r["changed_labels"]) == ((n // 2) / n, 1.0, 0.0, n - n // 2)
    data["student"] = data["act"]  # the teacher kept every move: no changed labels
    r = heldout(path, data)
    assert np.isnan(r["changed"]) and r["changed_labels"] == 0


def test_distill_command_reports_held_out_hands(tmp_path, capsys):
    labels, out = tmp_path / "labels", tmp_path / "d.pt"
    assert main(["distill", "--teacher", "simple", "--opponent", "random", "--hands", "4", "--labels", str(labels),
                 "--out", str(out), "--epochs", "1", "--holdout", "0.25", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "held out (" in text and "of the last 25% of the hands" in text and out.is_file()
    assert main(["distill", "--labels", str(labels), "--out", str(out), "--holdout", "2"]) == 2
    assert "holdout must be a share between 0 and 1" in capsys.readouterr().err
