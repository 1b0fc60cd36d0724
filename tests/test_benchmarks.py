"""Smoke tests: every benchmark script runs end to end on a tiny budget (no timing asserted)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
NO_PEERS = ["--peer-python", "/nonexistent/python"]


@pytest.mark.parametrize(
    "script, args, expect",
    [
        ("bench_solver.py", ["--hands", "2000"] + NO_PEERS, "min_deadwood, 10 cards, batch"),
        ("bench_romme_solver.py", ["--hands", "100"], "least_penalty, batch, 14 cards"),
        ("bench_env.py", ["--seconds", "0.2", "--repeats", "1"] + NO_PEERS, "gin_rummy_v0.env()"),
        ("bench_vector.py", ["--seconds", "0.2", "--sizes", "1,16", "--rounds", "1"] + NO_PEERS, "batch    16"),
        ("bench_vector.py", ["--seconds", "0.2", "--sizes", "4", "--policy", "heuristic"], "per-game HeuristicAgent"),
        ("bench_vector.py", ["--seconds", "0.2", "--sizes", "4", "--policy", "heuristic", "--knock", "estimate"],
         "per-game HeuristicAgent(knock=estimate)"),
        ("bench_tournament.py", ["--deals", "2", "--batch-deals", "3", "--no-ppo"],
         "heuristic:knock=turn vs heuristic:knock=turn, 1 worker(s): one at a time"),
        ("bench_tournament.py", ["--game", "basic", "--deals", "1", "--batch-deals", "2"],
         "heuristic vs heuristic:danger_weight=0, 1 worker(s): one at a time"),
        ("bench_vector.py", ["--seconds", "0.2", "--sizes", "4", "--game", "basic", "--policy", "heuristic",
                             "--basic-players", "3"], "3 players: per-game RummyHeuristicAgent.act"),
        ("bench_train.py", ["--updates", "1", "--mix", "simple+pool", "--config", str(BENCH / "tiny_train.yaml"),
                            "--set", "advice=true"], "opponents simple+pool"),
        ("bench_agents.py", ["--pair", "simple", "random", "--hands", "4", "--matches", "4", "--workers", "1"],
         "simple vs random, classic, 4 hands"),
        ("bench_agents.py", ["--game", "romme", "--pair", "heuristic", "random", "--rules", "romme", "--players", "3",
                             "--hands", "6", "--workers", "1"],
         "heuristic vs random, romme, 3 players (heuristic and 2 x random), 6 hands"),
        ("bench_search.py", ["--hands", "2", "--oracle", "2", "--workers", "1", "--options", "simulations=24"],
         "confidence 1.5:"),
        ("bench_search.py", ["--peek", "--hands", "4", "--workers", "1", "--options", "simulations=24"],
         "given the opponent's true hand vs heuristic:knock=turn, classic, 4 hands"),
        ("bench_belief.py", ["--hands", "2", "--worlds", "3"], "opponent discards all"),
        ("bench_playouts.py", ["--games", "basic", "--hands", "1"], "basic    heuristic"),
        ("bench_playouts.py", ["--games", "basic", "--search", "search:simulations=8", "--moves", "1"],
         "python/auto"),
        ("bench_romme.py", ["--seconds", "0.1", "--repeats", "1", "--players", "3"], "agents.legal_actions"),
        ("bench_romme_mask.py", ["--games", "16", "--snapshots", "2", "--every", "5", "--players", "3", "--steps", "20"],
         "the observation"),
        ("compare.py", ["--base", "HEAD", "--rounds", "1", "bench_rummy.py", "--seconds", "0.1", "--repeats", "1"],
         "after/before"),
        ("bench_compile.py", ["--parts", "gin.encoding,basic.heuristic"], "basic.heuristic "),
    ],
)
def test_benchmark_script_runs(script, args, expect, tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert expect in out.stdout


def _bench_agents(tmp_path, *args):
    out = subprocess.run([sys.executable, str(BENCH / "bench_agents.py"), "--pair", "simple", "random", "--workers", "1",
                          *args], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_bench_agents_log_resumes_without_replaying_or_duplicating_deals(tmp_path):
    log = tmp_path / "deals.jsonl"
    whole = _bench_agents(tmp_path, "--hands", "8", "--log", str(tmp_path / "whole.jsonl"))
    _bench_agents(tmp_path, "--hands", "4", "--log", str(log))
    assert len(log.read_text().splitlines()) == 2
    with open(log, "a") as f:
        f.write('{"a": "simple", "b": "ran')  # a crash in the middle of a line
    grown = _bench_agents(tmp_path, "--hands", "8", "--log", str(log))
    assert "4 of the 8 hands are in" in grown
    seeds = [json.loads(line)["seed"] for line in log.read_text().splitlines()]
    assert sorted(seeds) == [0, 10_000, 20_000, 30_000]  # the two missing deals only, each once
    # the figures are those of one uninterrupted run (the timing at the end of the line aside)
    summary = [line.split("  [")[0] for line in (whole, grown) for line in line.splitlines() if "8 hands:" in line]
    assert len(summary) == 2 and summary[0].rsplit(",", 1)[0] == summary[1].rsplit(",", 1)[0]
    again = _bench_agents(tmp_path, "--hands", "8", "--log", str(log))
    assert "8 of the 8 hands are in" in again and len(log.read_text().splitlines()) == 4


def test_bench_agents_log_rejects_a_damaged_line_and_leaves_the_file_alone(tmp_path):
    log = tmp_path / "deals.jsonl"
    good = json.dumps({"a": "simple", "b": "random", "rules": "classic", "kind": "hands", "seed": 0, "row": [1, 9, 0, 3]})
    text = good + "\n\n" + good.replace("[1, 9, 0, 3]", "[1, 9]") + "\n"
    log.write_text(text)
    out = subprocess.run([sys.executable, str(BENCH / "bench_agents.py"), "--pair", "simple", "random", "--workers", "1",
                          "--hands", "4", "--log", str(log)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode != 0 and "deals.jsonl:3 is not a bench_agents log line" in out.stderr
    assert "4 numbers, this one 2" in out.stderr and log.read_text() == text


@pytest.mark.parametrize("flag, count, players", [("--hands", "2", "2"), ("--hands", "7", "2"), ("--matches", "1", "2"),
                                                  ("--hands", "8", "3"), ("--hands", "3", "3")])
def test_bench_agents_refuses_counts_without_two_whole_deals(tmp_path, flag, count, players):
    out = subprocess.run([sys.executable, str(BENCH / "bench_agents.py"), "--pair", "simple", "random", "--workers", "1",
                          "--hands", "4", "--players", players, flag, count], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    n = int(players)
    assert out.returncode != 0
    assert f"{flag} must be 0 or a multiple of --players ({n}) of at least {2 * n}" in out.stderr


def test_bench_knocks_parts_add_up_to_the_points_a_hand(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / "bench_knocks.py"), "--agent", "simple", "--opponent", "heuristic",
                          "--reference", "heuristic", "--hands", "20", "--seed", "3"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    headline = float(lines[0].split(": ")[-1].split(" points")[0])
    table = lines[lines.index(next(line for line in lines if line.startswith("outcome"))) + 1:]
    rows = table[: table.index("")]
    assert sum(int(row.split()[-3]) for row in rows) == 20  # every hand once
    assert abs(sum(float(row.split()[-1]) for row in rows) - headline) <= 0.005 * len(rows) + 0.005
    knockers = {line.split()[0]: int(line.split()[1]) for line in lines if line.split()[:1] in (["agent"], ["opponent"])
                and len(line.split()) >= 5 and line.split()[1].isdigit()}
    hands_knocked = sum(int(row.split()[-3]) for row in rows if "knocks:" in row)
    assert knockers["agent"] + knockers["opponent"] == hands_knocked


def test_bench_knocks_can_let_the_reference_decide_every_knock(tmp_path):
    """With --knock-by reference the agent knocks exactly when the reference would."""
    run = [sys.executable, str(BENCH / "bench_knocks.py"), "--agent", "simple", "--opponent", "heuristic",
           "--reference", "heuristic", "--hands", "20", "--seed", "3"]
    own = subprocess.run(run, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    led = subprocess.run(run + ["--knock-by", "reference"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert own.returncode == 0 and led.returncode == 0, own.stderr + led.stderr
    assert "knocks decided by the reference" in led.stdout.splitlines()[0]
    kinds = lambda out: {line[:34].strip() for line in out.stdout.splitlines() if line.startswith("agent ") and ", reference" in line}
    assert kinds(own) - {"agent knocks, reference knocks", "agent waits, reference waits"}  # simple knocks sooner
    assert kinds(led) <= {"agent knocks, reference knocks"}


@pytest.mark.parametrize("args, message", [
    (["--base", "no-such-commit", "bench_rummy.py"], "--base 'no-such-commit' is not a commit of this repository"),
    (["--base", "HEAD", "bench_nothing.py"], "no benchmark script benchmarks/bench_nothing.py"),
    (["--base", "HEAD", "--rounds", "0", "bench_rummy.py"], "--rounds must be at least 1, got 0"),
])
def test_compare_refuses_what_it_cannot_run(args, message, tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / "compare.py"), *args], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    assert out.returncode != 0 and message in out.stderr


def test_compare_reads_the_rates_a_benchmark_prints():
    sys.path.insert(0, str(BENCH))
    from compare import rates

    text = ("machine: x\nours   gin_rummy_v0.env()  (AEC loop)     39,123 steps/s\n"
            "peer   OpenSpiel gin_rummy        40,965 steps/s   -> ours/peer = 0.96x\n"
            "random vs random, 1 worker(s):     73 hands/s (800 hands in 11.0 s)\none step: 24.0 us\n")
    assert rates(text) == {"ours   gin_rummy_v0.env()  (AEC loop)": (39123.0, "steps/s"),
                           "peer   OpenSpiel gin_rummy": (40965.0, "steps/s"),
                           "random vs random, 1 worker(s):": (73.0, "hands/s")}


def _teacher_folder(tmp_path, batches: int) -> Path:
    """A run folder holding ``batches`` teacher batches in the trainer's format
    (``rummy_env.train.teacher_moves``): random positions whose advice and moves are
    discards, a quarter of them overruled."""
    from rummy_env.romme.game import DISCARD, NUM_ACTIONS
    from rummy_env.romme.layout import FLAT_SIZE
    from rummy_env.train.label_files import write_npz

    rng = np.random.default_rng(3)
    folder = tmp_path / "run" / "imitation"
    folder.mkdir(parents=True)
    for k in range(batches):
        n = 40
        obs = (rng.random((n, FLAT_SIZE + 1)) < 0.05).astype(np.float32)
        advice = rng.integers(0, 53, n)
        act = np.where(rng.random(n) < 0.25, rng.integers(0, 53, n), advice)
        mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
        mask[:, DISCARD:DISCARD + 53] = True
        obs[:, -1] = DISCARD + advice
        write_npz(folder / f"teacher-{k:05d}.npz", {"obs": obs, "mask": mask, "act": DISCARD + act,
                                                    "ret": np.zeros(n, np.float32)})
    return folder.parent


def test_fit_teacher_discards_fits_both_scorers_and_measures_them_on_held_out_batches(tmp_path):
    pytest.importorskip("torch")
    run = _teacher_folder(tmp_path, 3)
    out = subprocess.run([sys.executable, str(BENCH / "fit_teacher_discards.py"), str(run), "--held-out", "1",
                          "--epochs", "2", "--every", "1"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "fit on: 80 discard decisions" in out.stdout and "held out: 40 discard decisions" in out.stdout
    for name in ("flat", "per-card"):
        assert f"{name:9s} epoch   2: agrees" in out.stdout
    bad = subprocess.run([sys.executable, str(BENCH / "fit_teacher_discards.py"), str(run), "--held-out", "3"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "holds 3 teacher batches: --held-out must be 1..2" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_bench_compile_times_every_compiled_part_of_the_package():
    """``bench_compile.PARTS`` names every ``Compiled`` the package defines, each once."""
    import re

    sys.path.insert(0, str(BENCH))
    try:
        import bench_compile
    finally:
        sys.path.remove(str(BENCH))
    root = BENCH.parent / "rummy_env"
    defined = set()
    for path in root.rglob("*.py"):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        for name in re.findall(r"^(\w+) = Compiled(?:Encoder)?\(", path.read_text(), re.M):
            defined.add((module, name))
    listed = [(module, attribute) for _, module, attribute in bench_compile.PARTS]
    assert len(defined) >= 12 and sorted(listed) == sorted(defined)
