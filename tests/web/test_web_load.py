"""Load on the web app: 50 games at once against ``random`` on a real ``rummy serve`` on
127.0.0.1 (benchmarks/bench_web.py, two waves), within a bounded time: no request fails,
every game is played to its end, and the server's memory does not keep growing from one
wave to the next (the games ended free their room). The latency per move is reported (in
the test's output and ``artifacts/web-load.json``); no speed is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = 50
GROWTH_MB = 40  # what a second wave may add to the server's memory at most


def test_fifty_games_at_once_without_errors_and_with_bounded_memory():
    pytest.importorskip("uvicorn")
    pytest.importorskip("httpx2")
    out = ROOT / "artifacts" / "web-load.json"
    out.parent.mkdir(exist_ok=True)
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_web.py"), "--games", str(GAMES), "--waves", "2",
                          "--timeout", "540", "--json", str(out)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    print(run.stdout)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(out.read_text())
    for wave in report["waves"]:
        assert wave["errors"] == []
        latency = wave["latency"]
        assert latency["new game"]["n"] == latency["end game"]["n"] == GAMES  # every game played to its end
        assert latency["person's move"]["n"] > 10 * GAMES and latency["agent's move"]["n"] > 10 * GAMES
    first, second = (w["server_rss_mb"] for w in report["waves"])
    if first is not None:  # Linux: the server's resident memory
        assert second - first < GROWTH_MB, f"the server grew from {first:.0f} to {second:.0f} MB in the second wave"


def test_romme_games_at_once_against_the_heuristic_keep_the_server_up():
    """Several Rommé tables moved at once, each in a thread of the server's pool, every move
    of the heuristic a run of the compiled meld solver and legal mask: until each thread had
    its own scratch for those kernels, eight such games killed the server (a segmentation
    fault: two threads' searches wrote over each other's state maps). Every game must be
    played to its end without a failed request."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("httpx2")
    out = ROOT / "artifacts" / "web-load-romme.json"
    out.parent.mkdir(exist_ok=True)
    games = 8
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_web.py"), "--games", str(games), "--waves", "1",
                          "--game", "romme", "--opponent", "heuristic", "--timeout", "400", "--json", str(out)],
                         capture_output=True, text=True, timeout=500, cwd=ROOT)
    print(run.stdout)
    assert run.returncode == 0, run.stderr[-3000:]
    (wave,) = json.loads(out.read_text())["waves"]
    assert wave["errors"] == []
    assert wave["latency"]["new game"]["n"] == wave["latency"]["end game"]["n"] == games
    assert wave["latency"]["agent's move"]["n"] > 10 * games
