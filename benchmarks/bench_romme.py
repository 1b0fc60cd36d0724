"""Rommé throughput: steps/s of random legal play for 2, 4 and 6 players, and Gin's in the same run.

The loop is the one every PettingZoo user writes (``agent_iter()`` / ``last()`` /
``step()``, a uniformly random legal action from the mask), observation and mask built
every step: on ``romme_v0.raw_env()`` (the ratio to ``gin_rummy_v0.raw_env()`` measured in
the same rounds is printed beside it) and on ``romme_v0.env()``; and the pure game
(``RommeState``: legal actions + step, no observation). A step is one decision (a card put
into the pending meld is one, as is the commit). And the observation alone: ``encodes/s``
of the ``flat`` encoder over the information sets (of the player to move) met in a few
random hands.

    python benchmarks/bench_romme.py [--seconds 5] [--repeats 3] [--players 2,4,6] [--profile 4] [--cpu-time]

Each figure is the best of ``--repeats`` interleaved rounds (Gin's too): on a shared
machine the speed drifts, and the best round is the one least disturbed. ``--cpu-time``
times the play loops on this process's own CPU time instead (steps per CPU second), which
other jobs on the same cores do not change. ``--profile N`` then profiles
``romme_v0.raw_env(num_players=N)`` for ``--seconds`` (cProfile) and prints where the time
goes: the functions of most own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import aec_rate, best_of_rounds, machine, state_rate  # noqa: E402

from rummy_env import gin_rummy_v0, romme_v0  # noqa: E402
from rummy_env.romme import encoding  # noqa: E402
from rummy_env.romme.game import RommeState  # noqa: E402


def encode_rate(n: int, seconds: float, repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
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
        done, start = 0, clock()
        while clock() - start < seconds:
            for info in infos:
                encoding.encode(info, rules)
            done += len(infos)
        best = max(best, done / (clock() - start))
    return best


def play_rates(sizes: list[int], seconds: float, repeats: int,
               clock: Callable[[], float] = time.perf_counter) -> dict[tuple[str, int], float]:
    """Best-of-rounds steps/s: ``("gin", 2)`` Gin's ``raw_env()``, then per table size ``n``
    ``("raw", n)`` Rommé's ``raw_env()``, ``("env", n)`` its ``env()``, ``("game", n)`` the
    pure game; every round measures each once, in this order, on ``clock``."""
    measures = {("gin", 2): lambda: aec_rate(gin_rummy_v0.raw_env(), seconds, clock=clock)}
    for n in sizes:
        measures[("raw", n)] = lambda n=n: aec_rate(romme_v0.raw_env(num_players=n), seconds, clock=clock)
        measures[("env", n)] = lambda n=n: aec_rate(romme_v0.env(num_players=n), seconds, clock=clock)
        measures[("game", n)] = lambda n=n: state_rate(lambda g: RommeState.new_hand(n, seed=g), seconds,
                                                       clock=clock)
    return best_of_rounds(measures, repeats)


def profile(n: int, seconds: float, top: int = 15) -> None:
    """cProfile of ``romme_v0.raw_env(num_players=n)``'s random play: the functions of most
    own time, and each one's share of the whole."""
    env = romme_v0.raw_env(num_players=n)
    aec_rate(env, 0.2)  # compiled kernels loaded and checked first
    profiler = cProfile.Profile()
    profiler.enable()
    aec_rate(env, seconds)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    print(f"\nprofile of romme_v0.raw_env(num_players={n}), {seconds:g} s (own time, share of the whole):")
    rows = sorted(stats.stats.items(), key=lambda item: -item[1][2])[:top]
    for (path, line, name), (_, calls, own, cumulative, _) in rows:
        where = f"{Path(path).name}:{line}({name})" if line else name
        print(f"  {100 * own / total:5.1f}%  own {own:6.3f} s  with callees {cumulative:6.3f} s  {calls:>9,} calls  "
              f"{where}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; each figure is the best of its rounds")
    ap.add_argument("--players", default="2,4,6", help="table sizes, comma-separated (2..6)")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="then profile raw_env at N players (0: no)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time the loops on this process's CPU time (steps per CPU second), not the time passed")
    args = ap.parse_args()
    sizes = [int(x) for x in args.players.split(",")]
    print(f"machine: {machine()}" + ("; rates per CPU second of this process" if args.cpu_time else ""))
    clock = time.process_time if args.cpu_time else time.perf_counter
    best = play_rates(sizes, args.seconds, args.repeats, clock)
    gin = best[("gin", 2)]
    print(f"gin_rummy_v0.raw_env()  (Gin, same rounds)      {gin:>10,.0f} steps/s")
    for n in sizes:
        raw = best[("raw", n)]
        print(f"romme_v0.raw_env(num_players={n})               {raw:>10,.0f} steps/s  "
              f"({raw / gin:.2f}x Gin's raw_env)")
        print(f"romme_v0.env(num_players={n})  (AEC loop)        {best[('env', n)]:>10,.0f} steps/s")
        print(f"RommeState, {n} players (pure game)            {best[('game', n)]:>10,.0f} steps/s")
        encodes = encode_rate(n, args.seconds, args.repeats, clock)
        print(f"flat observation, {n} players                  {encodes:>10,.0f} encodes/s")
    if args.profile:
        profile(args.profile, args.seconds)


if __name__ == "__main__":
    main()
