"""Running a tournament: schedule the games, play the missing ones in parallel, append
each result as it finishes, then write the reports.

Two paths, with the same results (``rummy_env.eval.games``): with ``batch: auto`` the
games that can be (``can_batch``: single hands of a game with a batch engine, every agent
with an array version) are played thousands at once (``play_batched``), their records
appended as each run of them in schedule order finishes; the others, and all games with
``batch: off``, one at a time, each appended as it finishes. A rerun skips the recorded
games either way.

Backends: ``local`` runs worker processes on this machine (``workers``); ``ray`` sends
games to a Ray cluster (``address``, or a local Ray instance) and needs the ``ray`` extra
(``pip install -e ".[ray]"``). On the batched path a worker plays a chunk of games at
once. Games are independent and seeded by their identity, so the results are the same
whatever the backend, the number of workers or the path.
"""

from __future__ import annotations

import itertools
import math
import time
from multiprocessing import get_context
from typing import Any, Callable, Iterable, Iterator, Optional

from tqdm import tqdm

from rummy_env.core.game import get_game
from rummy_env.eval.config import TournamentConfig
from rummy_env.eval.games import (
    BATCH_WIDTH, PairGame, TableGame, can_batch, play_batched, play_game, schedule, table_schedule,
)
from rummy_env.eval.heap import long_lived_frozen
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


def _ray(spec: dict[str, Any], games: list[Any], address: Optional[str],
         play: Callable[..., Any] = play_game) -> Iterator[Any]:
    """``play(spec, g)`` for each of ``games`` on Ray, yielded as they finish."""
    try:
        import ray
    except ImportError:
        raise RuntimeError('backend "ray" needs Ray: pip install -e ".[ray]"') from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(play)
        pending = [remote.remote(spec, g) for g in games]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started:
            ray.shutdown()


def _play_chunk(spec: dict[str, Any], games: list[PairGame] | list[TableGame]) -> list[dict[str, Any]]:
    """Every record of a chunk of games played many at once (a worker's share)."""
    return [record for records in play_batched(spec, games) for record in records]


def _play_chunk_args(args: tuple[dict[str, Any], list[PairGame] | list[TableGame]]) -> list[dict[str, Any]]:
    return _play_chunk(*args)


CHUNK = 4 * BATCH_WIDTH  # games a worker plays at once on the batched path


def _batched(spec: dict[str, Any], games: list[PairGame] | list[TableGame], config: TournamentConfig
             ) -> Iterator[list[dict[str, Any]]]:
    """The games played many at once, as lists of records: in this process with one local
    worker, or fewer than two ``CHUNK`` of games (starting worker processes, a few seconds,
    would cost more than they save), records in schedule order, each written as soon as it
    and the games before it have finished; else in chunks of up to ``CHUNK`` games, one per
    worker at a time, each chunk's records written when it finishes."""
    if not games:
        return
    if config.backend == "local" and (config.workers == 1 or len(games) < 2 * CHUNK):
        yield from play_batched(spec, games)
        return
    size = max(1, min(CHUNK, math.ceil(len(games) / config.workers)))
    chunks = [games[k : k + size] for k in range(0, len(games), size)]
    if config.backend == "ray":
        yield from _ray(spec, chunks, config.address, play=_play_chunk)
        return
    with get_context("spawn").Pool(min(config.workers, len(chunks))) as pool:
        yield from pool.imap(_play_chunk_args, [(spec, c) for c in chunks])


def run(config: TournamentConfig, progress: bool = True, on_game: Optional[Callable[[dict], None]] = None) -> dict[str, Any]:
    """Play every game not yet in ``results.jsonl`` (a rerun with more ``deals`` grows a
    tournament: its new deals are played); returns the summary (also written)."""
    config.check_types()  # nothing is written for settings changed since they were checked
    out = config.out_dir
    game = get_game(config.game)
    pairs = config.pairs_format
    games = schedule(config.pairs(), config.deals) if pairs else table_schedule(config.tables(), config.deals)
    store = ResultsStore(out / "results.jsonl", config.identity(), {g.key: g for g in games})
    done = store.open()
    todo = [g for g in games if g.key not in done]
    spec = {"game": game.name, "agents": config.agents, "rules": config.rules, "mode": config.mode,
            "seed": config.seed, "record": config.record}
    batchable: dict[tuple[int, ...], bool] = {}
    if config.batch == "auto":
        for members in {g.members for g in todo}:
            batchable[members] = can_batch(spec, members)
    many = [g for g in todo if batchable.get(g.members, False)]
    one_by_one = [g for g in todo if not batchable.get(g.members, False)]
    singles: Iterable[dict[str, Any]] = (
        _ray(spec, one_by_one, config.address) if config.backend == "ray" else _local(spec, one_by_one, config.workers)
    ) if one_by_one else ()
    results = itertools.chain(_batched(spec, many, config), ([record] for record in singles))
    start = time.perf_counter()
    bar = tqdm(total=len(games), initial=len(games) - len(todo), unit="game", disable=not progress)
    with bar:
        for finished in results:
            store.append_many(finished)
            for record in finished:
                done[record["key"]] = record
                if on_game is not None:
                    on_game(record)
            bar.update(len(finished))
    records = [done[g.key] for g in games]
    summary = {
        "config": {**config.identity(), "workers": config.workers, "backend": config.backend, "batch": config.batch},
        "games": len(records),
        "seconds_this_run": time.perf_counter() - start,
        "played_this_run": len(todo),
        "grown_from_deals": store.grown_from,
        "batched_this_run": len(many),
    }
    names = config.agents
    with long_lived_frozen():  # the records too, now: the statistics make many small objects
        summary["agents"] = agent_stats(records, names, game.outcomes)
        summary["pairs"] = pair_stats(records, names, game.outcomes) if pairs else placing_stats(records, names)
        summary["ratings"] = ratings(records, names, seed=config.seed)
        summary["points_ratings"] = ratings(records, names, kind="points", seed=config.seed)
        summary["report"] = write_reports(out, summary)
    return summary
