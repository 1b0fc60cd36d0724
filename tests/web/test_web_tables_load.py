"""Load on the people's tables: benchmarks/bench_web_tables.py run small on a real ``rummy
serve`` on 127.0.0.1 (10 tables of Basic Rummy for 12 s: 2 with two scripted people and a
spectator each, every person on a live stream; 8 of agents with a stand-in), within a
bounded time: no error (every answer 2xx, every stream up, every event checked, every
person's move shown on every stream at its table), moves measured at every people's table,
and the server's memory flat after the warm-up. The latencies are reported (in the test's
output and ``artifacts/web-tables-load.json``); no speed is asserted.

The checks on the streams are tested apart, on ``Watch`` fed made-up events: a move that
one stream never shows, another table's or seat's event, a position going back and legal
moves sent to a seat not to move are each an error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLES, PEOPLE, SECONDS = 10, 4, 12
GROWTH_MB = 40  # what the server's memory may grow by after the warm-up at most


def test_people_tables_under_load_without_errors_and_with_flat_memory():
    pytest.importorskip("uvicorn")
    pytest.importorskip("httpx2")
    out = ROOT / "artifacts" / "web-tables-load.json"
    out.parent.mkdir(exist_ok=True)
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_web_tables.py"), "--tables", str(TABLES),
                          "--people", str(PEOPLE), "--seconds", str(SECONDS), "--warmup", "4", "--json", str(out)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    print(run.stdout)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["errors"] == []
    assert len(report["moves_per_people_table"]) == PEOPLE // 2 and min(report["moves_per_people_table"]) > 0
    assert report["move_to_every_stream"]["n"] == sum(report["moves_per_people_table"])
    rss = report["server_rss_mb"]
    if rss["warm"] is not None:  # Linux: the server's resident memory
        assert rss["end"] - rss["warm"] < GROWTH_MB, f"the server grew from {rss['warm']:.0f} to {rss['end']:.0f} MB"


# ----------------------------------------------------------------------------- the checks


def bench() -> Any:
    """benchmarks/bench_web_tables.py as a module (its folder on the path, for its imports)."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_web_tables

    return bench_web_tables


def message(position: int, seat: Optional[int], to_move: int, log_seat: int, key: str = "t1",
            moves: Optional[list] = None) -> dict[str, Any]:
    """What a stream of seat ``seat`` is sent: the table ``key`` at ``position``, its last
    move played by ``log_seat``."""
    return {"status": {"id": key, "you": seat, "error": None},
            "table": {"position": position, "to_move": to_move, "moves": moves or [],
                      "log": [{"index": position, "seat": log_seat, "text": "a move"}]}}


def watched(figures: Any) -> Any:
    ticks = iter(range(1000))
    watch = bench().Watch("t1", 0, figures, clock=lambda: float(next(ticks)))
    for name, seat in (("seat 0", 0), ("seat 1", 1), ("spectator 0", None)):
        watch.add(name, seat)
    return watch


def test_a_move_is_measured_once_every_stream_has_shown_it():
    figures = bench().Figures()
    watch = watched(figures)  # clock: 0, 1, 2, ... at each call
    watch.moved(5, 0)  # sent at 0
    watch.seen("seat 0", message(6, 0, 1, 0))  # 1
    watch.seen("seat 1", message(7, 1, 1, 0))  # 2: a later event shows it too
    assert figures.latencies == []
    watch.seen("spectator 0", message(6, None, 1, 0))  # 3: the last stream
    watch.close()
    assert figures.latencies == [3.0] and figures.moves[0] == 1 and figures.errors == []


def test_a_move_one_stream_never_shows_is_an_error():
    figures = bench().Figures()
    watch = watched(figures)
    watch.moved(5, 0)
    watch.seen("seat 0", message(6, 0, 1, 0))
    watch.seen("seat 1", message(6, 1, 1, 0))
    watch.seen("spectator 0", message(5, None, 0, 1))  # the spectator still sees the table before the move
    watch.close()
    assert figures.latencies == []
    assert figures.errors == ["table t1: move 6 (seat 0) never reached spectator 0"]


@pytest.mark.parametrize("name, event, error", [
    ("seat 1", message(6, 1, 1, 0, key="t2"), "seat 1 was sent table 't2' as seat 1"),
    ("seat 1", message(6, 0, 1, 0), "seat 1 was sent table 't1' as seat 0"),
    ("spectator 0", message(6, None, 1, 0, moves=[{"id": 3}]), "spectator 0 was sent legal moves while seat 1 is"),
    ("seat 0", message(6, 0, 1, 0, moves=[{"id": 3}]), "seat 0 was sent legal moves while seat 1 is to move"),
    ("seat 1", message(6, 1, 1, 1), "seat 1 told move 6 as seat 1's, not 0's"),
])
def test_an_event_that_fails_a_check_is_an_error(name, event, error):
    figures = bench().Figures()
    watch = watched(figures)
    watch.moved(5, 0)
    watch.seen(name, event)
    assert len(figures.errors) == 1 and figures.errors[0].startswith(f"table t1: {error}")


def test_a_position_going_back_and_a_stream_ending_are_errors():
    figures = bench().Figures()
    watch = watched(figures)
    watch.seen("seat 0", message(6, 0, 1, 0))
    watch.seen("seat 0", message(4, 0, 1, 0))
    watch.gone("seat 1", "event gone: {'error': 'this table is no longer held on the server'}")
    watch.close()
    watch.gone("seat 0", "the server closed it")  # after the table is left: not an error
    assert figures.errors == ["table t1: seat 0's position went back from 6 to 4",
                              "table t1: seat 1's stream ended: event gone: {'error': 'this table is no longer held on "
                              "the server'}"]
