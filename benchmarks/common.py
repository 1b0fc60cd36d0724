"""Helpers shared by the benchmark scripts: machine description and peer subprocesses.

Peers run in their own virtualenv (``benchmarks/setup_peers.sh`` makes ``.peers/venv``)
because they pin packages our project does not use; each peer script prints one JSON
line, which we read back here, in the same run as our own measurement.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PEER_PYTHON = ROOT / ".peers" / "venv" / "bin" / "python"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    info = Path("/proc/cpuinfo")
    if info.exists():  # Linux: the model name is more telling than the architecture
        names = [line.split(":", 1)[1].strip() for line in info.read_text().splitlines() if line.startswith("model name")]
        cpu = names[0] if names else cpu
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"


def peer_python(arg: Optional[str]) -> Optional[Path]:
    path = Path(arg) if arg else DEFAULT_PEER_PYTHON
    return path if path.exists() else None


def run_peer(python: Path, script: str, *args: str) -> Optional[dict]:
    """Run ``benchmarks/peers/<script>`` under the peer interpreter; its JSON line, or None."""
    cmd = [str(python), str(ROOT / "benchmarks" / "peers" / script), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"  peer {script} failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def best_rate(fn: Callable[[], Any], n: int, repeats: int = 3) -> float:
    """``n`` divided by the fastest of ``repeats`` timed calls of ``fn`` (which does ``n``
    things): items per second, the noise of a busy machine left out."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return n / best


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """n random hands of ``size`` cards (the same draw as the peer scripts for one seed)."""
    idx = np.argsort(rng.random((n, 52)), axis=1)[:, :size]
    return idx


def random_play_rates(make_env: Callable[[int], Any], deal: Callable[[int, int], Any], sizes: Sequence[int],
                      seconds: float, repeats: int, seed: int = 0) -> dict[tuple[str, int], float]:
    """Steps/s of uniformly random legal play, ``{("env", n): ..., ("game", n): ...}`` for each
    table size ``n`` of ``sizes``: ``aec_rate`` of ``make_env(n)`` and ``state_rate`` of
    ``deal(n, seed)`` (a state). Each figure is the best of ``repeats`` interleaved rounds:
    a slow spell of the machine hits every figure alike."""
    measures = {(kind, n): (lambda k=kind, n=n: (aec_rate(make_env(n), seconds, seed) if k == "env"
                                                 else state_rate(lambda g, n=n: deal(n, seed + g), seconds, seed)))
                for n in sizes for kind in ("env", "game")}
    return best_of_rounds(measures, repeats)


def best_of_rounds(measures: dict[Any, Callable[[], float]], repeats: int) -> dict[Any, float]:
    """The best rate of each of ``measures`` over ``repeats`` rounds, every round measuring
    each once in turn (interleaved: a slow spell of the machine hits every figure alike)."""
    best = dict.fromkeys(measures, 0.0)
    for _ in range(repeats):
        for key, measure in measures.items():
            best[key] = max(best[key], measure())
    return best


def aec_rate(env: Any, seconds: float, seed: int = 0, clock: Callable[[], float] = time.perf_counter) -> float:
    """Steps/s of the AEC loop every PettingZoo user writes on ``env`` (``agent_iter()`` /
    ``last()`` / ``step()``, a uniformly random action from the mask, observation and mask
    built every step), after one untimed hand. ``clock``: ``time.process_time`` counts this
    process's CPU time alone (steps per CPU second: what other jobs on shared cores do not
    change), the default the time that passed."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    env.reset(seed=seed + 10**6)  # one untimed hand first: what a process does once (compiled kernels
    for _ in env.agent_iter():  # loaded and checked, caches) is not part of the rate
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    start = clock()
    while clock() - start < seconds:
        env.reset(seed=seed + games)
        games += 1
        for _ in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
    return steps / (clock() - start)


def state_rate(deal: Callable[[int], Any], seconds: float, seed: int = 0,
               clock: Callable[[], float] = time.perf_counter) -> float:
    """Steps/s of the pure game alone: hands ``deal(0)``, ``deal(1)``, ... played by
    uniformly random legal actions (legal actions + step, no observation); ``clock`` as
    for ``aec_rate``."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = clock()
    while clock() - start < seconds:
        s = deal(games)
        games += 1
        while not s.is_over:
            legal = s.legal_actions()
            s.step(legal[rng.integers(len(legal))])
            steps += 1
    return steps / (clock() - start)
