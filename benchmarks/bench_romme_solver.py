"""Rommé meld-solver throughput: hands per second, with and without the compiled kernels.

Measures on random hands of 13 and 14 cards dealt from the 110-card pack (two decks, six
jokers), under the default rules: ``least_penalty`` and ``can_come_out`` on a batch of
hands (one call), and ``best_arrangement`` and ``come_out`` one hand per call. Each is
measured with the numba kernels (when numba is installed) and with the Python search
(``RUMMY_ENV_NO_NUMBA=1`` does the same for a whole process); the Python search runs on a
tenth of the hands (it is about a hundred times slower).

    python benchmarks/bench_romme_solver.py [--hands 20000] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import best_rate, machine  # noqa: E402

from rummy_env.romme import melds  # noqa: E402
from rummy_env.romme.cards import counts_of  # noqa: E402
from rummy_env.romme.rules import RommeRules  # noqa: E402


def deal(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """n random hands of ``size`` physical cards of the 110, as (n, 53) kind counts."""
    return counts_of(np.argsort(rng.random((n, 110)), axis=1)[:, :size])


def measure(hands: np.ndarray, rules: RommeRules, singles: int) -> dict[str, float]:
    n = len(hands)
    one = hands[:singles]

    def each(fn):
        def run() -> None:
            melds._python_least_penalty.cache_clear()
            for h in one:
                fn(h, rules)
        return run

    def batch(fn):
        def run() -> None:
            melds._python_least_penalty.cache_clear()  # the Python path memoises single hands
            fn(hands, rules)
        return run

    return {
        "least_penalty, batch": best_rate(batch(melds.least_penalty), n),
        "can_come_out, batch": best_rate(batch(melds.can_come_out), n),
        "best_arrangement, one hand per call": best_rate(each(melds.best_arrangement), len(one)),
        "come_out, one hand per call": best_rate(each(melds.come_out), len(one)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=20_000, help="hands per measurement (the Python search: a tenth)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rules = RommeRules()
    print(f"machine: {machine()}")
    compiled = melds._kernels() is not None
    for size in (13, 14):
        hands = deal(np.random.default_rng(args.seed), args.hands, size)
        if compiled:
            melds.least_penalty(hands[:10], rules)  # load the kernels before timing
            for name, rate in measure(hands, rules, min(len(hands), 5_000)).items():
                print(f"compiled  {name + f', {size} cards':48s} {rate:>12,.0f} hands/s")
        else:
            print(f"compiled  {size} cards: not measured (numba missing or RUMMY_ENV_NO_NUMBA set)")
        saved = melds.KERNELS.chosen
        melds.KERNELS.chosen = None
        try:
            small = hands[: max(1, args.hands // 10)]
            for name, rate in measure(small, rules, min(len(small), 500)).items():
                print(f"python    {name + f', {size} cards':48s} {rate:>12,.0f} hands/s")
        finally:
            melds.KERNELS.chosen = saved


if __name__ == "__main__":
    main()
