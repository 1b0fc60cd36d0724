"""End-to-end training throughput: env steps/s of masked PPO on the vector engine,
including the network's moves, the opponents' moves and the PPO updates.

An env step is one move of either seat in one game (what the vector engine counts).
Evaluations and checkpoints are switched off; their cost is not a training cost of
each step. The first update (warm-up) is not timed. The opponent pool starts full
(``pool_size`` snapshots), as it is after the first ``pool_size x snapshot_every`` updates
of a run (1,000 with ``configs/ppo.yaml``). Several opponent mixes are
measured, because the opponents cost differently: the network opponents need forward
passes, the scripted ones (``simple``, ``heuristic``) array operations, and self-play
makes both seats training data (twice the update work per step).

    python benchmarks/bench_train.py [--config configs/ppo.yaml] [--updates 20] [--mix NAME ...] [--repeats 3]
                                     [--set advice=false ...] [--backend ray] [--rollout-workers N]

With ``--repeats N`` each mix is measured N times and the run with the median rate (the
lower of the two middle runs for even N) is printed, with the range: a shared VM's speed
drifts by 10-20% from minute to minute. ``--set FIELD=VALUE`` overrides config fields.
``--backend ray --rollout-workers N`` plays the rollouts on N Ray actors (a Ray instance
on this machine, started once before the runs, or the cluster at ``--set ray_address=...``);
"rollouts" is then the driver's wait for the slowest actor, weights and batches included.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine  # noqa: E402

import torch  # noqa: E402

from rummy_env.train.config import load_config  # noqa: E402
from rummy_env.train.ppo import Trainer  # noqa: E402

MIXES = {
    "config": None,  # the config file's own opponent weights
    "simple+pool": {"simple": 0.8, "pool": 0.2},
    "self-play": {"self": 1.0},
}


def measure(config_path: str, updates: int, opponents, extra: dict[str, str]) -> dict[str, float]:
    overrides = {**extra, "total_updates": updates + 1, "eval_every": 0, "checkpoint_every": 10**6, "progress": False}
    if opponents is not None:
        overrides["opponents"] = opponents
    with tempfile.TemporaryDirectory() as tmp:
        overrides["runs_dir"] = tmp
        config = load_config(config_path, overrides)
        trainer = Trainer(config, Path(tmp) / "bench")
        trainer._open_writer(None)
        # a full opponent pool, as after the first pool_size x snapshot_every updates of a run
        for _ in range(config.pool_size):
            trainer._snapshot()
        trainer.rollouts.reassign()
        phases = {"rollout": 0.0, "update": 0.0}
        rollout, learn = trainer._rollout, trainer._learn

        def timed_rollout():
            t = time.perf_counter()
            out = rollout()
            phases["rollout"] += time.perf_counter() - t
            return out

        def timed_learn(batch):
            t = time.perf_counter()
            out = learn(batch)
            phases["update"] += time.perf_counter() - t
            return out

        trainer._rollout, trainer._learn = timed_rollout, timed_learn
        marks = []
        trainer.train(on_update=lambda tr: marks.append((time.perf_counter(), dict(phases))))
        trainer.close()
    (t0, p0), (t1, p1) = marks[0], marks[-1]
    steps = config.steps_per_update * (len(marks) - 1)
    return {"steps_per_s": steps / (t1 - t0), "rollout_s": p1["rollout"] - p0["rollout"],
            "update_s": p1["update"] - p0["update"], "seconds": t1 - t0, "steps": steps}


def matmul_gflops() -> float:
    """This VM's speed now: float32 GFLOPS of the first layer's product on a minibatch
    (1024 x 692 by 692 x 256, torch's threads), the best of 5 rounds. Printed before and
    after the runs, because a shared VM's speed drifts between hours."""
    a, w = torch.rand(1024, 692), torch.rand(692, 256)
    for _ in range(10):
        a @ w
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(50):
            a @ w
        best = min(best, (time.perf_counter() - t) / 50)
    return 2 * 1024 * 692 * 256 / best / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "ppo.yaml"))
    parser.add_argument("--updates", type=int, default=20, help="timed updates per mix (default 20)")
    parser.add_argument("--mix", action="append", choices=sorted(MIXES), help="opponent mixes to measure (default all)")
    parser.add_argument("--repeats", type=int, default=1, help="measure each mix this many times; print the median run")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override a config field")
    parser.add_argument("--backend", choices=("local", "ray"), help="where the rollouts run (default: the config's)")
    parser.add_argument("--rollout-workers", type=int, help="rollout workers (default: the config's)")
    args = parser.parse_args()
    if args.updates < 1 or args.repeats < 1:
        parser.error("--updates and --repeats must be at least 1")
    extra = {}
    for item in args.set:
        field, sep, value = item.partition("=")
        if not sep or not field:
            parser.error(f"--set takes FIELD=VALUE, got {item!r}")
        extra[field] = value
    if args.backend:
        extra["backend"] = args.backend
    if args.rollout_workers:
        extra["rollout_workers"] = str(args.rollout_workers)
    config = load_config(args.config, extra)
    torch.set_num_threads(config.torch_threads)
    if config.backend == "ray":  # once for all runs: the trainers use it and leave it running
        import ray

        ray.init(address=config.ray_address, include_dashboard=False, log_to_driver=False)
    print(f"machine: {machine()}, torch {torch.__version__} ({torch.get_num_threads()} threads); "
          f"matrix products now {matmul_gflops():.0f} GFLOPS")
    print(f"config: {args.config}{''.join(f' --set {k}={v}' for k, v in extra.items())}; "
          f"rollouts: {config.backend}, {config.rollout_workers} worker(s); "
          f"{args.updates} timed updates per mix (evaluations and checkpoints off)")
    for name in args.mix or list(MIXES):
        runs = sorted((measure(args.config, args.updates, MIXES[name], extra) for _ in range(args.repeats)),
                      key=lambda run: run["steps_per_s"])
        r = runs[(len(runs) - 1) // 2]
        spread = f", range {runs[0]['steps_per_s']:,.0f}-{runs[-1]['steps_per_s']:,.0f} over {len(runs)} runs" if len(runs) > 1 else ""
        print(f"  opponents {name:12s} {r['steps_per_s']:>9,.0f} env steps/s   "
              f"({r['steps']:,} steps in {r['seconds']:.1f} s: rollouts {r['rollout_s']:.1f} s, updates {r['update_s']:.1f} s{spread})")
    print(f"matrix products at the end: {matmul_gflops():.0f} GFLOPS")


if __name__ == "__main__":
    main()
