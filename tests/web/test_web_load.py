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
