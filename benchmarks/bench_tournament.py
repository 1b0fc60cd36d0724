"""Tournament throughput: hands per second for random vs random and heuristic vs heuristic
(``heuristic:knock=turn``, the rule docs/benchmarks.md's figures were measured with; the default
knock estimate costs a millisecond or two more where a knock is legal), with 1 and 2
local workers (``eval.tournament.run`` end to end: playing, recording every
move to results.jsonl, statistics and reports).

    python benchmarks/bench_tournament.py [--deals 400]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env.eval.config import TournamentConfig  # noqa: E402
from rummy_env.eval.tournament import run  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=400, help="deals (x2 hands) per measurement")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    for pair in (["random", "random:seed=1"], ["heuristic:knock=turn", "heuristic:knock=turn,seed=1"]):
        for workers in (1, 2):
            with tempfile.TemporaryDirectory() as out:
                cfg = TournamentConfig(agents=pair, deals=args.deals, workers=workers, out=out)
                start = time.perf_counter()
                summary = run(cfg, progress=False)
                seconds = time.perf_counter() - start
            hands = sum(p["hands"] for p in summary["pairs"])
            print(f"{pair[0]} vs {pair[0]}, {workers} worker(s): {hands / seconds:8,.0f} hands/s ({hands} hands in {seconds:.1f} s)")


if __name__ == "__main__":
    main()
