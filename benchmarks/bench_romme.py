"""Rommé throughput: steps/s of random legal play for 2, 4 and 6 players, and Gin's in the same run.

The loop is the one every PettingZoo user writes (``agent_iter()`` / ``last()`` /
``step()``, a uniformly random legal action from the mask), observation and mask built
every step: on ``romme_v0.raw_env()`` (the ratio to ``gin_rummy_v0.raw_env()`` measured in
the same rounds is printed beside it) and on ``romme_v0.env()``; and the pure game
(``RommeState``: legal actions + step, no observation). A step is one decision (a card put
into the pending meld is one, as is the commit). And the observation alone: ``encodes/s``
of the ``flat`` encoder over the information sets (of the player to move) met in a few
random hands. And reading a mask of those hands into its legal ids (``reads/s``): by
``np.flatnonzero`` of the plain int8 array, by the loop's ``np.flatnonzero`` of the mask as
the env hands it out (``rummy_env.core.masks.ActionMask``) and by ``agents.legal_actions``,
as agents read it.

    python benchmarks/bench_romme.py [--seconds 5] [--repeats 3] [--players 2,4,6] [--profile 4] [--split 4]
                                     [--cpu-time]

Each figure is the best of ``--repeats`` interleaved rounds (Gin's too): on a shared
machine the speed drifts, and the best round is the one least disturbed. ``--cpu-time``
times the play loops on this process's own CPU time instead (steps per CPU second), which
other jobs on the same cores do not change. ``--profile N`` then profiles
``romme_v0.raw_env(num_players=N)`` for ``--seconds`` (cProfile) and prints where the time
goes: the functions of most own time. ``--split N`` prints where a step of
``romme_v0.raw_env(num_players=N)`` goes, part by part, without a profiler's cost: the same
hands replayed with each part replaced by its recorded results (``step_split``).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Callable, Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import aec_rate, best_of_rounds, machine, state_rate  # noqa: E402

from rummy_env import gin_rummy_v0, romme_v0  # noqa: E402
from rummy_env.agents import legal_actions  # noqa: E402
from rummy_env.core.masks import env_mask  # noqa: E402
from rummy_env.romme import encoding  # noqa: E402
from rummy_env.romme.game import RommeState  # noqa: E402


def encode_rate(n: int, seconds: float, repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Encodes/s of the flat observation over the positions of 4 random hands (best round)."""
    rng = np.random.default_rng(0)
    infos = []
    for seed in range(4):
        s = RommeState.new_hand(n, seed=seed)
        while not s.is_over:
            infos.append(s.information_set(s.current_player))
            s.step(int(rng.choice(s.legal_actions())))
    rules = s.rules
    best = 0.0
    for _ in range(repeats):
        done, start = 0, clock()
        while clock() - start < seconds:
            for info in infos:
                encoding.encode(info, rules)
            done += len(infos)
        best = max(best, done / (clock() - start))
    return best


def mask_read_rates(n: int, seconds: float, repeats: int,
                    clock: Callable[[], float] = time.perf_counter) -> tuple[float, float, float]:
    """Masks read into legal ids a second over the masks of 4 random hands (best round): by
    ``np.flatnonzero`` of the plain int8 array, by ``np.flatnonzero`` of the mask as the env
    hands it out (``env_mask``: the benchmark loop's way) and by ``agents.legal_actions``
    (``rummy_env.core.masks.mask_ids``), as agents read them."""
    rng = np.random.default_rng(0)
    masks = []
    for seed in range(4):
        s = RommeState.new_hand(n, seed=seed)
        while not s.is_over:
            masks.append({"action_mask": env_mask(s.legal_mask())})
            s.step(int(rng.choice(s.legal_actions())))
    rates = []
    for read in (lambda obs: np.flatnonzero(np.asarray(obs["action_mask"])),
                 lambda obs: np.flatnonzero(obs["action_mask"]), legal_actions):
        best = 0.0
        for _ in range(repeats):
            done, start = 0, clock()
            while clock() - start < seconds:
                for obs in masks:
                    read(obs)
                done += len(masks)
            best = max(best, done / (clock() - start))
        rates.append(best)
    return rates[0], rates[1], rates[2]


def play_rates(sizes: list[int], seconds: float, repeats: int,
               clock: Callable[[], float] = time.perf_counter) -> dict[tuple[str, int], float]:
    """Best-of-rounds steps/s: ``("gin", 2)`` Gin's ``raw_env()``, then per table size ``n``
    ``("raw", n)`` Rommé's ``raw_env()``, ``("env", n)`` its ``env()``, ``("game", n)`` the
    pure game; every round measures each once, in this order, on ``clock``."""
    measures = {("gin", 2): lambda: aec_rate(gin_rummy_v0.raw_env(), seconds, clock=clock)}
    for n in sizes:
        measures[("raw", n)] = lambda n=n: aec_rate(romme_v0.raw_env(num_players=n), seconds, clock=clock)
        measures[("env", n)] = lambda n=n: aec_rate(romme_v0.env(num_players=n), seconds, clock=clock)
        measures[("game", n)] = lambda n=n: state_rate(lambda g: RommeState.new_hand(n, seed=g), seconds,
                                                       clock=clock)
    return best_of_rounds(measures, repeats)


def profile(n: int, seconds: float, top: int = 15) -> None:
    """cProfile of ``romme_v0.raw_env(num_players=n)``'s random play: the functions of most
    own time, and each one's share of the whole."""
    env = romme_v0.raw_env(num_players=n)
    aec_rate(env, 0.2)  # compiled kernels loaded and checked first
    profiler = cProfile.Profile()
    profiler.enable()
    aec_rate(env, seconds)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    print(f"\nprofile of romme_v0.raw_env(num_players={n}), {seconds:g} s (own time, share of the whole):")
    rows = sorted(stats.stats.items(), key=lambda item: -item[1][2])[:top]
    for (path, line, name), (_, calls, own, cumulative, _) in rows:
        where = f"{Path(path).name}:{line}({name})" if line else name
        print(f"  {100 * own / total:5.1f}%  own {own:6.3f} s  with callees {cumulative:6.3f} s  {calls:>9,} calls  "
              f"{where}")


def _play(env, hands: int, legal_of: Optional[Callable[[], np.ndarray]] = None,
          record: Optional[list] = None) -> tuple[float, int]:
    """The loop of ``aec_rate`` over ``hands`` fixed hands (seeds 0..), the legal actions
    found by ``np.flatnonzero`` of the mask or, with ``legal_of``, given by it; the ones
    found appended to ``record`` if given. Returns (CPU seconds, steps)."""
    rng = np.random.default_rng(0)
    steps, start = 0, time.process_time()
    for hand in range(hands):
        env.reset(seed=hand)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = legal_of() if legal_of is not None else np.flatnonzero(obs["action_mask"])
            if record is not None:
                record.append(legal)
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return time.process_time() - start, steps


def step_split(n: int, hands: int = 50, rounds: int = 5) -> dict[str, float]:
    """Where a step of ``romme_v0.raw_env(num_players=n)`` goes, in microseconds of CPU time
    (the best of ``rounds``): ``hands`` hands of the benchmark's loop are played once with
    every part's results recorded, then replayed with the observation replaced by the one
    recorded, then also the information set, then also the legal mask (its actions too),
    then also the loop's ``np.flatnonzero`` of the mask: each part is what its replacement
    saved (what it costs inside the loop, caches and all). The move (``RommeState.step``)
    is timed by a wrapper whose own cost is taken off; the rest is PettingZoo's bookkeeping
    and the loop's own work."""
    env = romme_v0.raw_env(num_players=n)
    encoder, hand = env._encoder, RommeState  # (what is replaced: the env's encoder's and the hands' methods)
    real = {"observation": encoder.encode, "information set": hand._information_set, "legal mask": hand.legal_mask}
    recorded: dict[str, list] = {name: [] for name in (*real, "loop's flatnonzero")}
    at = dict.fromkeys(recorded, 0)

    def recording(name: str, fn: Callable) -> Callable:
        def call(*args):
            out = fn(*args)
            recorded[name].append((out.copy(), list(args[0]._legal)) if name == "legal mask" else out)
            return out
        return call

    def replaying(name: str) -> Callable:
        def call(*args):
            got = recorded[name][at[name]]
            at[name] += 1
            if name == "legal mask":
                args[0]._legal = got[1]
                return got[0]
            return got
        return call

    def install(replaced: tuple[str, ...], make: Callable[[str], Callable]) -> None:
        encoder.encode = make("observation") if "observation" in replaced else real["observation"]
        hand._information_set = make("information set") if "information set" in replaced else real["information set"]
        hand.legal_mask = make("legal mask") if "legal mask" in replaced else real["legal mask"]

    def timed_call(fn: Callable, self, action) -> None:
        start = time.perf_counter_ns()
        fn(self, action)
        spent[0] += time.perf_counter_ns() - start
        spent[1] += 1

    order = tuple(recorded)
    best = dict.fromkeys(range(len(order) + 1), float("inf"))
    move = float("inf")
    spent = [0, 0]
    step, nothing = hand.step, (lambda self, action: None)
    try:
        _play(env, 2)  # compiled kernels loaded and checked first
        install(tuple(real), lambda name: recording(name, real[name]))
        _play(env, hands, record=recorded["loop's flatnonzero"])
        for _ in range(rounds):
            for k in range(len(order) + 1):
                for name in at:
                    at[name] = 0
                install(order[:k], replaying)
                seconds, steps = _play(env, hands, replaying("loop's flatnonzero") if k == len(order) else None)
                best[k] = min(best[k], 1e6 * seconds / steps)
            install((), replaying)
            spent[:] = [0, 0]
            hand.step = lambda self, action: timed_call(step, self, action)
            _play(env, hands)
            timed = spent[0] / spent[1]
            spent[:] = [0, 0]
            for _ in range(100_000):
                timed_call(nothing, None, None)
            move = min(move, (timed - spent[0] / spent[1]) / 1000)
            hand.step = step
    finally:
        hand.step = step
        install((), replaying)
        del encoder.encode  # (the instance's attribute: the class's method again)
    split = {"whole step": best[0]}
    split.update({name: best[k] - best[k + 1] for k, name in enumerate(order)})
    split["move (RommeState.step)"] = move
    split["rest: PettingZoo's bookkeeping, the loop"] = best[len(order)] - move
    return split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--repeats", type=int, default=3, help="rounds; each figure is the best of its rounds")
    ap.add_argument("--players", default="2,4,6", help="table sizes, comma-separated (2..6)")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="then profile raw_env at N players (0: no)")
    ap.add_argument("--split", type=int, default=0, metavar="N",
                    help="then print where a step of raw_env at N players goes, part by part (0: no)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time the loops on this process's CPU time (steps per CPU second), not the time passed")
    args = ap.parse_args()
    sizes = [int(x) for x in args.players.split(",")]
    print(f"machine: {machine()}" + ("; rates per CPU second of this process" if args.cpu_time else ""))
    clock = time.process_time if args.cpu_time else time.perf_counter
    best = play_rates(sizes, args.seconds, args.repeats, clock)
    gin = best[("gin", 2)]
    print(f"gin_rummy_v0.raw_env()  (Gin, same rounds)      {gin:>10,.0f} steps/s")
    for n in sizes:
        raw = best[("raw", n)]
        print(f"romme_v0.raw_env(num_players={n})               {raw:>10,.0f} steps/s  "
              f"({raw / gin:.2f}x Gin's raw_env)")
        print(f"romme_v0.env(num_players={n})  (AEC loop)        {best[('env', n)]:>10,.0f} steps/s")
        print(f"RommeState, {n} players (pure game)            {best[('game', n)]:>10,.0f} steps/s")
        encodes = encode_rate(n, args.seconds, args.repeats, clock)
        print(f"flat observation, {n} players                  {encodes:>10,.0f} encodes/s")
        plain, envs, agents_way = mask_read_rates(n, args.seconds / 4, args.repeats, clock)
        print(f"legal ids of a mask, {n} players: np.flatnonzero of the int8 array {plain:>10,.0f} reads/s, "
              f"of the env's mask {envs:,.0f} reads/s ({envs / plain:.1f}x), agents.legal_actions "
              f"{agents_way:,.0f} reads/s ({agents_way / plain:.1f}x)")
    if args.profile:
        profile(args.profile, args.seconds)
    if args.split:
        split = step_split(args.split, rounds=args.repeats)
        whole = split.pop("whole step")
        print(f"\nwhere a step of romme_v0.raw_env(num_players={args.split}) goes ({whole:.1f} us of CPU time; "
              f"each part: what replacing it by its recorded results saved):")
        for name, us in split.items():
            print(f"  {name:42s} {us:5.1f} us  {100 * us / whole:4.0f}%")


if __name__ == "__main__":
    main()
