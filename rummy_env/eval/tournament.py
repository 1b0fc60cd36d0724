"""Running a tournament: schedule the games, play the missing ones in parallel, append
each result as it finishes, then write the reports.

Backends: ``local`` runs worker processes on this machine (``workers``); ``ray`` sends
games to a Ray cluster (``address``, or a local Ray instance) and needs the ``ray`` extra
(``pip install -e ".[ray]"``). Games are independent and seeded by their identity, so
the results are the same whatever the backend or the number of workers.
"""

from __future__ import annotations

import time
from multiprocessing import get_context
from typing import Any, Callable, Iterable, Iterator, Optional

from tqdm import tqdm

from rummy_env.core.game import get_game
from rummy_env.eval.config import TournamentConfig
from rummy_env.eval.games import PairGame, TableGame, play_game, schedule, table_schedule
from rummy_env.eval.report import write_reports
from rummy_env.eval.stats import agent_stats, pair_stats, placing_stats, ratings
from rummy_env.eval.store import ResultsStore


def _play(args: tuple[dict[str, Any], PairGame | TableGame]) -> dict[str, Any]:
    return play_game(*args)


def _local(spec: dict[str, Any], games: list[PairGame] | list[TableGame], workers: int) -> Iterator[dict[str, Any]]:
    if workers == 1:
        for g in games:
            yield play_game(spec, g)
        return
    with get_context("spawn").Pool(workers) as pool:
        yield from pool.imap_unordered(_play, [(spec, g) for g in games], chunksize=1)


def _ray(spec: dict[str, Any], games: list[PairGame] | list[TableGame], address: Optional[str]) -> Iterator[dict[str, Any]]:
    try:
        import ray
    except ImportError:
        raise RuntimeError('backend "ray" needs Ray: pip install -e ".[ray]"') from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(play_game)
        pending = [remote.remote(spec, g) for g in games]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started:
            ray.shutdown()


def run(config: TournamentConfig, progress: bool = True, on_game: Optional[Callable[[dict], None]] = None) -> dict[str, Any]:
    """Play every game not yet in ``results.jsonl``; returns the summary (also written)."""
    out = config.out_dir
    store = ResultsStore(out / "results.jsonl", config.identity())
    done = store.open()
    game = get_game(config.game)
    pairs = config.pairs_format
    games = schedule(config.pairs(), config.deals) if pairs else table_schedule(config.tables(), config.deals)
    todo = [g for g in games if g.key not in done]
    spec = {"game": game.name, "agents": config.agents, "rules": config.rules, "mode": config.mode,
            "seed": config.seed, "record": config.record}
    results: Iterable[dict[str, Any]] = (
        _ray(spec, todo, config.address) if config.backend == "ray" else _local(spec, todo, config.workers)
    )
    start = time.perf_counter()
    bar = tqdm(total=len(games), initial=len(games) - len(todo), unit="game", disable=not progress)
    with bar:
        for record in results:
            store.append(record)
            done[record["key"]] = record
            bar.update(1)
            if on_game is not None:
                on_game(record)
    records = [done[g.key] for g in games]
    summary = {
        "config": {**config.identity(), "workers": config.workers, "backend": config.backend},
        "games": len(records),
        "seconds_this_run": time.perf_counter() - start,
        "played_this_run": len(todo),
    }
    names = config.agents
    summary["agents"] = agent_stats(records, names, game.outcomes)
    summary["pairs"] = pair_stats(records, names, game.outcomes) if pairs else placing_stats(records, names)
    summary["ratings"] = ratings(records, names, seed=config.seed)
    summary["points_ratings"] = ratings(records, names, kind="points", seed=config.seed)
    summary["report"] = write_reports(out, summary)
    return summary
