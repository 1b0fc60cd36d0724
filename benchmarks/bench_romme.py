"""Rommé throughput: steps/s of random legal play for 2, 4 and 6 players.

The loop is the one every PettingZoo user writes (``agent_iter()`` / ``last()`` /
``step()``, a uniformly random legal action from the mask) on ``romme_v0.env()``,
observation and mask built every step; and the pure game (``RommeState``: legal
actions + step, no observation). A step is one decision (a card put into the pending
meld is one, as is the commit). And the observation alone: ``encodes/s`` of the ``flat``
encoder over the information sets (of the player to move) met in a few random hands.

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
from common import machine, random_play_rates  # noqa: E402

from rummy_env import romme_v0  # noqa: E402
from rummy_env.romme import encoding  # noqa: E402
from rummy_env.romme.game import RommeState  # noqa: E402


def encode_rate(n: int, seconds: float, repeats: int) -> float:
    """Encodes/s of the flat observation over the positions of 4 random hands (best round)."""
    rng = np.random.default_rng(0)
    infos = []
    for seed in range(4):
        s = RommeState.new_hand(n, seed=seed)
        while not s.is_over:
            infos.append(s.information_set(s.current_player))
            s.step(int(rng.choice(s.legal_actions())))
    rules = s.rules
    best = 0.0
    for _ in range(repeats):
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for info in infos:
                encoding.encode(info, rules)
            done += len(infos)
        best = max(best, done / (time.perf_counter() - start))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; each figure is the best of its rounds")
    ap.add_argument("--players", default="2,4,6", help="table sizes, comma-separated (2..6)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.players.split(",")]
    print(f"machine: {machine()}")
    best = random_play_rates(lambda n: romme_v0.env(num_players=n),
                             lambda n, seed: RommeState.new_hand(n, seed=seed), sizes, args.seconds, args.repeats)
    for n in sizes:
        print(f"romme_v0.env(num_players={n})  (AEC loop)        {best[('env', n)]:>10,.0f} steps/s")
        print(f"RommeState, {n} players (pure game)            {best[('game', n)]:>10,.0f} steps/s")
        print(f"flat observation, {n} players                  {encode_rate(n, args.seconds, args.repeats):>10,.0f} encodes/s")


if __name__ == "__main__":
    main()
