"""Agent strength: each pair over duplicate deals, with 95% confidence intervals.

Every deal is played twice with the seats swapped, so the luck of the cards cancels
out; the unit of the statistics is the deal pair. With ``--players N`` (games for more
than two, such as Rommé or Basic Rummy) A plays against N - 1 copies of B and every deal
is played N times, A in each seat in turn. For each pair of agents (A vs B) it prints
A's share of hands won (a drawn hand counts as 1/N), A's mean points per hand,
both with 95% intervals (normal approximation over deal pairs), and with ``--matches``
A's share of matches won (duplicate matches: same seed, seats swapped). Deals run on
worker processes; each finished pair is appended to ``--out`` as a JSON line.

``--log FILE`` makes a long run resumable: every finished deal (or match) pair is
appended to FILE as a JSON line the moment its worker finishes it, and a rerun with the
same FILE plays only the deals it does not hold yet. A deal is named by its seed and the
agents are seeded from it, so the figures are those of one uninterrupted run (except for
agents on a time budget, such as ``mcts:time=1``, whose moves depend on the machine's
speed; the seconds a move are pooled over all the sessions). A run of mcts, 0.2 s a
move, is about an hour a pair: it can be stopped and continued, or grown with a larger
``--hands`` later. The log names agents by their specs: start a new file when an
agent's code changes.

    python benchmarks/bench_agents.py --pair simple random --pair heuristic simple --rules classic --hands 2000
    python benchmarks/bench_agents.py --pair heuristic simple --rules eaai --hands 0 --matches 1000
    python benchmarks/bench_agents.py --pair mcts heuristic --hands 2000 --log runs/mcts_heuristic.jsonl
    python benchmarks/bench_agents.py --game romme --pair heuristic random --rules romme --players 4 --hands 2000

Agent specs name agents of ``--game`` (default Gin Rummy), as everywhere.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from multiprocessing import get_context

import numpy as np

from rummy_env import agents
from rummy_env.agents.arena import play_hand, play_match
from rummy_env.core.game import DEFAULT_GAME


def _share(a: int, b: int, winner) -> float:
    return 1.0 if winner == a else 0.0 if winner == b else 0.5


class Timed:
    """Wraps an agent to time its choices (moves with more than one legal action)."""

    def __init__(self, agent: agents.Agent) -> None:
        self.agent, self.seconds, self.moves = agent, 0.0, 0
        self.game, self.name = agent.game, agent.name  # it plays as the agent it wraps

    def act(self, observation, info) -> int:
        start = time.perf_counter()
        action = self.agent.act(observation, info)
        if int(np.count_nonzero(observation["action_mask"])) > 1:
            self.seconds += time.perf_counter() - start
            self.moves += 1
        return action


def deal_pair(job: tuple[str, str, str, int, int, str]) -> tuple[float, float, float, int]:
    """(A's share of the hands won, A's mean points, A's seconds thinking, A's moves) over
    one deal played once with A in each of the ``players`` seats (B in the others)."""
    a, b, rules, seed, players, game = job
    share = points = 0.0
    timed = []
    for seat in range(players):
        others = iter(agents.make(b, seed=seed + 1 + j, game=game) for j in range(players - 1))
        timed.append(Timed(agents.make(a, seed=seed, game=game)))
        seats = [timed[-1] if s == seat else next(others) for s in range(players)]
        result = play_hand(seats, rules, seed=seed)
        share += 1.0 if result.winner == seat else 1.0 / players if result.winner is None else 0.0
        points += result.rewards[seat]
    return share / players, points / players, sum(t.seconds for t in timed), sum(t.moves for t in timed)


def match_pair(job: tuple[str, str, str, int, int, str]) -> tuple[float, float]:
    a, b, rules, seed, _, game = job
    first = play_match([agents.make(a, seed=seed, game=game), agents.make(b, seed=seed + 1, game=game)], rules, seed=seed)
    second = play_match([agents.make(b, seed=seed + 1, game=game), agents.make(a, seed=seed, game=game)], rules, seed=seed)
    share = (_share(0, 1, first.winner) + _share(1, 0, second.winner)) / 2
    return share, (first.grand_total[0] - first.grand_total[1] + second.grand_total[1] - second.grand_total[0]) / 2


def keyed(task: tuple) -> tuple[int, tuple]:
    """Run ``fn(job)`` for ``task = (fn, job)`` and return ``(seed, result)``, so results can
    arrive in any order (each is logged the moment its worker finishes it)."""
    fn, job = task
    return job[3], fn(job)


def interval(values: np.ndarray) -> tuple[float, float]:
    return float(values.mean()), 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))


ROW_SIZES = {"hands": 4, "matches": 2}  # what deal_pair and match_pair return


def read_log(path: str) -> dict[tuple[str, str, str, str, int, int], list[float]]:
    """The finished deals in a ``--log`` file, by (a, b, rules, kind, seed, players); a
    truncated last line (a crash mid-write) is ignored and will be played again."""
    done: dict[tuple[str, str, str, str, int, int], list[float]] = {}
    if not os.path.exists(path):
        return done
    with open(path, "rb") as f:
        data = f.read()
    whole = data[: data.rfind(b"\n") + 1]
    if len(whole) < len(data):  # cut short by a crash: drop the partial line so appends start clean
        os.truncate(path, len(whole))
    for number, line in enumerate(whole.decode().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            row = [float(x) for x in rec["row"]]
            if len(row) != ROW_SIZES[rec["kind"]]:
                raise ValueError(f"a {rec['kind']} row has {ROW_SIZES[rec['kind']]} numbers, this one {len(row)}")
            done[(rec["a"], rec["b"], rec["rules"], rec["kind"], int(rec["seed"]), int(rec.get("players", 2)))] = row
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number} is not a bench_agents log line ({exc}); use another --log file") from None
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pair", nargs=2, action="append", required=True, metavar=("A", "B"), help="agent specs; repeat")
    ap.add_argument("--game", default=DEFAULT_GAME, help=f"the game the agents play (default {DEFAULT_GAME})")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--hands", type=int, default=2000, help="hands per pair (a multiple of --players: deals x players)")
    ap.add_argument("--players", type=int, default=2, help="seats at the table: A against players - 1 copies of B")
    ap.add_argument("--matches", type=int, default=0, help="also this many matches per pair (duplicate)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="append one JSON line per finished pair")
    ap.add_argument("--log", help="append every finished deal pair here, and skip those it holds (resume)")
    ap.add_argument("--progress", type=int, default=0, metavar="DEALS", help="print running figures every DEALS deals")
    args = ap.parse_args()
    n = args.players
    if n < 2:
        ap.error(f"--players must be at least 2, got {n}")
    if args.matches and n != 2:
        ap.error("--matches is for two players only")
    for name, count in (("--hands", args.hands), ("--matches", args.matches)):
        if count != 0 and (count < 2 * n or count % n):
            ap.error(f"{name} must be 0 or a multiple of --players ({n}) of at least {2 * n} (each deal is played "
                     f"{n} times, A in each seat, and an interval needs two deals), got {count}")
    if args.workers < 1:
        ap.error(f"--workers must be at least 1, got {args.workers}")
    for a, b in args.pair:
        agents.make(a, game=args.game), agents.make(b, game=args.game)  # a bad spec fails here, before any work
    done = read_log(args.log) if args.log else {}
    with get_context("spawn").Pool(args.workers) as pool:  # spawn: forking after torch is loaded can hang
        for a, b in args.pair:
            for kind, count, fn in (("hands", args.hands, deal_pair), ("matches", args.matches, match_pair)):
                if count <= 0:
                    continue
                start = time.perf_counter()
                seeds = [args.seed + 10_000 * i for i in range(count // n)]
                rows = {s: done[(a, b, args.rules, kind, s, n)] for s in seeds if (a, b, args.rules, kind, s, n) in done}
                if rows:
                    print(f"  {a} vs {b}: {n * len(rows)} of the {n * len(seeds)} {kind} are in {args.log}", flush=True)
                todo = [s for s in seeds if s not in rows]
                played = 0
                for seed, row in pool.imap_unordered(keyed, [(fn, (a, b, args.rules, s, n, args.game)) for s in todo]):
                    rows[seed] = list(row)
                    played += 1
                    if args.log:
                        with open(args.log, "a") as f:
                            f.write(json.dumps({"a": a, "b": b, "rules": args.rules, "kind": kind, "seed": seed,
                                                "players": n, "row": list(row)}) + "\n")
                    if args.progress and played % args.progress == 0 and 2 <= len(rows) < len(seeds):
                        part = np.array(list(rows.values()))
                        (w, w_ci), (p, p_ci) = interval(part[:, 0]), interval(part[:, 1])
                        print(f"  ... {a} vs {b}: {n * len(rows)} {kind}, {a} wins {100 * w:.1f}% +- {100 * w_ci:.1f}, "
                              f"points {p:+.2f} +- {p_ci:.2f}  [{time.perf_counter() - start:.0f} s]", flush=True)
                results = np.array([rows[s] for s in seeds])
                share, share_ci = interval(results[:, 0])
                pts, pts_ci = interval(results[:, 1])
                unit = "hand" if kind == "hands" else "match (grand-total margin)"
                think, per_move = "", None
                if kind == "hands" and results[:, 3].sum():
                    per_move = float(results[:, 2].sum() / results[:, 3].sum())
                    think = f", {a} thinks {per_move:.3f} s a move"
                table = f", {n} players ({a} and {n - 1} x {b})" if n != 2 else ""
                line = (f"{a} vs {b}, {args.rules}{table}, {len(seeds) * n} {kind}: {a} wins {100 * share:.1f}% +- {100 * share_ci:.1f}, "
                        f"points per {unit} {pts:+.2f} +- {pts_ci:.2f}{think}  [{time.perf_counter() - start:.0f} s]")
                print(line, flush=True)
                if args.out:
                    with open(args.out, "a") as f:
                        f.write(json.dumps({"a": a, "b": b, "rules": args.rules, "kind": kind, "n": len(seeds) * n,
                                            "players": n,
                                            "share": share, "share_ci95": share_ci, "points": pts, "points_ci95": pts_ci,
                                            "a_seconds_per_move": per_move}) + "\n")
        pool.close()  # let the workers exit on their own: the with block's terminate() can cut them off mid-write
        pool.join()


if __name__ == "__main__":
    main()
