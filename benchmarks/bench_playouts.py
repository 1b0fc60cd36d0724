"""What a playout of the generic search costs in each game, against what the game declares.

A playout is the rest of a hand played by a rollout agent in every seat (``search``'s
``rollout``). Each game declares a playout's rough cost per rollout agent
(``Game.playout_seconds``: a name, or ``"*"`` for any other), which the search reports as
its cost a simulation (``SearchAgent.costs``) and ``rummy serve --max-think`` bounds a web
client's playouts by. This script plays hands from the deal with every agent of each game
that a search may roll out with and a web client may name, at every table size, and
prints the mean and worst CPU seconds a hand (``time.process_time``) beside the declared
figure, with the ratio of the mean to it: a ratio above 1 says the declaration is too low
on this machine.

    python benchmarks/bench_playouts.py [--games gin basic romme] [--hands 6]

``--search SPEC`` measures a search's moves instead, with its playouts in Python, on the
game's vector engine and as ``auto`` chooses (``search``'s ``playouts=python``, ``engine``
and ``auto``: the engine for rounds of ``ENGINE_ROWS`` playouts or more), in the same run:
CPU seconds a move over ``--moves`` decisions (more than one legal move) of
hands the game's default rollout agent plays in every seat, at every table size, each
decision searched once each way with the same seed (the moves and values must agree;
the script stops if not). A game whose engine cannot take the playouts says why.

    python benchmarks/bench_playouts.py --games basic --search expert --moves 40
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env import agents  # noqa: E402
from rummy_env.agents.search import SearchAgent, default_rollout, rollout_agent  # noqa: E402
from rummy_env.core.game import games, get_game  # noqa: E402


def rollouts(game: str) -> list[str]:
    """The agents of ``game`` a search may roll out with, by registered name (levels
    resolved: ``hard`` is ``heuristic``), each once, as a web client could name them."""
    found: list[str] = []
    for name in agents.available(game=game, required=False):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rollout_agent(name, game)
                resolved = agents.resolve(name, game)
        except (ValueError, ImportError):
            continue  # a search itself, or an agent that cannot be made here
        if not resolved.options and resolved.name not in found:
            found.append(resolved.name)
    return found


def positions(game: str, players: int, count: int) -> list:
    """``count`` decisions with more than one legal move, from hands the game's default
    rollout agent plays in every seat (hand ``h`` dealt from seed ``h``, seat ``p``'s agent
    seeded ``h + p``), in the order they come."""
    played = get_game(game)
    rules = played.load_rules()
    out: list = []
    hand = 0
    while len(out) < count:
        state = played.deal(rules, players, seed=hand)
        seats = [agents.make(default_rollout(game), seed=hand + p, game=game) for p in range(players)]
        while not state.is_over and len(out) < count:
            obs, info = search_input(state)
            if len(state.legal_actions()) > 1:
                out.append(state.clone())
            state.step(int(seats[state.current_player].act(obs, info)))
        hand += 1
    return out


def search_input(state) -> tuple[dict, dict]:
    """What the env's ``last()`` gives the player to move: the mask, the information set and rules."""
    seat = state.current_player
    return {"action_mask": state.legal_mask()}, {"information_set": state.information_set(seat), "rules": state.rules}


def with_playouts(spec: str, where: str) -> str:
    return f"{spec}{',' if ':' in spec else ':'}playouts={where}"


def time_search(game: str, spec: str, moves: int) -> None:
    """Seconds a move of search ``spec`` with its playouts in Python, on the engine and by
    ``auto`` (module docstring)."""
    played = get_game(game)
    if not isinstance(agents.make(with_playouts(spec, "python"), game=game), SearchAgent):
        raise ValueError(f"--search {spec!r} is not a search agent of {played.title}")
    try:
        agents.make(with_playouts(spec, "engine"), game=game)
    except ValueError as e:  # the spec itself was made above: this is the engine's refusal
        print(f"{game:8s} {spec}: {e}")
        return
    for players in range(played.min_players, played.max_players + 1):
        states = positions(game, players, moves)
        spent = {"python": 0.0, "engine": 0.0, "auto": 0.0}
        deviations = 0
        for k, state in enumerate(states):
            found = []
            for where in spent:
                agent = agents.make(with_playouts(spec, where), seed=k, game=game)
                if k == 0:  # warm up: imports, compiled kernels
                    agent.act(*search_input(state))
                    agent = agents.make(with_playouts(spec, where), seed=k, game=game)
                start = time.process_time()
                move = agent.act(*search_input(state))
                spent[where] += time.process_time() - start
                found.append((move, agent.last_search))
            move, (cands, values) = found[0]
            for again, (cands2, values2) in found[1:]:
                if again != move or cands2 != cands or not np.array_equal(values2, values, equal_nan=True):
                    sys.exit(f"{game} {spec}, {players} players, decision {k}: the engine playouts disagree with "
                             "Python's")
            deviations += move != cands[0]
        python, engine, auto = (spent[where] / len(states) for where in ("python", "engine", "auto"))
        print(f"{game:8s} {spec} {players} players, {len(states)} moves ({deviations} off the rollout's move): "
              f"python {python:.3f} s a move, engine {engine:.3f} s (python/engine {python / engine:.2f}), "
              f"auto {auto:.3f} s (python/auto {python / auto:.2f})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=games(), choices=games())
    parser.add_argument("--hands", type=int, default=6, help="hands from the deal per game, rollout and table size")
    parser.add_argument("--search", metavar="SPEC", help="time this search's moves with both playouts instead "
                        "(a spec or level, e.g. expert or search:simulations=100)")
    parser.add_argument("--moves", type=int, default=20, help="with --search: decisions per game and table size")
    args = parser.parse_args()
    if args.hands < 1:
        parser.error(f"--hands must be >= 1, got {args.hands}")
    if args.moves < 1:
        parser.error(f"--moves must be >= 1, got {args.moves}")
    print(machine())
    if args.search:
        for name in args.games:
            try:
                time_search(name, args.search, args.moves)
            except ValueError as e:  # a spec that is not a search of this game
                parser.error(str(e))
        return
    print(f"{'game':8s} {'rollout':16s} {'table':>5s} {'mean ms':>8s} {'worst ms':>9s} {'declared ms':>12s} {'mean/declared':>14s}")
    for name in args.games:
        game = get_game(name)
        rules = game.load_rules()
        for rollout in rollouts(name):
            declared = SearchAgent.costs(name, {"rollout": rollout})["simulations"]
            search = SearchAgent(name, rollout=rollout)
            for players in range(game.min_players, game.max_players + 1):
                spent = []
                for seed in range(args.hands):
                    state = game.deal(rules, players, seed=seed)
                    start = time.process_time()
                    search._play_out(state, seed)
                    spent.append(time.process_time() - start)
                mean = sum(spent) / len(spent)
                print(f"{name:8s} {rollout:16s} {players:5d} {1000 * mean:8.1f} {1000 * max(spent):9.1f} "
                      f"{1000 * declared:12.1f} {mean / declared:14.2f}", flush=True)


if __name__ == "__main__":
    main()
