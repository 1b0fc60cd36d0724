"""How good are the ``mcts`` agent's departures from the heuristic? A low-noise diagnosis.

The heuristic here, as the search's guide and rollouts and as its opponent, is
``heuristic:knock=turn`` (the knock rule the search's array rollouts play).

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

``--peek`` measures something else: how much knowing the opponent's hand is worth to
the search. ``mcts`` plays ``heuristic`` over duplicate deals (each deal twice, seats
swapped) with every world holding the opponent's *true* hand (only the stock order is
reshuffled); the points per hand over what the honest search scores show how much a
better opponent model could gain at most.

    python benchmarks/bench_search.py --peek --hands 60 --workers 2
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
    from rummy_env import agents
    from rummy_env.agents.gin import mcts as M
    from rummy_env.agents.arena import decisions
    from rummy_env.agents.registry import parse_spec
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
        other = agents.make("heuristic:knock=turn", seed=hand + 7)
        rng = np.random.default_rng(hand + 99)
        env = gin_rummy_v0.raw_env(rules="classic")
        env.reset(seed=hand, options={"dealer": 1})
        for seat, obs, info in decisions(env):
            if seat != me:
                env.step(other.act(obs, info))
                continue
            truth = env.game.clone()
            seen.clear()
            action = search.act(obs, info)
            if "mean" in seen and "moves" in seen and seen["worlds"] >= M.MIN_WORLDS and max(seen["mean"][1:]) > 0:
                moves = seen["moves"]
                worlds = []
                for _ in range(oracle):
                    world = truth.clone()
                    rng.shuffle(world.stock)
                    worlds.append(world)
                values = search._values(worlds, moves, me)
                gain = (values - values[:, :1]).mean(axis=0)
                records.append({"hand": hand, "mean": seen["mean"], "se": seen["se"], "oracle": gain.tolist()})
            env.step(action)
    return records


def peek_deal(job: tuple[int, str]) -> tuple[float, float]:
    """(mcts's mean points, share of the 2 hands won) over one deal played both ways, its
    worlds holding the opponent's true hand."""
    seed, options = job
    from rummy_env import agents
    from rummy_env.agents.gin import mcts as M
    from rummy_env.agents.arena import decisions
    from rummy_env.agents.registry import parse_spec
    from rummy_env import gin_rummy_v0

    class Peeking(M.MCTSAgent):
        truth = None

        def _sample(self, infoset, rules, n):
            worlds = [self.truth.clone() for _ in range(n)]
            for world in worlds:
                self.rng.shuffle(world.stock)
            return worlds

    points, won = [], []
    for me in (0, 1):
        search = Peeking(seed=seed, **parse_spec("mcts:" + options)[1]) if options else Peeking(seed=seed)
        other = agents.make("heuristic:knock=turn", seed=seed + 1)
        env = gin_rummy_v0.raw_env(rules="classic")
        env.reset(seed=seed, options={"dealer": 1})
        for seat, obs, info in decisions(env):
            if seat == me:
                search.truth = env.game
                env.step(search.act(obs, info))
            else:
                env.step(other.act(obs, info))
        result = env.game.result
        points.append(result.rewards[me])
        won.append(1.0 if result.winner == me else 0.0 if result.winner == 1 - me else 0.5)
    return float(np.mean(points)), float(np.mean(won))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=60)
    ap.add_argument("--oracle", type=int, default=200, help="oracle playouts per candidate move")
    ap.add_argument("--options", default="", help="mcts options, e.g. simulations=100,candidates=2")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=1000, help="the first hand's seed")
    ap.add_argument("--out", help="write every scored decision here (JSON)")
    ap.add_argument("--peek", action="store_true", help="instead: mcts with the opponent's true hand vs heuristic:knock=turn")
    args = ap.parse_args()
    if args.hands < 2 or args.oracle < 2:
        ap.error("--hands and --oracle must be at least 2")
    if args.peek and args.hands < 4:
        ap.error("--peek needs --hands of at least 4 (2 deals, for an interval)")
    from rummy_env import agents

    agents.make("mcts:" + args.options if args.options else "mcts")  # a bad option fails here, before any work
    start = time.perf_counter()
    if args.peek:
        with get_context("spawn").Pool(args.workers) as pool:
            rows = np.array(pool.map(peek_deal, [(args.seed + i, args.options) for i in range(args.hands // 2)]))
        (p, w), n = rows.mean(axis=0), len(rows)
        p_ci, w_ci = 1.96 * rows.std(axis=0, ddof=1) / math.sqrt(n)
        print(f"machine: {machine()}")
        print(f"mcts:{args.options or '(defaults)'} given the opponent's true hand vs heuristic:knock=turn, classic, {2 * n} hands: "
              f"wins {100 * w:.1f}% +- {100 * w_ci:.1f}, points per hand {p:+.2f} +- {p_ci:.2f}  "
              f"[{time.perf_counter() - start:.0f} s]")
        return
    per = math.ceil(args.hands / args.workers)
    jobs = [(args.seed + i, min(per, args.seed + args.hands - (args.seed + i)), args.oracle, args.options)
            for i in range(0, args.hands, per)]
    with get_context("spawn").Pool(args.workers) as pool:
        records = [r for part in pool.map(play, jobs) for r in part]
    if args.out:
        Path(args.out).write_text(json.dumps(records))
    print(f"machine: {machine()}")
    print(f"mcts:{args.options or '(defaults)'} vs heuristic:knock=turn, classic, {args.hands} hands, {len(records)} decisions "
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
