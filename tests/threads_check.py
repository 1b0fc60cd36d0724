"""Run by ``tests/core/test_threads.py`` in a process of its own (a crash there is a failed
test, not a dead test run): hands of every registered game played on several threads at
once, with a thread switch forced every microsecond, must be the hands played one after
another. A server moves its tables in a pool of threads, and compiled kernels that share
scratch arrays between calls corrupt each other's results, or memory, if two threads
interleave.

    python tests/threads_check.py HANDS
"""

import sys
import threading

from rummy_env import agents
from rummy_env.agents.arena import play_hand
from rummy_env.core.game import games, get_game

HANDS = int(sys.argv[1])
THREADS = 4


def seats(game: str, players: int, seed: int) -> list:
    """The game's heuristic in every seat (its random agent where it has none), seeded per seat."""
    try:
        return [agents.make("heuristic", game=game, seed=seed * 10 + k) for k in range(players)]
    except ValueError:
        return [agents.make("random", game=game, seed=seed * 10 + k) for k in range(players)]


def hand(game: str, seed: int) -> dict:
    players = min(3, get_game(game).max_players)
    return play_hand(seats(game, players, seed), seed=seed).to_dict()


alone = {(game, seed): hand(game, seed) for game in games() for seed in range(HANDS)}
sys.setswitchinterval(1e-6)
together: dict = {}
errors: list = []


def work(k: int) -> None:
    keys = list(alone)
    try:
        for key in keys[k:] + keys[:k]:  # each thread in its own order
            together[(k, key)] = hand(*key)
    except Exception as e:  # noqa: BLE001  (reported, not raised: the test reads the output)
        errors.append(repr(e))


threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
wrong = sorted({key[0] for (k, key), result in together.items() if result != alone[key]})
print(f"{len(together)} hands on {THREADS} threads of {len(alone)}; unlike alone: {wrong}; errors: {errors}")
