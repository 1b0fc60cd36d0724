"""Expert iteration (rummy_env/train/expert_iteration.py, ``rummy expert-iteration``): rounds
of labels by a search over the network, fits and evaluations; a killed run continues
without losing or repeating work; the config is checked."""

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from rummy_env.train import expert_iteration as ei  # noqa: E402
from rummy_env.train.curves import read_scalars  # noqa: E402
from rummy_env.train.distill import load  # noqa: E402
from rummy_env.train.expert_config import ExpertIterationConfig, load_config, make_config  # noqa: E402

TINY = {"rounds": 2, "hands_per_round": 3, "teacher": "mcts:simulations=12,rollout=net,net={net},prior=1,base=net",
        "eval_hands": 4, "epochs": 1, "seed": 7}


class Killed(Exception):
    """Stands for the process being killed at that point."""


def _kill_at(step: str, when: int):
    def progress(what, done, total):
        if what == step and done == when:
            raise Killed(what)
    return progress


def _state(path):
    import torch

    return torch.load(path, weights_only=True)["state_dict"]


def test_a_killed_run_continues_without_losing_or_repeating_work(tmp_path):
    config = make_config(TINY)
    whole = ei.run(config, tmp_path / "whole")
    assert [s["round"] for s in whole] == [0, 1, 2]
    for s in whole[1:]:  # the teacher labelled every decision of the hands; the fit moved toward its labels
        assert s["labels"] > 10 and 0 < s["student_agrees"] <= 1
        assert s["fit"]["policy_loss"] < s["fit"]["policy_loss_before"]
    assert whole[2]["fit"]["fit_labels"] == whole[1]["labels"] + whole[2]["labels"]  # fit_window 2
    for s in whole:
        r = s["eval"]["heuristic"]
        assert r["hands"] == 4 and 0 <= r["win_rate"] <= 1 and r["points_ci95"] >= 0

    out = tmp_path / "killed"
    with pytest.raises(Killed):  # mid-labelling: two of round 1's three hands are on disk
        ei.run(config, out, progress=_kill_at("round 1: labelling", 2))
    held = {p.name: p.stat().st_mtime_ns for p in (out / "round-001" / "labels").glob("hand-*.npz")}
    assert len(held) == 2 and not ei.policy_of(out, 1).exists()
    with pytest.raises(Killed):  # mid-evaluation of round 2: one deal pair of two logged
        ei.run(config, out, progress=_kill_at("round 2: evaluating against heuristic", 1))
    assert {p.name: p.stat().st_mtime_ns for p in (out / "round-001" / "labels").glob("hand-*.npz")
            if p.name in held} == held  # the hands there were not played again
    assert len((out / "round-002" / "eval-0.jsonl").read_text().splitlines()) == 1
    again = ei.run(config, out)
    for k in (1, 2):
        a, b = load(ei.round_dir(tmp_path / "whole", k) / "labels"), load(ei.round_dir(out, k) / "labels")
        assert all(np.array_equal(a[f], b[f]) for f in a)  # the same labels as the run never stopped
        state_a, state_b = _state(ei.policy_of(tmp_path / "whole", k)), _state(ei.policy_of(out, k))
        assert all(np.array_equal(state_a[n].numpy(), state_b[n].numpy()) for n in state_a)
    for s, t in zip(whole, again):
        assert {k: v for k, v in s.items() if k != "seconds"} == {k: v for k, v in t.items() if k != "seconds"}
    seeds = [json.loads(line)["seed"] for line in (out / "round-002" / "eval-0.jsonl").read_text().splitlines()]
    assert sorted(seeds) == [ei.EVAL_SEED + 7, ei.EVAL_SEED + 8]  # each deal once
    scalars = read_scalars(out / "tb")  # each round logged once, at its number
    assert list(scalars["eval/heuristic/points_per_hand"][0]) == [0, 1, 2]
    assert list(scalars["expit/fit_agreement"][0]) == [1, 2]
    assert np.allclose(scalars["eval/heuristic/win_rate"][1], [s["eval"]["heuristic"]["win_rate"] for s in whole])
    # a finished run grown by a round: only the new round is played
    grown = ei.run(make_config(dict(TINY, rounds=3)), out)
    assert len(grown) == 4 and grown[:3] == again and ei.policy_of(out, 3).is_file()


def test_the_config_is_checked(tmp_path):
    assert load_config().teacher == ExpertIterationConfig().teacher
    for values, message in [
        ({"round": 3}, r"unknown expert iteration config field\(s\) \['round'\]"),
        ({"rounds": 0}, "rounds must be >= 1"),
        ({"rounds": "many"}, "rounds must be a whole number"),
        ({"eval_hands": 5}, "eval_hands must be an even number"),
        ({"lr": 0}, "lr must be > 0"),
        ({"decisions": "knocks"}, "decisions must be one of all, knock"),
        ({"init": "heuristic"}, "init must be a ppo agent"),
        ({"teacher": "mcts:rollout=minimax"}, "teacher: rollout must be one of"),
        ({"opponent": "basic/heuristic"}, "opponent 'basic/heuristic' plays"),
        ({"eval_opponents": ["heuristic", "heuristic"]}, "eval_opponents has repeats"),
        ({"eval_opponents": [3]}, "eval_opponents must be a list of agent specs"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_config(values)
    path = tmp_path / "c.yaml"
    path.write_text("- rounds\n")
    with pytest.raises(ValueError, match="must be a YAML mapping"):
        load_config(path)
    with pytest.raises(FileNotFoundError, match="not found"):
        load_config(tmp_path / "none.yaml")
    # a run folder holds one run's settings: another config there is refused, more rounds are not
    out = ei.prepare(make_config(TINY), tmp_path / "run")
    with pytest.raises(ValueError, match="holds a run with other settings \\(fields epochs\\)"):
        ei.prepare(make_config(dict(TINY, epochs=2)), out)
    ei.prepare(make_config(dict(TINY, rounds=5, workers=2)), out)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x").write_text("")
    with pytest.raises(ValueError, match="not an expert iteration run"):
        ei.prepare(make_config(TINY), tmp_path / "other")
    with pytest.raises(ValueError, match="has a comma in its path"):
        ei.prepare(make_config(TINY), tmp_path / "a,b")


def test_every_config_field_is_documented():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "training.md").read_text()
    rows = {line.split("|")[1].strip().strip("`") for line in text.splitlines() if line.startswith("| `")}
    fields = set(ExpertIterationConfig().to_dict())
    assert fields <= rows, sorted(fields - rows)
    for name, value in ExpertIterationConfig().to_dict().items():  # with its default as the code has it
        shown = "[" + ", ".join(value) + "]" if isinstance(value, list) else str(value).lower() if isinstance(value, bool) else str(value)
        assert f"| `{name}` | `{shown}` |" in text, name
