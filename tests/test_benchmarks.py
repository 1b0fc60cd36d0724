"""Smoke tests: every benchmark script runs end to end on a tiny budget (no timing asserted)."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
NO_PEERS = ["--peer-python", "/nonexistent/python"]


@pytest.mark.parametrize(
    "script, args, expect",
    [
        ("bench_solver.py", ["--hands", "2000"] + NO_PEERS, "min_deadwood, 10 cards, batch"),
        ("bench_env.py", ["--seconds", "0.2", "--repeats", "1"] + NO_PEERS, "gin_rummy_v0.env()"),
        ("bench_vector.py", ["--seconds", "0.2", "--sizes", "1,16"] + NO_PEERS, "batch    16"),
        ("bench_vector.py", ["--seconds", "0.2", "--sizes", "4", "--policy", "heuristic"], "per-game HeuristicAgent"),
        ("bench_tournament.py", ["--deals", "3"], "heuristic vs heuristic, 2 worker(s)"),
        ("bench_train.py", ["--updates", "1", "--mix", "simple+pool", "--config", str(BENCH / "tiny_train.yaml"),
                            "--set", "advice=true"], "opponents simple+pool"),
        ("bench_agents.py", ["--pair", "simple", "random", "--hands", "4", "--matches", "2", "--workers", "1"],
         "simple vs random, classic, 4 hands"),
        ("bench_search.py", ["--hands", "2", "--oracle", "2", "--workers", "1", "--options", "simulations=24"],
         "confidence 1.5:"),
        ("bench_search.py", ["--peek", "--hands", "4", "--workers", "1", "--options", "simulations=24"],
         "given the opponent's true hand vs heuristic, classic, 4 hands"),
        ("bench_belief.py", ["--hands", "2", "--worlds", "3"], "opponent discards all"),
    ],
)
def test_benchmark_script_runs(script, args, expect, tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert expect in out.stdout
