"""Training throughput of every game through the one trainer: env steps/s of the rollouts
alone and of whole updates (rollouts and the PPO learner), each game at its own defaults.

An env step is one move of any seat in one hand (what the vector engine counts for Gin
Rummy; the in-process source counts every move it plays, single legal moves included).
Each game trains from its own defaults (``rummy_env/train/data/GAME.yaml``) without the
warm start, evaluations or checkpoints; the opponent pool starts full (``pool_size``
snapshots, as after the first ``pool_size x snapshot_every`` updates of a run) and the
first update (warm-up) is not timed. Each rate is given per second of wall time and per
second of this process's CPU time (what other jobs on a shared machine change least).

    python benchmarks/bench_train_games.py [--games gin basic romme] [--updates 3] [--set FIELD=VALUE ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

import torch  # noqa: E402

from rummy_env.train.config import load_config  # noqa: E402
from rummy_env.train.ppo import Trainer  # noqa: E402


def rates(game: str, updates: int, extra: dict[str, str]) -> dict[str, float]:
    """Env steps, seconds (wall and CPU) in the rollouts and in whole updates over ``updates`` timed updates."""
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(None, {"game": game, **extra, "total_updates": updates + 1, "eval_every": 0,
                                    "imitation_samples": 0, "checkpoint_every": 10**6, "progress": False,
                                    "runs_dir": tmp})
        torch.set_num_threads(config.torch_threads)
        trainer = Trainer(config, Path(tmp) / "bench")
        trainer._open_writer(None)
        for _ in range(config.pool_size):
            trainer._snapshot()
        collect = trainer.rollouts.collect
        seen = {"rollout": 0.0, "rollout_cpu": 0.0, "steps": 0}

        def timed_collect():
            start, cpu = time.perf_counter(), time.process_time()
            batch = collect()
            seen["rollout"] += time.perf_counter() - start
            seen["rollout_cpu"] += time.process_time() - cpu
            seen["steps"] += int(batch["steps"])
            return batch

        trainer.rollouts.collect = timed_collect
        marks = []
        trainer.train(on_update=lambda t: marks.append((time.perf_counter(), time.process_time(), dict(seen))))
        trainer.close()
    (t0, c0, s0), (t1, c1, s1) = marks[0], marks[-1]
    steps = s1["steps"] - s0["steps"]
    return {"steps": steps, "rollout": s1["rollout"] - s0["rollout"], "total": t1 - t0,
            "rollout_cpu": s1["rollout_cpu"] - s0["rollout_cpu"], "total_cpu": c1 - c0,
            "updates": len(marks) - 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["gin", "basic", "romme"])
    parser.add_argument("--updates", type=int, default=3, help="timed updates per game (default 3)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override a config field")
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.set)
    print(f"machine: {machine()}, torch {torch.__version__}; {args.updates} timed updates per game, "
          "each game's own defaults, no warm start, evaluations or checkpoints")
    for game in args.games:
        r = rates(game, args.updates, extra)
        print(f"  {game:6s} rollouts alone {r['steps'] / r['rollout']:>9,.0f} env steps/s "
              f"({r['steps'] / r['rollout_cpu']:,.0f} per CPU second)")
        print(f"  {game:6s} with the learner {r['steps'] / r['total']:>9,.0f} env steps/s   "
              f"({r['steps']:,} steps in {r['total']:.1f} s, rollouts {r['rollout']:.1f} s; CPU: "
              f"{r['total_cpu']:.1f} s, rollouts {r['rollout_cpu']:.1f} s, {r['updates'] / r['total_cpu']:.2f} updates "
              "per CPU second)")


if __name__ == "__main__":
    main()
