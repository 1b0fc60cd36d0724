"""Rommé throughput: steps/s of random legal play for 2, 4 and 6 players.

The loop is the one every PettingZoo user writes (``agent_iter()`` / ``last()`` /
``step()``, a uniformly random legal action from the mask) on ``romme_v0.env()``,
observation and mask built every step; and the pure game (``RommeState``: legal
actions + step, no observation). A step is one decision (a card put into the pending
meld is one, as is the commit).

    python benchmarks/bench_romme.py [--seconds 5] [--repeats 3] [--players 2,4,6]

Each figure is the best of ``--repeats`` interleaved rounds: on a shared machine the
speed drifts, and the best round is the one least disturbed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env import romme_v0  # noqa: E402
from rummy_env.romme.game import RommeState  # noqa: E402


def env_rate(num_players: int, seconds: float, seed: int = 0) -> float:
    env = romme_v0.env(num_players=num_players)
    rng = np.random.default_rng(seed)
    steps = games = 0
    env.reset(seed=seed + 10**6)  # one untimed hand first: what a process does once (compiled kernels
    for _ in env.agent_iter():  # loaded and checked, caches) is not part of the rate
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
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
    return steps / (time.perf_counter() - start)


def game_rate(num_players: int, seconds: float, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = RommeState.new_hand(num_players, seed=seed + games)
        games += 1
        while not s.is_over:
            legal = s.legal_actions()
            s.step(legal[rng.integers(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; each figure is the best of its rounds")
    ap.add_argument("--players", default="2,4,6", help="table sizes, comma-separated (2..6)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.players.split(",")]
    print(f"machine: {machine()}")
    measures = {(kind, n): (lambda k=kind, n=n: (env_rate if k == "env" else game_rate)(n, args.seconds))
                for n in sizes for kind in ("env", "game")}
    best = dict.fromkeys(measures, 0.0)
    for _ in range(args.repeats):  # interleaved rounds, so a slow spell hits every figure alike
        for key, measure in measures.items():
            best[key] = max(best[key], measure())
    for n in sizes:
        print(f"romme_v0.env(num_players={n})  (AEC loop)        {best[('env', n)]:>10,.0f} steps/s")
        print(f"RommeState, {n} players (pure game)            {best[('game', n)]:>10,.0f} steps/s")


if __name__ == "__main__":
    main()
