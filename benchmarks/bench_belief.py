"""How close are the search's sampled worlds to the truth? Uniform worlds vs the opponent model.

``heuristic:knock=turn`` plays itself (the games the model's constants were fitted on;
the same rule as the search's rollouts); at player_0's decisions (once player_1 has discarded),
``--worlds`` worlds are sampled from player_0's information set, uniformly and by the
opponent model (``rummy_env.agents.gin.belief``), and compared with player_1's real hand:

- deadwood bias: mean over worlds of the opponent's deadwood, minus its true deadwood
  (a search over worlds biased upwards thinks the opponent is far from knocking);
- deadwood error: the absolute value of that difference, averaged over decisions;
- overlap: how many of the opponent's unknown cards a world gets right, relative to
  what a uniform world gets on average (1.0 = no better than chance);
- knock-ready: the share of worlds where the opponent could knock now, and the true share.

Figures are per stage of the hand (cards the opponent has discarded) and overall.

    python benchmarks/bench_belief.py --hands 60 --worlds 30
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env import agents  # noqa: E402
from rummy_env.agents.gin import belief  # noqa: E402
from rummy_env.agents.arena import decisions  # noqa: E402
from rummy_env import gin_rummy_v0  # noqa: E402
from rummy_env.core import melds

STAGES = ((1, 3), (4, 6), (7, 99))


def measure(hands: int, worlds: int, rules: str, seed: int) -> tuple[dict[str, list[tuple]], dict[str, float]]:
    """Per kind of world, one row per decision (stage, deadwood bias, overlap, knock-ready
    share, truly knock-ready); and milliseconds a world per kind."""
    rows: dict[str, list[tuple]] = {"uniform": [], "model": []}
    seconds = {"uniform": 0.0, "model": 0.0}
    rng = np.random.default_rng(seed)
    for hand in range(seed, seed + hands):
        env = gin_rummy_v0.raw_env(rules=rules)
        env.reset(seed=hand)
        players = [agents.make("heuristic:knock=turn", seed=hand), agents.make("heuristic:knock=turn", seed=hand + 1)]
        for seat, obs, info in decisions(env):
            infoset = info["information_set"]
            stage = belief.opponent_discards(infoset) if seat == 0 else 0
            need = infoset.opponent_hand_size - infoset.opponent_known.bit_count()
            if stage > 0 and need > 0:
                game = env.game
                opts = {"aces_high": game.rules.aces_high, "five_under_ten": game.rules.five_under_ten}
                truth = game.hands[1]
                hidden = truth & ~infoset.opponent_known
                chance = need * need / infoset.unseen.bit_count()
                true_dead = int(melds.min_deadwood(truth, **opts))
                for kind in rows:
                    start = time.perf_counter()
                    sample = belief.sample_worlds(infoset, game.rules, rng, worlds, weighted=kind == "model")
                    seconds[kind] += time.perf_counter() - start
                    hands_ = np.array([w.hands[1] for w in sample], dtype=np.uint64)
                    dead = melds.min_deadwood(hands_, **opts).astype(float)
                    overlap = np.mean([(int(h) & hidden).bit_count() for h in hands_]) / chance
                    rows[kind].append((stage, dead.mean() - true_dead, overlap, (dead <= infoset.knock_limit).mean(),
                                       float(true_dead <= infoset.knock_limit)))
            env.step(players[seat].act(obs, info))
    return rows, {kind: 1000 * seconds[kind] / max(1, len(rows[kind])) / worlds for kind in rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=30, help="worlds sampled per decision and kind")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.hands < 1 or args.worlds < 1:
        ap.error("--hands and --worlds must be at least 1")
    rows, ms = measure(args.hands, args.worlds, args.rules, args.seed)
    print(f"machine: {machine()}")
    print(f"heuristic vs heuristic, {args.rules}, {args.hands} hands, {args.worlds} worlds per decision and kind")
    for kind, data in rows.items():
        a = np.array(data, dtype=float)
        print(f"  {kind:8s} ({ms[kind]:.2f} ms a world)")
        for label, (lo, hi) in [("all", (1, 99)), *((f"{lo}-{hi}" if hi < 99 else f"{lo}+", (lo, hi)) for lo, hi in STAGES)]:
            b = a[(a[:, 0] >= lo) & (a[:, 0] <= hi)]
            if len(b):
                print(f"    opponent discards {label:4s} ({len(b):4d} decisions): deadwood bias {b[:, 1].mean():+6.2f}, "
                      f"error {np.abs(b[:, 1]).mean():5.2f}, overlap x{b[:, 2].mean():.3f}, "
                      f"knock-ready {100 * b[:, 3].mean():4.1f}% (true {100 * b[:, 4].mean():4.1f}%)")


if __name__ == "__main__":
    main()
