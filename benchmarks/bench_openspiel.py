"""The ``openspiel`` preset against OpenSpiel's ``gin_rummy``: thousands of hands played in
lockstep (``rummy_env.gin.openspiel.Lockstep``: the same deal, the same moves in both
engines), with every decision compared (hands, discard pile, stock size, player to move,
legal moves) and every hand's returns. Prints the differences found by kind (those
``KNOWN_DIFFERENCES`` names, and any other, which would be a bug) and the outcomes.

    python benchmarks/bench_openspiel.py [--hands 3000] [--seed 0] [--knock 0.3]

Needs open_spiel in this environment (``pip install "rummy-env[openspiel]"``; the dev
set-up installs it). Hands are scripted: a knock taken with probability ``--knock``
where one is legal, the discard that leaves the least deadwood 80% of the time, other
moves uniformly at random; a quarter of the hands never knock and draw from the stock
(they reach the wall), a tenth always take the top discard (OpenSpiel's cap on upcard
draws).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env.gin.openspiel import KNOWN_DIFFERENCES, play_scripted  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=3000, help="hands to play in lockstep")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--knock", type=float, default=0.3, help="chance of knocking where a knock is legal")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    rng = np.random.default_rng(args.seed)
    differences: Counter = Counter()
    hands_with: Counter = Counter()
    outcomes: Counter = Counter()
    returns_equal = returns_compared = 0
    start = time.perf_counter()
    for h in range(args.hands):
        style = h % 20
        knock, take = (0.0, 0.0) if style < 5 else (0.0, 1.0) if style < 7 else (args.knock, None)
        seen, ls = play_scripted(rng.permutation(52).tolist(), rng, knock=knock, take=take)
        differences.update(seen)
        hands_with.update(seen.keys())
        result = ls.returns()
        if result is not None:
            returns_compared += 1
            returns_equal += result[0] == result[1]
            outcomes[ls.state.result.outcome] += 1
    seconds = time.perf_counter() - start
    print(f"{args.hands:,} hands in lockstep in {seconds:.1f} s ({args.hands / seconds:,.0f} hands/s)")
    print(f"returns equal in {returns_equal:,} of the {returns_compared:,} hands both engines finished; outcomes: "
          + ", ".join(f"{k} {v:,}" for k, v in sorted(outcomes.items())))
    for kind in sorted(differences):
        label = "known" if kind in KNOWN_DIFFERENCES else "UNKNOWN"
        print(f"{label:<7} {kind:<13} at {differences[kind]:>6,} decisions in {hands_with[kind]:>5,} hands"
              + (f": {KNOWN_DIFFERENCES[kind]}" if kind in KNOWN_DIFFERENCES else ""))
    if not any(k not in KNOWN_DIFFERENCES for k in differences):
        print("no other difference: hands, discard pile, stock size, player to move and legal moves agree elsewhere")


if __name__ == "__main__":
    main()
