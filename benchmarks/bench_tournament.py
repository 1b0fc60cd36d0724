"""Tournament throughput, one game at a time against many at once, in one run: hands per
second of ``eval.tournament.run`` end to end (playing, recording every move to
results.jsonl, statistics and reports) with ``batch: off`` (every game through the env,
the per-game path) and ``batch: auto`` (the batched path: thousands of games at once on
the vector engine), for random vs random, simple vs simple, ``heuristic:knock=turn`` vs
itself, ``heuristic`` (its default knock estimate) vs itself and, when torch and the
shipped policy are there, ppo vs ppo; then the ratio.
Each pair is two agents (the second with ``seed=1``); "playing" leaves out the statistics
and reports (a fixed cost of about half a second). Each pair first plays one untimed
deal many at once: the imports, compiled kernels and models are loaded once per process,
not once per tournament.

    python benchmarks/bench_tournament.py [--deals 100] [--batch-deals 5000] [--workers 1 2] [--no-ppo]

``--game basic`` measures Basic Rummy's pairs instead (2 players, its ``basic`` rules):
random vs heuristic and heuristic vs ``heuristic:danger_weight=0``, the heuristic's array
policy (``rummy_env.agents.basic.heuristic_vector``) playing them many at once.

    python benchmarks/bench_tournament.py --game basic --deals 100 --batch-deals 2000

``--game romme`` measures Rommé's random vs heuristic (2 players), the heuristic's array
policy (``rummy_env.agents.romme.heuristic_vector``) playing them many at once.

    python benchmarks/bench_tournament.py --game romme --deals 20 --batch-deals 200
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env.eval.config import TournamentConfig  # noqa: E402
from rummy_env.eval.tournament import run  # noqa: E402

PAIRS = [("random", "random:seed=1"), ("simple", "simple:seed=1"),
         ("heuristic:knock=turn", "heuristic:knock=turn,seed=1"), ("heuristic", "heuristic:seed=1"), ("ppo", "ppo:seed=1")]
BASIC_PAIRS = [("random", "heuristic"), ("heuristic", "heuristic:danger_weight=0")]  # --game basic
GAME_PAIRS = {"basic": BASIC_PAIRS, "romme": [("random", "heuristic")]}  # --game basic, --game romme


def measure(pair: tuple[str, str], deals: int, workers: int, batch: str, game: str = "gin"
            ) -> tuple[float, float, int, float]:
    """(hands/s end to end, hands/s playing, hands, seconds) of one tournament of the pair."""
    with tempfile.TemporaryDirectory() as out:
        cfg = TournamentConfig(agents=list(pair), deals=deals, workers=workers, out=out, batch=batch, game=game)
        start = time.perf_counter()
        summary = run(cfg, progress=False)
        seconds = time.perf_counter() - start
    if batch == "auto" and summary["batched_this_run"] != summary["played_this_run"]:
        raise RuntimeError(f"{pair} was not played on the batched path")
    hands = summary["games"]  # single hands: a game is a hand
    return hands / seconds, hands / summary["seconds_this_run"], hands, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=100, help="deals (x2 hands) per pair, one game at a time")
    ap.add_argument("--batch-deals", type=int, default=5000,
                    help="deals (x2 hands) per pair, many at once (10,000 hands: the comparison the issue names)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1], help="local worker counts to measure")
    ap.add_argument("--no-ppo", action="store_true", help="leave out ppo vs ppo")
    ap.add_argument("--game", choices=("gin", *GAME_PAIRS), default="gin",
                    help="whose pairs (basic and romme: GAME_PAIRS)")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    if args.game in GAME_PAIRS:
        pairs = GAME_PAIRS[args.game]
    else:
        has_ppo = importlib.util.find_spec("torch") is not None and not args.no_ppo
        if not has_ppo:
            print("ppo vs ppo left out (" + ("--no-ppo" if args.no_ppo else "torch is not installed") + ")")
        pairs = PAIRS if has_ppo else PAIRS[:-1]
    with tempfile.TemporaryDirectory() as out:  # the imports and compilations, out of the first measurement
        run(TournamentConfig(agents=list(pairs[0]), deals=1, out=out, game=args.game), progress=False)
    for pair in pairs:
        measure(pair, 1, 1, "auto", args.game)  # the pair's own compiled kernels and model loading, untimed
        # Gin's pairs are an agent against itself (seed=1): named once
        label = f"{pair[0]} vs {pair[0] if args.game == 'gin' else pair[1]}"
        for workers in args.workers:
            one, _, hands_one, s_one = measure(pair, args.deals, workers, "off", args.game)
            many, playing, hands_many, s_many = measure(pair, args.batch_deals, workers, "auto", args.game)
            print(f"{label}, {workers} worker(s): one at a time {one:7,.0f} hands/s "
                  f"({hands_one:,} hands in {s_one:.1f} s); many at once {many:7,.0f} hands/s ({hands_many:,} hands "
                  f"in {s_many:.1f} s; playing {playing:,.0f} hands/s); {many / one:.1f}x", flush=True)


if __name__ == "__main__":
    main()
