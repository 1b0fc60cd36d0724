"""Where Rommé's legal mask spends its time, by kind of position, in the vector engine.

Why: the mask is most of a step of Rommé's vector engine (``rummy_env.romme.vector``), and
what it costs depends on the position: a draw asks at most whether the top discard may be
taken, a player who has not come out asks the meld solver whether the hand can still come
out after each card, one who has asks only whether each card can still be melded or laid
off. This prints, for each kind of position, its share of the positions of random play and
the mask's time a position, twice: with the solver's kept answers emptied first (every
question searched) and with every question asked just before (answers kept, in cache).
Play itself lies between the two: a step of random play meets about a third of a new
question a position. Then ``--steps`` steps of random play with the ``flat`` observation,
split into the mask, the observation and the rest (the move itself, the draw of the
actions, the call's overhead), each a game-step.

    python benchmarks/bench_romme_mask.py [--games 1024] [--players 4] [--snapshots 8] [--every 25] [--steps 400]

The positions: ``--games`` games of random play (``VectorRomme.random_actions``) dealt with
``--seed``, a snapshot of every game taken every ``--every`` steps after 100 steps of
warm-up, ``--snapshots`` of them; each kind's positions are copied into arrays of their own
and the engine's own ``legal_moves`` kernel timed over them (best of ``--repeats`` for the
answers kept). Needs numba (the compiled engine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env.romme.game import NUM_ACTIONS  # noqa: E402
from rummy_env.romme.vector import VectorRomme, compiled_engine  # noqa: E402

KINDS = ("draw", "play, not out, nothing pending", "play, not out, a meld pending", "play, out, nothing pending",
         "play, out, a meld pending")
FIELDS = ("st", "hands", "came_out", "pile", "codes")  # what the mask reads of the engine


def position_kinds(engine: VectorRomme) -> np.ndarray:
    """Each game's kind of position (an index into ``KINDS``)."""
    jit = engine._jit
    st = engine.st
    rows = np.arange(engine.num_envs)
    out = engine.came_out[rows, st[:, jit.CUR]] != 0
    pending = (st[:, jit.NATM] | st[:, jit.JOKM]) != 0
    return np.where(st[:, jit.PHASE] == jit._DRAW, 0, 1 + 2 * out + pending)


def time_mask(engine: VectorRomme, arrays: tuple, repeats: int) -> tuple[float, float]:
    """Seconds of the mask over the positions ``arrays`` (``FIELDS``): with the answers
    emptied first, and the best of ``repeats`` with every question asked just before."""
    flags, pen, scratch, answers = engine._kernel_rules()
    n = len(arrays[0])
    mask = np.empty((n, NUM_ACTIONS), np.int8)
    num_legal = np.empty(n, np.int64)
    ids = np.empty((n, 128), np.int64)
    take_meld = engine.rules.take_discard_before_out == "meld"
    times = []
    for r in range(1 + repeats):
        if r == 0:
            answers[:] = 0
        t = time.perf_counter()
        engine._jit.legal_moves(*arrays, take_meld, flags, pen, scratch, answers, mask, num_legal, ids)
        times.append(time.perf_counter() - t)
    return times[0], min(times[1:])


class _Timed:
    """The engine's compiled module (``VectorRomme._jit``) with kernels ``names`` timed:
    the seconds spent in each, in ``seconds``."""

    def __init__(self, jit, names: tuple[str, ...]):
        self.jit = jit
        self.seconds = dict.fromkeys(names, 0.0)
        for name in names:
            setattr(self, name, self._timed(name))

    def _timed(self, name: str):
        kernel = getattr(self.jit, name)

        def call(*args):
            start = time.perf_counter()
            got = kernel(*args)
            self.seconds[name] += time.perf_counter() - start
            return got
        return call

    def __getattr__(self, name: str):
        return getattr(self.jit, name)


def time_play(engine: VectorRomme, rng: np.random.Generator, steps: int) -> tuple[float, dict]:
    """Seconds of ``steps`` steps of random play, and the seconds of the mask
    (``legal_moves``) and of the observation (``observe_flat``) among them."""
    timed = _Timed(engine._jit, ("legal_moves", "observe_flat"))
    engine._jit = timed
    try:
        start = time.perf_counter()
        for _ in range(steps):
            engine.step(engine.random_actions(rng))
        return time.perf_counter() - start, timed.seconds
    finally:
        engine._jit = timed.jit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--snapshots", type=int, default=8)
    ap.add_argument("--every", type=int, default=25, help="steps between snapshots")
    ap.add_argument("--repeats", type=int, default=2, help="timings with the answers kept (the best is printed)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=400, help="steps of random play timed whole, after the snapshots")
    args = ap.parse_args()
    if compiled_engine() is None:
        sys.exit("the compiled Rommé engine is not in use (numba missing or RUMMY_ENV_NO_NUMBA=1): nothing to time")
    engine = VectorRomme(args.games, args.players)
    engine.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    snapshots = []
    for step in range(100 + args.every * args.snapshots):
        if step >= 100 and (step - 100) % args.every == 0:
            snapshots.append((position_kinds(engine), tuple(getattr(engine, f).copy() for f in FIELDS)))
        engine.step(engine.random_actions(rng))
    engine.action_mask()  # compiled and loaded before any timing
    time_mask(engine, snapshots[0][1], 1)
    total = args.games * len(snapshots)
    fresh, kept, count = np.zeros(len(KINDS)), np.zeros(len(KINDS)), np.zeros(len(KINDS), np.int64)
    for kinds, arrays in snapshots:
        for k in range(len(KINDS)):
            rows = np.flatnonzero(kinds == k)
            if rows.size:
                f, c = time_mask(engine, tuple(np.ascontiguousarray(a[rows]) for a in arrays), args.repeats)
                fresh[k] += f
                kept[k] += c
                count[k] += rows.size
    print(f"machine: {machine()}")
    print(f"Rommé's legal mask, {args.players} players: {total:,} positions of random play "
          f"({args.games:,} games, {len(snapshots)} snapshots every {args.every} steps after 100)")
    print(f"{'position':34s} {'share':>6s} {'µs, answers emptied':>20s} {'µs, answers kept':>17s}"
          f" {'µs a position of play (emptied; kept)':>39s}")
    for k, name in enumerate(KINDS):
        if count[k]:
            print(f"{name:34s} {count[k] / total:6.1%} {fresh[k] / count[k] * 1e6:20.2f} {kept[k] / count[k] * 1e6:17.2f}"
                  f" {fresh[k] / total * 1e6:30.2f}; {kept[k] / total * 1e6:.2f}")
    print(f"{'all':34s} {1:6.1%} {fresh.sum() / total * 1e6:20.2f} {kept.sum() / total * 1e6:17.2f}")
    seconds, parts = time_play(engine, rng, args.steps)
    per = 1e6 / (args.steps * args.games)
    mask, observation = parts["legal_moves"] * per, parts["observe_flat"] * per
    print(f"a step of random play, {args.steps} steps on from there, µs a game-step: all {seconds * per:.2f}, "
          f"the mask {mask:.2f}, the observation {observation:.2f}, the rest {seconds * per - mask - observation:.2f} "
          f"({args.steps * args.games / seconds:,.0f} steps/s)")


if __name__ == "__main__":
    main()
