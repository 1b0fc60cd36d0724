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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, random_play_rates  # noqa: E402

from rummy_env import romme_v0  # noqa: E402
from rummy_env.romme.game import RommeState  # noqa: E402


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


if __name__ == "__main__":
    main()
