"""Load on the web app (``rummy serve``): many games at once over HTTP, each a person
playing random legal moves against the ``random`` agent, on a real server on 127.0.0.1.

    python benchmarks/bench_web.py [--games 50] [--waves 2] [--game gin] [--json FILE]

The server runs in its own process (``rummy serve``, its cap at ``--games``), so its
memory is its own: its resident size is read after each wave. Each wave starts
``--games`` games at once, plays every one to its end with one request in flight per
game, then ends them (``DELETE``), so the next wave reuses the room they left. It reports
every request's latency (a person's move, an agent's move) as percentiles, the errors
(any answer that is not 200), and the server's memory after each wave; ``--timeout``
bounds the whole run. tests/web/test_web_load.py runs it and checks there is no error and that
the memory does not keep growing from one wave to the next.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any, Iterator, Optional, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server(max_games: int, records: Path, *options: str) -> Iterator[tuple[str, int, IO[str]]]:
    """``rummy serve`` in a subprocess on a free port of 127.0.0.1, with ``options`` besides its
    cap on games: (its address, its pid, its log). Its log (stderr) goes to a temporary file,
    which a busy server cannot fill as it would a pipe nobody reads."""
    import httpx2

    port = free_port()
    command = [sys.executable, "-m", "rummy_env.cli", "serve", "--port", str(port), "--max-games", str(max_games),
               "--max-games-per-client", str(max_games),  # every simulated person comes from 127.0.0.1
               "--records", str(records), *options]
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log, text=True)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                if process.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"rummy serve exited with {process.returncode}: {log.read()}")
                with contextlib.suppress(httpx2.TransportError):
                    if httpx2.get(url + "/api/options", timeout=2).status_code == 200:
                        break
                time.sleep(0.1)
            else:
                raise RuntimeError("rummy serve did not answer within 60 seconds")
            yield url, process.pid, log
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def rss_mb(pid: int) -> Optional[float]:
    """The resident memory of process ``pid`` in MB (Linux's /proc), or None elsewhere."""
    status = Path(f"/proc/{pid}/status")
    if not status.is_file():
        return None
    for line in status.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


async def play_one(client: Any, game: str, opponent: str, seed: int, latencies: dict[str, list[float]],
                   errors: list[str]) -> int:
    """One game to its end (the person's moves random among those offered); its requests."""
    rng = np.random.default_rng(seed)
    requests = 0

    async def call(kind: str, method: str, path: str, body: Any = None) -> Optional[dict]:
        nonlocal requests
        start = time.perf_counter()
        response = await client.request(method, path, json={} if body is None and method != "GET" else body)
        latencies[kind].append(time.perf_counter() - start)
        requests += 1
        if response.status_code != 200:
            errors.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
            return None
        return response.json()

    created = await call("new game", "POST", "/api/games", {"game": game, "opponents": [opponent]})  # a secret deal
    if created is None:
        return requests
    game_id, table = created["id"], created["table"]
    while table is not None and not table["over"]:
        if table["to_move"] == table["you"]:
            move = table["moves"][int(rng.integers(len(table["moves"])))]
            table = await call("person's move", "POST", f"/api/games/{game_id}/move", {"action": move["id"]})
        else:
            table = await call("agent's move", "POST", f"/api/games/{game_id}/advance")
    await call("end game", "DELETE", f"/api/games/{game_id}")
    return requests


async def wave(url: str, games: int, game: str, opponent: str, seed: int) -> dict[str, Any]:
    import httpx2

    latencies: dict[str, list[float]] = {k: [] for k in ("new game", "person's move", "agent's move", "end game")}
    errors: list[str] = []
    limits = httpx2.Limits(max_connections=games, max_keepalive_connections=games)
    start = time.perf_counter()
    async with httpx2.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        counts = await asyncio.gather(*(play_one(client, game, opponent, seed + k, latencies, errors)
                                        for k in range(games)))
    return {"seconds": time.perf_counter() - start, "requests": sum(counts), "errors": errors, "latencies": latencies}


def percentiles(values: list[float], levels: Sequence[int] = (50, 95)) -> dict[str, float]:
    """``values`` (seconds) summed up in ms: their count, the percentiles ``levels`` and the most."""
    ms = np.array(values) * 1000 if values else np.zeros(1)
    return {"n": len(values), **{f"p{q}_ms": float(np.percentile(ms, q)) for q in levels}, "max_ms": float(ms.max())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games played at once (default 50)")
    parser.add_argument("--waves", type=int, default=2, help="rounds of --games games, one after the other (default 2)")
    parser.add_argument("--game", default="gin")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=600, help="seconds the whole run may take (default 600)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    async def run_all(url: str, pid: int) -> list[dict[str, Any]]:
        out = []
        for k in range(args.waves):
            figures = await wave(url, args.games, args.game, args.opponent, args.seed + 1000 * k)
            figures["server_rss_mb"] = rss_mb(pid)
            out.append(figures)
        return out

    with server(args.games, ROOT / "runs") as (url, pid, _):
        before = rss_mb(pid)
        waves = asyncio.run(asyncio.wait_for(run_all(url, pid), args.timeout))
    report = {"machine": machine(), "games": args.games, "game": args.game, "opponent": args.opponent,
              "server_rss_mb_at_start": before, "waves": []}
    print(f"{args.games} {args.game} games at once against {args.opponent}, {args.waves} wave(s), "
          f"on 127.0.0.1; {machine()}")
    print(f"server memory at start: {before if before is None else f'{before:.0f} MB'}")
    for k, w in enumerate(waves, start=1):
        stats = {kind: percentiles(v) for kind, v in w["latencies"].items()}
        report["waves"].append({"seconds": w["seconds"], "requests": w["requests"], "errors": w["errors"],
                                "server_rss_mb": w["server_rss_mb"], "latency": stats})
        rss = w["server_rss_mb"]
        print(f"wave {k}: {w['requests']} requests in {w['seconds']:.1f} s ({w['requests'] / w['seconds']:.0f}/s), "
              f"{len(w['errors'])} errors, server memory {rss if rss is None else f'{rss:.0f} MB'}")
        for kind, s in stats.items():
            print(f"  {kind:14} n={s['n']:5}  p50 {s['p50_ms']:6.1f} ms  p95 {s['p95_ms']:6.1f} ms  "
                  f"max {s['max_ms']:6.1f} ms")
        for message in w["errors"][:5]:
            print(f"  error: {message}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
