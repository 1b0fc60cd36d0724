"""Vector-engine throughput: steps/s of random legal play by batch size, vs OpenSpiel.

Each step is one decision in every game of the batch: the engine applies it, deals
finished games again, and returns the next player's observation (``flat``) and action
mask for every game. The random policy picks uniformly among legal actions (argmax of
random keys over the mask), and its cost is included, as it is in OpenSpiel's loop
(``benchmarks/peers/opsp_env.py``: one C++ state driven from Python with its
observation tensor), which runs in the same run under the peer virtualenv.

    python benchmarks/bench_vector.py [--seconds 3] [--sizes 1,8,64,512,1024,4096,8192]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, peer_python, run_peer  # noqa: E402

from rummy_env.vector import VectorGinRummy  # noqa: E402


def rate(num_envs: int, seconds: float) -> float:
    env = VectorGinRummy(num_envs, seed=0)
    res = env.reset()
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        keys = rng.random(res.action_mask.shape, dtype=np.float32) * res.action_mask
        res = env.step(keys.argmax(axis=1))
        steps += num_envs
    return steps / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per batch size")
    ap.add_argument("--sizes", default="1,8,64,512,1024,4096,8192")
    ap.add_argument("--peer-python", help="python of the peer venv (default .peers/venv/bin/python)")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    python = peer_python(args.peer_python)
    peer = run_peer(python, "opsp_env.py", "--seconds", str(args.seconds * 2)) if python else None
    base = peer["steps_per_s"] if peer else None
    if base:
        print(f"OpenSpiel gin_rummy from Python + observation_tensor: {base:,.0f} steps/s")
    else:
        print("OpenSpiel: not measured (run `bash benchmarks/setup_peers.sh` first)")
    for size in (int(s) for s in args.sizes.split(",")):
        r = rate(size, args.seconds)
        ratio = f"   {r / base:6.1f}x OpenSpiel" if base else ""
        print(f"batch {size:5d}: {r:>12,.0f} steps/s{ratio}")


if __name__ == "__main__":
    main()
