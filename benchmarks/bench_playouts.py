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
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

from rummy_env import agents  # noqa: E402
from rummy_env.agents.search import SearchAgent, rollout_agent  # noqa: E402
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=games(), choices=games())
    parser.add_argument("--hands", type=int, default=6, help="hands from the deal per game, rollout and table size")
    args = parser.parse_args()
    if args.hands < 1:
        parser.error(f"--hands must be >= 1, got {args.hands}")
    print(machine())
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
