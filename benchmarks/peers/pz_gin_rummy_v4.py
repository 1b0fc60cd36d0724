"""Peer benchmark: PettingZoo 1.24.3 ``gin_rummy_v4`` (AEC API over rlcard 1.0.5).

Why: the env-throughput figure most Python RL users would otherwise get for gin
rummy.  The standard AEC loop: ``env.last()`` for each agent, a random legal
action from ``obs["action_mask"]`` (seeded numpy rng), ``env.step``; ``None`` for
agents that are done.  Only ``env.step`` calls with a real action count as
steps; games restart (``env.reset(seed)``) until ``--seconds`` or ``--steps``.
Run with ``.peers/venv/bin/python`` (see ``benchmarks/setup_peers.sh``).
"""
import argparse, json, time

import numpy as np
from pettingzoo.classic import gin_rummy_v4


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--steps", type=int, help="stop after N steps instead")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--raw", action="store_true", help="raw_env() without PettingZoo's wrappers")
    a = ap.parse_args()

    rng = np.random.default_rng(a.seed)
    env = gin_rummy_v4.raw_env() if a.raw else gin_rummy_v4.env()
    limit = a.steps if a.steps else float("inf")
    deadline = float("inf") if a.steps else a.seconds
    steps = games = 0
    t0 = time.perf_counter()
    while steps < limit and time.perf_counter() - t0 < deadline:
        env.reset(seed=a.seed + games)
        games += 1
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                steps += 1
            env.step(action)
            if steps >= limit or time.perf_counter() - t0 >= deadline:
                break
    dt = time.perf_counter() - t0
    print(json.dumps({"peer": "pettingzoo-1.24.3-gin_rummy_v4", "what": "raw_env_steps" if a.raw else "env_steps",
                      "steps": steps, "games": games, "seconds": round(dt, 3),
                      "steps_per_s": round(steps / dt)}))


if __name__ == "__main__":
    main()
