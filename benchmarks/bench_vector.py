"""Vector-engine throughput: steps/s of random legal play by batch size, for the compiled
engine and the array operations it replaces (measured alternately in the same run), vs OpenSpiel.

Each step is one decision in every game of the batch: the engine applies it, deals
finished games again, and returns the next player's observation (``flat``) and action
mask for every game. The random policy (``VectorGinRummy.random_actions``: one uniform
draw per game, the same actions on both engines) is included, as it is in OpenSpiel's
loop (``benchmarks/peers/opsp_env.py``: one C++ state driven from Python with its
observation tensor), which runs in the same run under the peer virtualenv. Each batch
size is also measured without observations (``encoding=None``: the engine, masks and
deadwood only), for callers that build their own inputs from the engine's arrays.

    python benchmarks/bench_vector.py [--seconds 3] [--sizes 1,8,64,512,1024,4096,8192] [--rounds 2]

``--policy simple`` or ``--policy heuristic`` plays the scripted agents' array versions
on both seats instead (``rummy_env.agents.gin.simple_vector.simple_actions``, ``rummy_env.agents.gin.heuristic_vector``),
their cost included; for ``heuristic`` the per-game agent's rate (one
``HeuristicAgent.choose`` per move on the pure game) is printed as the reference.
The compiled engine needs numba (the ``fast`` or ``train`` extra); without it only the
array operations are measured.
``--knock estimate`` (with ``--policy heuristic``) plays the agent's default knock rule on
both sides: the per-game ``HeuristicAgent()`` and ``heuristic_actions(..., knock="estimate")``
(``rummy_env.agents.gin.knock_vector``), the batch's games first set up to ``STAGGER`` moves
apart (untimed) so that the timed steps see early and late positions mixed as whole hands
do; the default is the turn rule (``knock=turn``). Every step is one move in every game,
so the policies' rates are printed as moves/s.

    python benchmarks/bench_vector.py --policy heuristic --knock estimate --sizes 64,1024

Basic Rummy's engine (``rummy_env.basic.vector.VectorBasicRummy``, compiled; 2 and 4
players by default, ``--basic-players``; empty skips it) is measured in the same rounds as
Gin's, in the same way (random legal play, ``flat`` observations or none), and each figure
printed with its ratio to Gin's compiled engine at that batch size.

    python benchmarks/bench_vector.py --sizes 1024,8192 --basic-players 2,4

``--game basic --policy heuristic`` plays Basic Rummy's ``heuristic`` the same way: its array
policy (``rummy_env.agents.basic.heuristic_vector.HeuristicPolicy``, its tie-breaks each
seat's generator, as in tournaments) in every seat of the compiled engine, at each table
size of ``--basic-players``, against the per-game ``RummyHeuristicAgent.act`` on the pure
game (its observation and information set built each move, as the env gives them).

    python benchmarks/bench_vector.py --game basic --policy heuristic --sizes 64,1024 --basic-players 2,4

Rommé's engine (``rummy_env.romme.vector.VectorRomme``, compiled; 4 players by default,
``--romme-players``; empty skips it) is measured the same way, in the same rounds.

    python benchmarks/bench_vector.py --sizes 1024 --basic-players "" --romme-players 2,4,6

``--game romme --policy heuristic`` plays Rommé's ``heuristic`` so: its array policy
(``rummy_env.agents.romme.heuristic_vector.HeuristicPolicy``) in every seat of the compiled
engine at each table size of ``--romme-players``, against ``RommeHeuristicAgent.act``.

    python benchmarks/bench_vector.py --game romme --policy heuristic --sizes 64,1024 --romme-players 2,4
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, peer_python, run_peer  # noqa: E402

from rummy_env.agents.gin.heuristic import KNOCK_RULES, HeuristicAgent  # noqa: E402
from rummy_env.agents.gin.heuristic_vector import heuristic_actions  # noqa: E402
from rummy_env.agents.gin.simple_vector import simple_actions  # noqa: E402
from rummy_env.agents.basic.agents import RummyHeuristicAgent  # noqa: E402
from rummy_env.agents.romme.agents import RommeHeuristicAgent  # noqa: E402
from rummy_env.basic.game import BasicRummyState  # noqa: E402
from rummy_env.romme.game import RommeState  # noqa: E402
from rummy_env.basic.vector import VectorBasicRummy  # noqa: E402
from rummy_env.basic.vector import compiled_engine as basic_compiled_engine  # noqa: E402
from rummy_env.gin.game import GinRummyState  # noqa: E402
from rummy_env.gin.vector import VectorGinRummy, compiled_engine  # noqa: E402
from rummy_env.romme.vector import VectorRomme  # noqa: E402
from rummy_env.romme.vector import compiled_engine as romme_compiled_engine  # noqa: E402

POLICIES = ("random", "simple", "heuristic")


STAGGER = 64  # knock=estimate: games start up to this many moves apart (untimed)


def rate(num_envs: int, seconds: float, policy: str = "random", engine: str = "auto",
         encoding: Optional[str] = "flat", knock: str = "turn") -> float:
    env = VectorGinRummy(num_envs, seed=0, engine=engine, encoding=encoding)
    env.reset()
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)
    if knock == "estimate":
        # the estimate runs only where a knock is possible, from a few turns into a hand: games
        # dealt together would all be early (cheap) or late (dear) at once, so they are first
        # set apart by up to STAGGER moves, untimed, and the timing sees a mix of positions
        start_at = rng.integers(0, STAGGER, size=num_envs)
        for step in range(STAGGER):
            moving = np.flatnonzero(start_at <= step)
            actions = np.zeros(num_envs, dtype=np.int64)
            actions[moving] = heuristic_actions(env, moving, rng, knock=knock)
            env.step(actions, active=start_at <= step)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if policy == "random":
            actions = env.random_actions(rng)
        elif policy == "simple":
            actions = simple_actions(env, rows, rng)
        else:
            actions = heuristic_actions(env, rows, rng, knock=knock)
        env.step(actions)
        steps += num_envs
    return steps / (time.perf_counter() - start)


# the other games' compiled engines measured beside Gin's: (label, engine class, its compiled-engine getter)
OTHER_GAMES = {"basic": ("Basic Rummy", VectorBasicRummy, basic_compiled_engine),
               "romme": ("Rommé", VectorRomme, romme_compiled_engine)}


def game_rate(game: str, num_envs: int, players: int, seconds: float, encoding: Optional[str] = "flat") -> float:
    """Steps/s of random legal play on another game's compiled engine (``OTHER_GAMES``; a
    step: one move in every game)."""
    env = OTHER_GAMES[game][1](num_envs, players, seed=0, encoding=encoding)
    env.reset()
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.step(env.random_actions(rng))
        steps += num_envs
    return steps / (time.perf_counter() - start)


def per_game_heuristic_rate(seconds: float, knock: str = "turn") -> float:
    """Moves/s of ``HeuristicAgent.choose`` on the pure game, one game at a time."""
    agent = HeuristicAgent(seed=0, knock=knock)
    moves, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = GinRummyState.new_hand("classic", seed=seed)
        while not game.is_over:
            p = game.current_player
            game.step(agent.choose(game.information_set(p), game.rules, set(game.legal_actions())))
            moves += 1
        seed += 1
    return moves / (time.perf_counter() - start)


# per game measured with ``--policy heuristic``: its title, compiled engine class, scripted
# agent, pure hand dealer, compiled engine check and the table sizes' option
HEURISTICS = {
    "basic": ("Basic Rummy", VectorBasicRummy, RummyHeuristicAgent, BasicRummyState.new_hand, basic_compiled_engine,
              "basic_players"),
    "romme": ("Rommé", VectorRomme, RommeHeuristicAgent, RommeState.new_hand, romme_compiled_engine, "romme_players"),
}


def heuristic_rate(game: str, num_envs: int, players: int, seconds: float) -> float:
    """Moves/s of ``game``'s ``heuristic`` array policy in every seat of its compiled
    engine (a step: one move in every game), each seat's decisions counted per hand."""
    _, engine, agent, _, _, _ = HEURISTICS[game]
    policy = agent().batch_policy()
    env = engine(num_envs, players, seed=0, encoding=None)
    env.reset()
    rows = np.arange(num_envs)
    keys = np.random.default_rng(0).integers(0, 2**63, (num_envs, players), dtype=np.uint64)
    decisions = np.zeros((num_envs, players), dtype=np.int64)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        seat = env.current.astype(np.intp)
        result = env.step(policy(env, rows, keys[rows, seat], decisions[rows, seat]))
        decisions[rows, seat] += 1
        decisions[result.terminated] = 0  # a hand ended: the row holds a new one
        steps += num_envs
    return steps / (time.perf_counter() - start)


def per_game_heuristic_rate_of(game_name: str, players: int, seconds: float) -> float:
    """Moves/s of ``game_name``'s ``heuristic`` agent's ``act`` on the pure game, one game at a
    time (each move's mask and information set built as the env gives them)."""
    _, _, agent_class, deal, _, _ = HEURISTICS[game_name]
    agent = agent_class(seed=0)
    moves, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = deal(players, None, seed)
        while not game.is_over:
            p = game.current_player
            game.step(agent.act({"action_mask": game.legal_mask()},
                                {"information_set": game.information_set(p), "rules": game.rules}))
            moves += 1
        seed += 1
    return moves / (time.perf_counter() - start)


def game_policy(args: argparse.Namespace) -> None:
    """``--game basic|romme --policy heuristic``: the array policy against the per-game agent."""
    title, _, agent, _, compiled, option = HEURISTICS[args.game]
    if compiled() is None:
        print(f"{title}: not measured (its compiled engine is not in use here)")
        return
    print(f"policy: {title} heuristic in every seat (array version, compiled engine, no observations)")
    for players in (int(p) for p in getattr(args, option).split(",") if p):
        base = per_game_heuristic_rate_of(args.game, players, args.seconds)
        print(f"{players} players: per-game {agent.__name__}.act on the pure game: {base:,.0f} moves/s")
        for size in (int(s) for s in args.sizes.split(",")):
            r = heuristic_rate(args.game, size, players, args.seconds)
            print(f"{players} players, batch {size:5d}: {r:>12,.0f} moves/s   {r / base:6.1f}x per-game")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per batch size")
    ap.add_argument("--sizes", default="1,8,64,512,1024,4096,8192")
    ap.add_argument("--peer-python", help="python of the peer venv (default .peers/venv/bin/python)")
    ap.add_argument("--policy", choices=POLICIES, default="random", help="who plays both seats")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds per figure (random policy)")
    ap.add_argument("--knock", choices=KNOCK_RULES, default="turn", help="the heuristic's knock rule (--policy heuristic)")
    ap.add_argument("--basic-players", default="2,4",
                    help="Basic Rummy table sizes measured with Gin (random policy; empty: none)")
    ap.add_argument("--romme-players", default="4",
                    help="Rommé table sizes measured with Gin (random policy; empty: none)")
    ap.add_argument("--game", choices=("gin", *HEURISTICS), default="gin",
                    help="whose --policy heuristic (basic: Basic Rummy's, at --basic-players tables; romme: "
                         "Rommé's, at --romme-players tables)")
    args = ap.parse_args()
    if args.knock != "turn" and args.policy != "heuristic":
        ap.error("--knock is a setting of --policy heuristic")
    if args.game != "gin" and (args.policy != "heuristic" or args.knock != "turn"):
        ap.error(f"--game {args.game} measures {HEURISTICS[args.game][0]}'s heuristic: give --policy heuristic "
                 "(without --knock)")
    print(f"machine: {machine()}")
    if args.game != "gin":
        game_policy(args)
        return
    if args.policy != "random":
        knock = f", knock={args.knock}" if args.policy == "heuristic" else ""
        print(f"policy: {args.policy}{knock} on both seats (array version)")
        if args.policy == "heuristic":
            base = per_game_heuristic_rate(args.seconds, args.knock)
            print(f"per-game HeuristicAgent(knock={args.knock}) on the pure game: {base:,.0f} moves/s")
        for size in (int(s) for s in args.sizes.split(",")):
            r = rate(size, args.seconds, args.policy, knock=args.knock)
            ratio = f"   {r / base:6.1f}x per-game" if args.policy == "heuristic" else ""
            print(f"batch {size:5d}: {r:>12,.0f} moves/s{ratio}")  # a step is a move in every game
        return
    python = peer_python(args.peer_python)
    peer = run_peer(python, "opsp_env.py", "--seconds", str(args.seconds * 2)) if python else None
    base = peer["steps_per_s"] if peer else None
    if base:
        print(f"OpenSpiel gin_rummy from Python + observation_tensor: {base:,.0f} steps/s")
    else:
        print("OpenSpiel: not measured (run `bash benchmarks/setup_peers.sh` first)")
    engines = ["compiled", "arrays"] if compiled_engine() is not None else ["arrays"]
    others = []  # (game, players)
    for game, option in (("basic", args.basic_players), ("romme", args.romme_players)):
        label, _, compiled = OTHER_GAMES[game]
        tables = [(game, int(p)) for p in option.split(",") if p]
        if tables and compiled() is None:
            print(f"{label}: not measured (its compiled engine is not in use here)")
            tables = []
        others += tables
    print(f"engines: {', '.join(engines)}{''.join(f', {OTHER_GAMES[g][0]} {p} players' for g, p in others)}; "
          f"each figure the best of {args.rounds} alternating round(s)")
    for size in (int(s) for s in args.sizes.split(",")):
        best = {}
        for _ in range(args.rounds):  # alternating, so a slow spell of the machine hits every engine alike
            for engine in engines:
                for encoding in ("flat", None):
                    key = (engine, encoding)
                    best[key] = max(best.get(key, 0.0), rate(size, args.seconds, engine=engine, encoding=encoding))
            for game, players in others:
                for encoding in ("flat", None):
                    key = (f"{game}{players}", encoding)
                    best[key] = max(best.get(key, 0.0), game_rate(game, size, players, args.seconds, encoding))
        for engine in engines:
            r, bare = best[(engine, "flat")], best[(engine, None)]
            ratio = f"   {r / base:6.1f}x OpenSpiel" if base else ""
            print(f"batch {size:5d}, {engine:8s}: {r:>12,.0f} steps/s{ratio}   (without observations "
                  f"{bare:>12,.0f} steps/s)")
        if len(engines) == 2:
            print(f"batch {size:5d}: compiled / arrays = {best[('compiled', 'flat')] / best[('arrays', 'flat')]:.2f}x "
                  f"(without observations {best[('compiled', None)] / best[('arrays', None)]:.2f}x)")
        gin = engines[0]  # Gin's compiled engine where it is used
        for game, players in others:
            r, bare = best[(f"{game}{players}", "flat")], best[(f"{game}{players}", None)]
            print(f"batch {size:5d}, {OTHER_GAMES[game][0]} {players} players: {r:>12,.0f} steps/s   "
                  f"{r / best[(gin, 'flat')]:.2f}x Gin {gin}   (without observations {bare:>12,.0f} steps/s, "
                  f"{bare / best[(gin, None)]:.2f}x)")

if __name__ == "__main__":
    main()
