"""The ``openspiel`` preset against OpenSpiel's ``gin_rummy``: thousands of hands played in
lockstep (``rummy_env.gin.openspiel.Lockstep``: the same deal, the same moves in both
engines), with every decision compared (hands, discard pile, stock size, player to move,
legal moves) and every hand's returns. Prints the decisions compared, the differences
found by kind (OpenSpiel's 11-card deadwood bug, which ``KNOWN_DIFFERENCES`` names, and
any other, which would be a bug) and how the hands ended.

    python benchmarks/bench_openspiel.py [--hands 3000] [--seed 0] [--knock 0.3]

Needs open_spiel in this environment (``pip install "rummy-env[openspiel]"``; the dev
set-up installs it). Hands are scripted: a knock taken with probability ``--knock``
where one is legal, the discard that leaves the least deadwood 80% of the time, other
moves uniformly at random; a quarter of the hands never knock and draw from the stock
(they reach the wall and pass there), a tenth do the same but take the discard at the
wall whenever that is legal (to knock), a tenth always take the top discard and never
throw it back (OpenSpiel's cap of 50 upcard draws), a tenth take it half the time and
throw it back 30% of the time (a card thrown back by both players in a row draws the
hand), the rest throw back the card just taken 5% of the time.
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

from rummy_env.gin.game import TAKE_DISCARD  # noqa: E402
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
    returns_equal = returns_compared = compared = 0
    start = time.perf_counter()
    for h in range(args.hands):
        style = h % 20
        options = (dict(knock=0.0, take=0.0) if style < 5 else dict(knock=0.0, take=0.0, wall=1.0) if style < 7
                   else dict(knock=0.0, take=1.0, throw_back=0.0) if style < 9
                   else dict(knock=args.knock, take=0.5, throw_back=0.3) if style < 11
                   else dict(knock=args.knock, throw_back=0.05))
        seen, ls = play_scripted(rng.permutation(52).tolist(), rng, **options)
        differences.update(seen)
        hands_with.update(seen.keys())
        compared += ls.compared
        result = ls.returns()
        if result is not None:
            returns_compared += 1
            returns_equal += result[0] == result[1]
            s = ls.state
            wall_knock = s.result.outcome != "draw" and len(s.stock) <= 2 and s.history[-2] == TAKE_DISCARD
            outcomes[f"{s.result.outcome}{' at the wall' if wall_knock else ''}"
                     + (f" ({s.result.reason})" if s.result.reason else "")] += 1
    seconds = time.perf_counter() - start
    print(f"{args.hands:,} hands in lockstep in {seconds:.1f} s ({args.hands / seconds:,.0f} hands/s); "
          f"{compared:,} decisions compared")
    print(f"returns equal in {returns_equal:,} of the {returns_compared:,} hands both engines finished; outcomes: "
          + ", ".join(f"{k} {v:,}" for k, v in sorted(outcomes.items())))
    for kind in sorted(differences):
        label = "known" if kind in KNOWN_DIFFERENCES else "UNKNOWN"
        print(f"{label:<7} {kind:<16} at {differences[kind]:>6,} decisions in {hands_with[kind]:>5,} hands"
              + (f": {KNOWN_DIFFERENCES[kind]}" if kind in KNOWN_DIFFERENCES else ""))
    if not any(k not in KNOWN_DIFFERENCES for k in differences):
        print("no other difference: hands, discard pile, stock size, player to move and legal moves agree elsewhere")
    else:
        print("UNKNOWN differences: please report them (a bug of ours, or of OpenSpiel's not yet known)")


if __name__ == "__main__":
    main()
