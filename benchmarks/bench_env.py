"""Env throughput: steps/s of random legal play, and the ratio to the peers in the same run.

The loop is the one every PettingZoo user writes (``agent_iter()`` / ``last()`` /
``step()``, a random legal action from the mask), on our ``gin_rummy_v0.env()`` and on
PettingZoo 1.24.3's ``gin_rummy_v4.env()`` (rlcard) with the same loop in the peer
virtualenv. Also: our ``raw_env()`` under PettingZoo's three classic-env wrappers (what
``env()`` replaces, same behaviour), ``raw_env()`` alone against the peer's, the pure
game (``GinRummyState``: legal actions + step, no observation), and OpenSpiel's
``gin_rummy`` driven from Python with its observation tensor. A step is one decision.

    python benchmarks/bench_env.py [--seconds 5] [--repeats 3] [--peer-python PATH]

It then splits one step of ``raw_env()`` into its parts, in microseconds: the game (legal
actions and the move), the information set, the observation, the mask, and the rest
(PettingZoo's bookkeeping: the iterator, ``last()``, rewards and infos, and the loop's own
random choice), each timed over the positions of the same random games.

Each figure is the best of ``--repeats`` interleaved rounds: on a shared machine the
speed drifts, and the best round is the one least disturbed, for ours and the peers alike.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import aec_rate, machine, peer_python, run_peer, state_rate  # noqa: E402

from pettingzoo.utils import wrappers  # noqa: E402

from rummy_env import gin_rummy_v0  # noqa: E402
from rummy_env.gin.game import GinRummyState  # noqa: E402
from rummy_env.gin.interface import GIN  # noqa: E402


def positions(games: int = 200, seed: int = 0) -> list[GinRummyState]:
    """Every position (the player to move's turn) of ``games`` random hands, as clones."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        s = GinRummyState.new_hand(seed=seed + g, dealer=g % 2)
        while not s.is_over:
            out.append(s.clone())
            legal = s.legal_actions()
            s.step(legal[rng.integers(len(legal))])
    return out


def breakdown(raw_rate: float, game_rate_: float) -> dict[str, float]:
    """Microseconds a step of ``raw_env()`` spends in each part (see the module docstring)."""
    states = positions()
    encoder = GIN.encoding("flat")
    rules = states[0].rules
    infos = [s._information_set(s.current_player) for s in states]
    n = len(states)

    for s in states:
        s.legal_actions()  # the env has computed them (for the move) before it builds the mask

    def per_position(fn, items) -> float:
        start = time.perf_counter()
        for item in items:  # results dropped at once, as in the env's loop
            fn(item)
        return (time.perf_counter() - start) / n * 1e6

    parts = {
        "game (legal actions + move)": 1e6 / game_rate_,
        "information set": per_position(lambda s: s._information_set(s.current_player), states),
        "observation (flat)": per_position(lambda i: encoder.encode(i, rules, None), infos),
        "action mask": per_position(lambda s: s.legal_mask(), states),
    }
    parts["the rest (PettingZoo bookkeeping, the loop)"] = 1e6 / raw_rate - sum(parts.values())
    return parts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; each figure is the best of its rounds")
    ap.add_argument("--peer-python", help="python of the peer venv (default .peers/venv/bin/python)")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    python = peer_python(args.peer_python)
    secs = str(args.seconds)
    measures = {
        "env": lambda: aec_rate(gin_rummy_v0.env(), args.seconds),
        "stack": lambda: aec_rate(wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
            wrappers.TerminateIllegalWrapper(gin_rummy_v0.raw_env(), illegal_reward=-1))), args.seconds),
        "raw": lambda: aec_rate(gin_rummy_v0.raw_env(), args.seconds),
        "game": lambda: state_rate(lambda g: GinRummyState.new_hand(seed=g, dealer=g % 2), args.seconds),
    }
    if python is not None:
        measures.update({
            "pz": lambda: (run_peer(python, "pz_gin_rummy_v4.py", "--seconds", secs) or {}).get("steps_per_s", 0),
            "pz_raw": lambda: (run_peer(python, "pz_gin_rummy_v4.py", "--seconds", secs, "--raw") or {}).get("steps_per_s", 0),
            "openspiel": lambda: (run_peer(python, "opsp_env.py", "--seconds", secs) or {}).get("steps_per_s", 0),
        })
    best = dict.fromkeys(measures, 0.0)
    for _ in range(args.repeats):  # interleaved rounds, so a slow spell hits every figure alike
        for name, measure in measures.items():
            best[name] = max(best[name], measure())
    print(f"ours   gin_rummy_v0.env()  (AEC loop)                    {best['env']:>10,.0f} steps/s")
    print(f"ours   raw_env() in PettingZoo's 3 classic wrappers      {best['stack']:>10,.0f} steps/s")
    print(f"ours   gin_rummy_v0.raw_env() (AEC loop, no wrappers)    {best['raw']:>10,.0f} steps/s")
    print(f"ours   GinRummyState (pure game, no observation)         {best['game']:>10,.0f} steps/s")
    total = 1e6 / best["raw"]
    print(f"one step of raw_env(): {total:.1f} us")
    for name, us in breakdown(best["raw"], best["game"]).items():
        print(f"  {name:<45} {us:5.1f} us  ({us / total:4.0%})")
    if python is None:
        print("peers: not measured (run `bash benchmarks/setup_peers.sh` first)")
        return
    if best["openspiel"]:
        print(f"OpenSpiel's whole step from Python: {1e6 / best['openspiel']:.1f} us")
    for key, label, ours in (("pz", "pettingzoo 1.24.3 gin_rummy_v4.env() (same loop) ", best["env"]),
                             ("pz_raw", "pettingzoo 1.24.3 gin_rummy_v4.raw_env()         ", best["raw"]),
                             ("openspiel", "OpenSpiel gin_rummy + observation_tensor        ", best["env"]),
                             ("openspiel", "OpenSpiel, against our raw_env()                ", best["raw"])):
        if best[key]:
            print(f"peer   {label} {best[key]:>10,.0f} steps/s   -> ours/peer = {ours / best[key]:.2f}x")


if __name__ == "__main__":
    main()
