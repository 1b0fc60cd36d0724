"""Self-play PPO for Gin Rummy with RLlib, on a Ray cluster or on this machine.

    pip install -e ".[rllib]"           # RLlib, pinned to the Ray version it was tested with
    python examples/rllib_selfplay.py --policies shared --iterations 50
    python examples/rllib_selfplay.py --policies per-seat --env-runners 8 --address auto --iterations 500

Both seats of every hand are RLlib agents: ``shared`` trains one policy on both seats'
moves, ``per-seat`` one policy for ``player_0`` and another for ``player_1`` (each learns
against the other as it is now). The model is RLlib's default PPO
network with illegal moves masked out (``rummy_env.train.rllib``). Each iteration prints
the env steps so far, the hands finished and the policies' losses; at the end the
algorithm is saved to ``--out`` (``Algorithm.from_checkpoint`` loads it back).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policies", choices=("shared", "per-seat"), default="shared")
    parser.add_argument("--iterations", type=int, default=20, help="training iterations (default 20)")
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration (default 4000)")
    parser.add_argument("--env-runners", type=int, default=0,
                        help="RLlib env runner actors (default 0: sample in the driver)")
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="layer widths (default 256 256)")
    parser.add_argument("--address", help="Ray cluster to join (e.g. auto or ray://head:10001); default: start Ray here")
    parser.add_argument("--out", default="runs/rllib_selfplay", help="where the trained algorithm is saved")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.iterations < 1 or args.batch < 1 or args.env_runners < 0:
        parser.error("--iterations and --batch must be at least 1, --env-runners at least 0")

    import ray

    from rummy_env.train.rllib import selfplay_config

    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    config = (selfplay_config(args.policies, hidden=tuple(args.hidden), num_env_runners=args.env_runners)
              .training(train_batch_size_per_learner=args.batch, minibatch_size=min(512, args.batch), num_epochs=3)
              .debugging(seed=args.seed))
    algo = config.build_algo()
    try:
        for i in range(1, args.iterations + 1):
            result = algo.train()
            runners, learners = result["env_runners"], result["learners"]
            losses = ", ".join(f"{pid} policy loss {v['policy_loss']:+.3f}" for pid, v in learners.items()
                               if pid != "__all_modules__")
            print(f"iteration {i}: {runners['num_env_steps_sampled_lifetime']:,.0f} env steps, "
                  f"{runners['num_episodes_lifetime']:,.0f} hands; {losses}")
        saved = algo.save_to_path(str(Path(args.out).resolve()))
        print(f"saved: {saved}")
    finally:
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
