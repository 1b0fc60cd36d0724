"""How good are the ``mcts`` agent's departures from the heuristic? A low-noise diagnosis.

A head-to-head match against ``heuristic`` needs thousands of hands to show an edge of a
point a hand, because a single changed move changes the rest of the hand. This script
measures the search's decisions one by one instead. ``mcts`` plays hands against
``heuristic``; at every searched decision where some candidate looked better than the
heuristic's own move, each candidate is scored by an *oracle*: ``--oracle`` playouts
from the true position (the opponent's real hand; only the stock order, which neither
player knows, is reshuffled), by the heuristic on both seats, the same randomness for
every candidate. The search's own estimates (mean and standard error of each
candidate minus the heuristic's move) are kept, so every ``confidence`` threshold can be
scored from one run: for each, the oracle gain of the moves it would have played
instead of the heuristic's, per hand, with a 95% interval over hands.

This reads the true hidden cards, which is fine for a diagnosis (the agent itself never
sees them) but makes the figures an estimate of the gain *if the rest of the hand were
played by the heuristic*; the head-to-head (``bench_agents.py``) is the real test.

    python benchmarks/bench_search.py --hands 60 --oracle 200 --workers 2
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

CONFIDENCES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)


def play(job: tuple[int, int, int, str]) -> list[dict]:
    """Hands ``first .. first+count-1`` (mcts on seat h % 2); one record per scored decision."""
    first, count, oracle, options = job
    import agents
    from agents import mcts as M
    from agents.registry import parse_spec
    from rummy_env import gin_rummy_v0

    seen: dict = {}

    class Recording(M.MCTSAgent):
        def _search(self, infoset, rules, moves):
            seen.clear()
            seen["moves"] = list(moves)
            return super()._search(infoset, rules, moves)

    paired = M._paired

    def recorded(values):  # the search's last estimates of a decision
        mean, se = paired(values)
        seen.update(mean=mean.tolist(), se=se.tolist(), worlds=len(values))
        return mean, se

    M._paired = recorded
    records = []
    for hand in range(first, first + count):
        _, options_dict = parse_spec("mcts:" + options)
        me = hand % 2
        search = Recording(seed=hand, **options_dict)
        other = agents.make("heuristic", seed=hand + 7)
        rng = np.random.default_rng(hand + 99)
        env = gin_rummy_v0.raw_env(rules="classic")
        env.reset(seed=hand, options={"dealer": 1})
        for name in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if env.possible_agents.index(name) != me:
                env.step(other.act(obs, info))
                continue
            truth = env.game.clone()
            seen.clear()
            action = search.act(obs, info)
            if "mean" in seen and "moves" in seen and seen["worlds"] >= M.MIN_WORLDS and max(seen["mean"][1:]) > 0:
                moves = seen["moves"]
                values = np.zeros((oracle, len(moves)))
                for k in range(oracle):
                    world = truth.clone()
                    rng.shuffle(world.stock)
                    seed = int(rng.integers(1 << 60))
                    for j, move in enumerate(moves):
                        values[k, j] = search._value(world, move, seed, me)
                gain = (values - values[:, :1]).mean(axis=0)
                records.append({"hand": hand, "mean": seen["mean"], "se": seen["se"], "oracle": gain.tolist()})
            env.step(action)
    return records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=60)
    ap.add_argument("--oracle", type=int, default=200, help="oracle playouts per candidate move")
    ap.add_argument("--options", default="", help="mcts options, e.g. simulations=100,candidates=2")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=1000, help="the first hand's seed")
    ap.add_argument("--out", help="write every scored decision here (JSON)")
    args = ap.parse_args()
    if args.hands < 2 or args.oracle < 2:
        ap.error("--hands and --oracle must be at least 2")
    import agents

    agents.make("mcts:" + args.options if args.options else "mcts")  # a bad option fails here, before any work
    start = time.perf_counter()
    per = math.ceil(args.hands / args.workers)
    jobs = [(args.seed + i, min(per, args.seed + args.hands - (args.seed + i)), args.oracle, args.options)
            for i in range(0, args.hands, per)]
    with get_context("spawn").Pool(args.workers) as pool:
        records = [r for part in pool.map(play, jobs) for r in part]
    if args.out:
        Path(args.out).write_text(json.dumps(records))
    print(f"machine: {machine()}")
    print(f"mcts:{args.options or '(defaults)'} vs heuristic, classic, {args.hands} hands, {len(records)} decisions "
          f"scored by {args.oracle} oracle playouts per move  [{time.perf_counter() - start:.0f} s]")
    for c in CONFIDENCES:
        per_hand = np.zeros(args.hands)
        moves = 0
        for r in records:
            mean, se = r["mean"], r["se"]
            best = max(range(1, len(mean)), key=lambda i: mean[i])
            if mean[best] > 0 and mean[best] > c * se[best]:
                per_hand[r["hand"] - args.seed] += r["oracle"][best]
                moves += 1
        ci = 1.96 * per_hand.std(ddof=1) / math.sqrt(args.hands)
        print(f"  confidence {c:3.1f}: {moves:4d} moves other than the heuristic's, oracle gain "
              f"{per_hand.mean():+.2f} +- {ci:.2f} points per hand")


if __name__ == "__main__":
    main()
