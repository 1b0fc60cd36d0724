"""Basic Rummy throughput: steps/s of random legal play for 2, 3 and 4 players.

The loop is the one every PettingZoo user writes (``agent_iter()`` / ``last()`` /
``step()``, a uniformly random legal action from the mask) on ``basic_rummy_v0.env()``,
observation and mask built every step; and the pure game (``BasicRummyState``: legal
actions + step, no observation). A step is one decision.

    python benchmarks/bench_rummy.py [--seconds 5] [--repeats 3]

Each figure is the best of ``--repeats`` interleaved rounds: on a shared machine the
speed drifts, and the best round is the one least disturbed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, random_play_rates  # noqa: E402

from rummy_env import basic_rummy_v0  # noqa: E402
from rummy_env.basic.game import BasicRummyState  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; each figure is the best of its rounds")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    best = random_play_rates(lambda n: basic_rummy_v0.env(num_players=n),
                             lambda n, seed: BasicRummyState.new_hand(n, seed=seed), (2, 3, 4), args.seconds, args.repeats)
    for n in (2, 3, 4):
        print(f"basic_rummy_v0.env(num_players={n})  (AEC loop)        {best[('env', n)]:>10,.0f} steps/s")
        print(f"BasicRummyState, {n} players (pure game)       {best[('game', n)]:>10,.0f} steps/s")


if __name__ == "__main__":
    main()
