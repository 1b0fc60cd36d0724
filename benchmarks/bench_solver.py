"""Meld-solver throughput: hands per second, and the ratio to OpenSpiel in the same run.

Measures ``min_deadwood`` on random 10-card hands and ``discard_deadwood`` (plus
``min_deadwood``) on random 11-card hands, batched, and the single-hand path (one Python
int per call, as the game engine uses it, with its cache cleared). OpenSpiel's
``GinRummyUtils(13, 4, 10).min_deadwood`` is called once per hand in a subprocess under
the peer virtualenv (``bash benchmarks/setup_peers.sh``), on the same hands, and its
10-card answers are checked against ours.

    python benchmarks/bench_solver.py [--hands 1000000] [--peer-python PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import best_rate, machine, peer_python, random_hands, run_peer  # noqa: E402

from rummy_env.core import melds  # noqa: E402


def masks(idx: np.ndarray) -> np.ndarray:
    return (np.uint64(1) << idx.astype(np.uint64)).sum(axis=1, dtype=np.uint64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peer-python", help="python of the peer venv (default .peers/venv/bin/python)")
    args = ap.parse_args()
    n = args.hands
    print(f"machine: {machine()}")
    h10 = masks(random_hands(np.random.default_rng(args.seed), n, 10))
    h11 = masks(random_hands(np.random.default_rng(args.seed), n, 11))
    ours = {
        "min_deadwood, 10 cards, batch": best_rate(lambda: melds.min_deadwood(h10), n),
        "min_deadwood, 11 cards, batch": best_rate(lambda: melds.min_deadwood(h11), n),
        "discard_deadwood, 11 cards, batch": best_rate(lambda: melds.discard_deadwood(h11), n),
    }
    singles = [int(h) for h in h10[:100_000]]

    def one_by_one() -> None:
        melds._scalar_min_deadwood.cache_clear()
        for h in singles:
            melds.min_deadwood(h)

    ours["min_deadwood, 10 cards, one int per call (uncached)"] = best_rate(one_by_one, len(singles))
    for name, rate in ours.items():
        print(f"ours   {name:55s} {rate:>12,.0f} hands/s")

    python = peer_python(args.peer_python)
    if python is None:
        print("OpenSpiel: not measured (run `bash benchmarks/setup_peers.sh` first)")
        return
    # OpenSpiel's 11-card call answers 'deadwood after the best discard' (by a heuristic
    # that is sometimes too high); our exact counterpart is discard_deadwood (every discard).
    for cards, key in ((10, "min_deadwood, 10 cards, batch"), (11, "discard_deadwood, 11 cards, batch")):
        peer = run_peer(python, "opsp_solver.py", "--hands", str(n), "--seed", str(args.seed), "--cards", str(cards))
        if peer:
            rate = peer["hands_per_s"]
            print(f"OpenSpiel min_deadwood, {cards} cards, one call per hand        {rate:>12,.0f} hands/s"
                  f"   -> ours ({key.split(',')[0]}) / OpenSpiel = {ours[key] / rate:.1f}x")
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "opsp.json"
        check = 20_000
        if run_peer(python, "opsp_solver.py", "--hands", str(check), "--seed", "7", "--cards", "10", "--dump", str(dump)):
            data = json.loads(dump.read_text())
            mine = melds.min_deadwood(masks(np.array(data["hands"])))
            agree = int((mine == np.array(data["min_deadwood"])).sum())
            print(f"10-card answers equal to OpenSpiel's: {agree:,} of {check:,}")


if __name__ == "__main__":
    main()
