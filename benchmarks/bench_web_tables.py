"""Load on the people's tables of ``rummy serve``: many tables played at once on a real
server on 127.0.0.1, scripted people at some of them holding live streams as browsers do,
agents alone at the others; how long a person's move takes to reach every page at its table.

    python benchmarks/bench_web_tables.py [--tables 50] [--people 20] [--seconds 60] [--json FILE]

The server runs in its own process (``rummy serve``), so its memory and CPU are its own.
``--people`` scripted people sit ``--people-per-table`` to a table (two by default, with
agents in the other seats and ``--spectators`` spectators' pages): a move must then reach
the mover's own page, the other person's and the spectators', which are different views
of the table (the other person sees the move told, not played; a spectator sees no hand),
so "every seat's update" is the fan-out of one change to several views. Every person holds
a live stream (``GET .../events``, read as ``EventSource`` does) and, as soon as their
stream shows their turn, plays a random move among the legal moves it lists. The other
tables are tables of agents: a person seat whose person leaves at once (``POST /leave``),
so that its stand-in plays with the agents. The agents move every ``--pace`` seconds; a
table that ends is replaced by a new one, so the load stays the same for ``--seconds``.

Measured for every person's move: the time from sending its ``POST .../move`` to the
moment the last stream at its table received an update showing it (an event whose
``position`` counts it). Errors: any answer that is not 2xx, a stream that fails or ends,
an event that fails a check (another table's or seat's, a position going back, a move told
as another seat's, legal moves sent to a seat not to move, an agent's move that failed), a
move some stream never showed, and each error line the server logged. The server's
resident memory is read every second: at the start (before any table), after the warm-up
(``--warmup``, by default the first quarter of the run), in the middle and at the end. Each simulated client has its
own loopback address (127.0.x.y, all this machine's), as different browsers would: the
server's limits per client (requests a second, tables) count each person apart.
tests/web/test_web_tables_load.py runs it small and checks there is no error.
"""

# no ``from __future__ import annotations``: tests/test_docs.py loads this script without a module
# entry, where ``dataclass`` cannot read annotations written as strings
import argparse
import asyncio
import datetime
import json
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_web import percentiles, rss_mb, server  # noqa: E402
from common import machine  # noqa: E402

LEVELS = (50, 90, 99)  # the percentiles reported
GRACE = 10.0  # seconds a stream may take to show a move before it counts as missed
PEOPLE, SPECTATORS, HOUSE, LOBBY = 1, 2, 3, 4  # the third byte of each kind of client's loopback address


def address(kind: int, k: int) -> str:
    """The loopback address of the ``k``-th client of ``kind`` (127.0.kind.k+1)."""
    return f"127.0.{kind}.{k % 250 + 1}"


@dataclass
class Figures:
    """What a run measured."""

    latencies: list[float] = field(default_factory=list)  # seconds from a move sent to its last stream's update
    sent: list[float] = field(default_factory=list)  # when each of those moves was sent (the clock's time)
    answers: list[float] = field(default_factory=list)  # seconds from a move sent to its answer
    errors: list[str] = field(default_factory=list)
    moves: Counter = field(default_factory=Counter)  # moves measured, per people's table (its slot)
    tables: Counter = field(default_factory=Counter)  # tables played to their end: "people", "agents"


@dataclass
class Pending:
    """A person's move sent: the table's position before it, the mover's seat, when it was
    sent and when each stream first showed it."""

    position: int
    seat: int
    sent: float
    arrived: dict[str, float] = field(default_factory=dict)


class Watch:
    """The streams of one people's table and the moves waiting to be shown on all of them.
    ``seen`` takes every event a stream receives (checking it); a move is measured when the
    last stream has shown it, and counts as an error when ``close`` finds one that has not."""

    def __init__(self, key: str, slot: int, figures: Figures, clock: Callable[[], float] = time.perf_counter) -> None:
        self.key = key
        self.slot = slot
        self.figures = figures
        self.clock = clock
        self.positions: dict[str, int] = {}  # stream name -> the last position it showed
        self.seats: dict[str, Optional[int]] = {}  # stream name -> its seat (None: a spectator)
        self.pending: list[Pending] = []
        self.closing = False

    def add(self, name: str, seat: Optional[int]) -> None:
        self.seats[name] = seat
        self.positions[name] = -1

    def error(self, text: str) -> None:
        self.figures.errors.append(f"table {self.key}: {text}")

    def moved(self, position: int, seat: int) -> Pending:
        """A move of ``seat`` sent now, the table at ``position``."""
        pending = Pending(position, seat, self.clock())
        self.pending.append(pending)
        return pending

    def failed(self, pending: Pending) -> None:
        """A move refused (its error counted by whoever sent it): no stream will show it."""
        if pending in self.pending:
            self.pending.remove(pending)

    def seen(self, name: str, message: dict[str, Any]) -> None:
        """An event ``table`` that stream ``name`` received now: checked, then counted for
        every move waiting that it shows."""
        now = self.clock()
        seat = self.seats[name]
        status, table = message.get("status") or {}, message.get("table")
        if status.get("id") != self.key or status.get("you") != seat:
            self.error(f"{name} was sent table {status.get('id')!r} as seat {status.get('you')!r}")
        if status.get("error") is not None:
            self.error(f"{name} was told the table stopped: {status['error']}")
        if table is None:
            return
        position = table["position"]
        if position < self.positions[name]:
            self.error(f"{name}'s position went back from {self.positions[name]} to {position}")
        self.positions[name] = position
        if table["moves"] and (seat is None or table["to_move"] != seat):
            self.error(f"{name} was sent legal moves while seat {table['to_move']} is to move")
        log = {entry["index"]: entry for entry in table["log"]}
        for pending in list(self.pending):
            if position <= pending.position or name in pending.arrived:
                continue
            pending.arrived[name] = now
            told = log.get(pending.position + 1)
            if told is not None and told["seat"] != pending.seat:
                self.error(f"{name} told move {pending.position + 1} as seat {told['seat']}'s, not {pending.seat}'s")
            if len(pending.arrived) == len(self.seats):
                self.figures.latencies.append(max(pending.arrived.values()) - pending.sent)
                self.figures.sent.append(pending.sent)
                self.figures.moves[self.slot] += 1
                self.pending.remove(pending)

    def gone(self, name: str, why: str) -> None:
        if not self.closing:
            self.error(f"{name}'s stream ended: {why}")

    def close(self) -> None:
        """The table is left: every move still waiting was missed by some stream."""
        self.closing = True
        for pending in self.pending:
            missing = sorted(set(self.seats) - set(pending.arrived))
            self.error(f"move {pending.position + 1} (seat {pending.seat}) never reached {', '.join(missing)}")
        self.pending.clear()


@dataclass
class Settings:
    """A run's settings (the command line's)."""

    url: str
    game: str
    players: int
    agent: str
    pace: float
    think: float
    deadline: float  # the event loop's time when no new move or table starts


def client(settings: Settings, local: str) -> Any:
    """An HTTP client of the server from the loopback address ``local``."""
    import httpx2

    return httpx2.AsyncClient(base_url=settings.url, timeout=httpx2.Timeout(30, read=60),
                              transport=httpx2.AsyncHTTPTransport(local_address=local))


async def call(http: Any, path: str, body: dict[str, Any], figures: Figures) -> Optional[dict[str, Any]]:
    """``POST path``: its answer, or None (an error counted) when it is not 2xx."""
    try:
        answer = await http.post(path, json=body)
    except Exception as exc:  # a transport failure is an error of the run, not a crash
        figures.errors.append(f"POST {path}: {type(exc).__name__}: {exc}")
        return None
    if not 200 <= answer.status_code < 300:
        figures.errors.append(f"POST {path}: {answer.status_code} {answer.text[:200]}")
        return None
    return answer.json()


class Page:
    """One live stream of a table (a person's page, or a spectator's): every event to the
    table's ``Watch``; the latest message kept for whoever plays from it."""

    def __init__(self, http: Any, watch: Watch, name: str, token: Optional[str], seat: Optional[int]) -> None:
        self.http = http
        self.watch = watch
        self.name = name
        self.token = token
        self.latest: Optional[dict[str, Any]] = None
        self.fresh = asyncio.Event()
        watch.add(name, seat)
        self.task = asyncio.get_running_loop().create_task(self.listen())

    async def listen(self) -> None:
        path = f"/api/tables/{self.watch.key}/events" + (f"?token={self.token}" if self.token else "")
        try:
            async with self.http.stream("GET", path) as answer:
                if answer.status_code != 200:
                    self.watch.error(f"{self.name}'s stream: {answer.status_code} {(await answer.aread())[:200]!r}")
                    return
                name = data = None
                async for line in answer.aiter_lines():
                    if line.startswith("event: "):
                        name = line[len("event: "):]
                    elif line.startswith("data: "):
                        data = json.loads(line[len("data: "):])
                    elif line == "" and name is not None:
                        if name == "table":
                            self.watch.seen(self.name, data)
                            self.latest = data
                            self.fresh.set()
                        else:
                            self.watch.gone(self.name, f"event {name}: {data}")
                        name = data = None
            self.watch.gone(self.name, "the server closed it")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.watch.gone(self.name, f"{type(exc).__name__}: {exc}")

    async def next(self, timeout: float) -> Optional[dict[str, Any]]:
        """The latest message once one came since the last call, or None after ``timeout`` s."""
        try:
            await asyncio.wait_for(self.fresh.wait(), max(timeout, 0.001))
        except asyncio.TimeoutError:
            return None
        self.fresh.clear()
        return self.latest

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def play(page: Page, seat: int, settings: Settings, rng: np.random.Generator, figures: Figures) -> bool:
    """A scripted person: a random legal move as soon as their stream shows their turn, until
    the game is over (True) or the run's deadline (False)."""
    loop = asyncio.get_running_loop()
    acted = -1  # the position of the last move sent: never two for one position
    path = f"/api/tables/{page.watch.key}/move"
    while True:
        message = await page.next(settings.deadline - loop.time())
        if loop.time() >= settings.deadline:
            return False
        table = message and message["table"]
        if not table:
            continue
        if table["over"]:
            return True
        if not table["moves"] or table["to_move"] != seat or table["position"] == acted:
            continue
        if settings.think:
            await asyncio.sleep(settings.think)
        acted = table["position"]
        move = table["moves"][int(rng.integers(len(table["moves"])))]
        pending = page.watch.moved(acted, seat)
        answer = await call(page.http, path, {"token": page.token, "action": move["id"]}, figures)
        figures.answers.append(time.perf_counter() - pending.sent)
        if answer is None:
            page.watch.failed(pending)


async def seat_people(https: list[Any], settings: Settings, figures: Figures) -> Optional[tuple[str, dict[int, str]]]:
    """A new people's table, made by the first of ``https`` and joined by the others: its id
    and each person's seat token, or None (an error counted)."""
    people = len(https)
    seats = ["person"] * people + [settings.agent] * (settings.players - people)
    made = await call(https[0], "/api/tables", {"game": settings.game, "players": settings.players, "seats": seats,
                                                "pace": settings.pace, "name": "person 0",
                                                "stand_in": settings.agent}, figures)
    if made is None:
        return None
    key, tokens = made["id"], {made["seat"]: made["token"]}
    for k, invite in enumerate(made["invites"], start=1):
        body = {"invite": invite["invite"], "name": f"person {k}"}
        joined = await call(https[k], f"/api/tables/{key}/join", body, figures)
        if joined is None:
            return None
        tokens[joined["seat"]] = joined["token"]
    return key, tokens


async def people_table(slot: int, people: int, spectators: int, settings: Settings, figures: Figures,
                       seed: int) -> None:
    """People's table ``slot``: ``people`` scripted people (and agents) with their pages and
    ``spectators`` spectators' pages, played again and again until the deadline, each game
    a new table."""
    loop = asyncio.get_running_loop()
    https = [client(settings, address(PEOPLE, slot * people + k)) for k in range(people)]
    https += [client(settings, address(SPECTATORS, slot * spectators + k)) for k in range(spectators)]
    rng = np.random.default_rng(seed)
    try:
        while loop.time() < settings.deadline:
            seated = await seat_people(https[:people], settings, figures)
            if seated is None:
                return
            key, tokens = seated
            watch = Watch(key, slot, figures)
            pages = [Page(http, watch, f"seat {seat}", token, seat)
                     for http, (seat, token) in zip(https, tokens.items())]
            pages += [Page(https[people + k], watch, f"spectator {k}", None, None) for k in range(spectators)]
            try:
                if None in await asyncio.gather(*(p.next(30) for p in pages)):
                    watch.error("a page got no first event in 30 s")
                    return
                for page, token in zip(pages, tokens.values()):
                    if await call(page.http, f"/api/tables/{key}/ready", {"token": token}, figures) is None:
                        return
                ended = await asyncio.gather(*(play(page, seat, settings, np.random.default_rng(rng.integers(2**32)),
                                                    figures) for page, seat in zip(pages, tokens)))
                waited = loop.time()
                while watch.pending and loop.time() - waited < GRACE:
                    await asyncio.sleep(0.05)
                figures.tables["people"] += all(ended)
            finally:
                watch.close()
                await asyncio.gather(*(p.close() for p in pages))
    finally:
        await asyncio.gather(*(h.aclose() for h in https))


async def agents_table(slot: int, settings: Settings, figures: Figures, ended: dict[str, asyncio.Event]) -> None:
    """Table of agents ``slot``: a person seat whose person leaves at once (their stand-in
    plays) and agents in the others, a new table each time one ends (``lobby`` says when),
    until the deadline."""
    loop = asyncio.get_running_loop()
    seats = ["person"] + [settings.agent] * (settings.players - 1)
    async with client(settings, address(HOUSE, slot)) as http:
        while loop.time() < settings.deadline:
            made = await call(http, "/api/tables", {"game": settings.game, "players": settings.players, "seats": seats,
                                                    "pace": settings.pace, "stand_in": settings.agent}, figures)
            if made is None:
                return
            key, token = made["id"], made["token"]
            over = ended[key] = asyncio.Event()
            for step, body in (("ready", {"token": token, "ready": True}), ("leave", {"token": token})):
                if await call(http, f"/api/tables/{key}/{step}", body, figures) is None:
                    return
            with_time = settings.deadline - loop.time()
            try:
                await asyncio.wait_for(over.wait(), max(with_time, 0.001))
            except asyncio.TimeoutError:
                return
            figures.tables["agents"] += 1


async def lobby(settings: Settings, figures: Figures, ended: dict[str, asyncio.Event], every: float = 1.0) -> None:
    """The lobby's list of open tables, read every ``every`` seconds as the lobby's page does:
    a table of ``ended`` no longer listed has ended."""
    loop = asyncio.get_running_loop()
    async with client(settings, address(LOBBY, 0)) as http:
        while loop.time() < settings.deadline:
            known = list(ended)  # a table made while the list is on its way is not in it
            try:
                answer = await http.get("/api/tables")
                if answer.status_code != 200:
                    figures.errors.append(f"GET /api/tables: {answer.status_code} {answer.text[:200]}")
                else:
                    listed = {t["id"] for t in answer.json()["tables"]}
                    for key in [k for k in known if k not in listed]:
                        ended.pop(key).set()
            except Exception as exc:  # a transport failure is an error of the run, not a crash
                figures.errors.append(f"GET /api/tables: {type(exc).__name__}: {exc}")
            await asyncio.sleep(every)


async def memory(pid: int, samples: list[tuple[float, Optional[float]]], start: float, every: float = 1.0) -> None:
    """The server's resident memory every ``every`` seconds: (seconds since ``start``, MB)."""
    while True:
        samples.append((time.perf_counter() - start, rss_mb(pid)))
        await asyncio.sleep(every)


def cpu_seconds(pid: int) -> Optional[float]:
    """The CPU time process ``pid`` has used (user + system, Linux's /proc), or None elsewhere."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.is_file():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(args: argparse.Namespace, url: str, pid: int) -> dict[str, Any]:
    """The run: its tables for ``args.seconds``, then the pages closed; its figures."""
    loop = asyncio.get_running_loop()
    settings = Settings(url, args.game, args.players, args.agent, args.pace, args.think, loop.time() + args.seconds)
    figures = Figures()
    ended: dict[str, asyncio.Event] = {}
    samples: list[tuple[float, Optional[float]]] = []
    start = time.perf_counter()
    cpu = cpu_seconds(pid), time.process_time()
    sampler = loop.create_task(memory(pid, samples, start))
    n_people = args.people // args.people_per_table
    work = [people_table(k, args.people_per_table, args.spectators, settings, figures, args.seed + k)
            for k in range(n_people)]
    work += [agents_table(k, settings, figures, ended) for k in range(args.tables - n_people)]
    await asyncio.gather(lobby(settings, figures, ended), *work)
    seconds = time.perf_counter() - start
    samples.append((seconds, rss_mb(pid)))
    sampler.cancel()
    server_cpu = cpu_seconds(pid)
    return {"figures": figures, "samples": samples, "seconds": seconds, "start": start,
            "server_cpu_s": None if server_cpu is None or cpu[0] is None else server_cpu - cpu[0],
            "client_cpu_s": time.process_time() - cpu[1]}


def at(samples: list[tuple[float, Optional[float]]], when: float) -> Optional[float]:
    """The first memory sample taken at ``when`` seconds or after (the last one if none)."""
    return next((mb for t, mb in samples if t >= when), samples[-1][1])


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50,
                        help="tables played at once, people's and agents' (default 50)")
    parser.add_argument("--people", type=int, default=20, help="scripted people, each with a live stream (default 20)")
    parser.add_argument("--people-per-table", type=int, default=2,
                        help="scripted people at a people's table (default 2)")
    parser.add_argument("--spectators", type=int, default=1, help="spectators' streams at a people's table (default 1)")
    parser.add_argument("--seconds", type=float, default=60, help="how long the load lasts (default 60)")
    parser.add_argument("--game", default="basic", help="the game of every table (default basic: it seats 2 to 4)")
    parser.add_argument("--players", type=int, default=4, help="seats at a table (default 4)")
    parser.add_argument("--agent", default="medium", help="the agents and stand-ins (default medium)")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between agents' moves (default 0.5)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a person waits on their turn before moving (default 0: at once)")
    parser.add_argument("--warmup", type=float, help="seconds after which the server's memory should stay flat "
                        "(default a quarter of --seconds)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    per = args.people_per_table
    if not (1 <= per < args.players and args.people % per == 0 and 0 < args.people // per <= args.tables):
        parser.error(f"--people ({args.people}) must be a multiple of --people-per-table ({per}), which must be "
                     f"below --players ({args.players}), with at most --tables ({args.tables}) people's tables")
    return args


def summary(args: argparse.Namespace, run: dict[str, Any], at_start: Optional[float], logged: str) -> dict[str, Any]:
    """The report of a run (``--json`` writes it): the latencies, the errors (the server's
    log lines among them), the memory and the CPU used."""
    figures: Figures = run["figures"]
    errors = figures.errors + [f"server log: {line}" for line in logged.splitlines() if line.strip()]
    samples, seconds = run["samples"], run["seconds"]
    warm = seconds / 4 if args.warmup is None else args.warmup
    sent = [t - run["start"] for t in figures.sent]
    return {
        "settings": {k: v for k, v in vars(args).items() if k != "json"}, "seconds": seconds, "warmup_s": warm,
        "move_to_every_stream": percentiles(figures.latencies, LEVELS),
        "move_to_every_stream_after_warmup": percentiles([d for t, d in zip(sent, figures.latencies) if t >= warm],
                                                         LEVELS),
        "move_answer": percentiles(figures.answers, LEVELS),
        "moves_per_people_table": [figures.moves[k] for k in range(args.people // args.people_per_table)],
        "tables_finished": dict(figures.tables), "errors": errors,
        "server_rss_mb": {"start": at_start, "warm": at(samples, warm), "middle": at(samples, seconds / 2),
                          "end": samples[-1][1]},
        "server_cpu_s": run["server_cpu_s"], "client_cpu_s": run["client_cpu_s"],
        "server_rss_samples": samples,  # (seconds, MB)
        "each_move": [[round(t, 3), round(1000 * d, 1)] for t, d in zip(sent, figures.latencies)],  # (sent at s, ms)
    }


def show(report: dict[str, Any]) -> None:
    args = report["settings"]
    load = report["load_average_before"][0], report["load_average_after"][0]
    print(f"{report['command']}\n{report['date']}; {report['machine']}; load average {load[0]:.2f} before, "
          f"{load[1]:.2f} after")
    people = args["people"] // args["people_per_table"]
    print(f"{args['tables']} tables of {args['game']} ({args['players']} seats, agents {args['agent']} every "
          f"{args['pace']:g} s): {people} with {args['people_per_table']} scripted people and {args['spectators']} "
          f"spectator(s) each, {args['tables'] - people} of agents; {report['seconds']:.0f} s")
    for name, key in (("move -> every stream", "move_to_every_stream"),
                      ("  after the warm-up", "move_to_every_stream_after_warmup"), ("move's answer", "move_answer")):
        s = report[key]
        print(f"  {name:21} n={s['n']:5}  p50 {s['p50_ms']:6.1f} ms  p90 {s['p90_ms']:6.1f} ms  "
              f"p99 {s['p99_ms']:6.1f} ms  max {s['max_ms']:6.1f} ms")
    print(f"  moves measured per people's table: {report['moves_per_people_table']}; tables finished: "
          f"{report['tables_finished']}")
    rss = {k: "n/a" if v is None else f"{v:.0f} MB" for k, v in report["server_rss_mb"].items()}
    print(f"  server memory: {rss['start']} at the start, {rss['warm']} after the warm-up "
          f"({report['warmup_s']:.0f} s), {rss['middle']} in the middle, {rss['end']} at the end")
    cpu, seconds = report["server_cpu_s"], report["seconds"]
    print(f"  CPU: the server {'n/a' if cpu is None else f'{cpu / seconds:.0%}'} of a core, "
          f"this client {report['client_cpu_s'] / seconds:.0%}")
    print(f"  {len(report['errors'])} errors")
    for message in report["errors"][:10]:
        print(f"  error: {message}")


def main() -> None:
    args = arguments()
    head = {"command": "python benchmarks/bench_web_tables.py " + " ".join(sys.argv[1:]),
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), "machine": machine(),
            "load_average_before": os.getloadavg()}
    tables = ["--max-tables", str(args.tables + 10), "--max-tables-per-client", "2"]  # room for a table ending
    with tempfile.TemporaryDirectory() as records, server(1, Path(records), *tables) as (url, pid, log):
        at_start = rss_mb(pid)
        run = asyncio.run(load(args, url, pid))
        logged = os.pread(log.fileno(), os.fstat(log.fileno()).st_size, 0).decode(errors="replace")
    report = {**head, "load_average_after": os.getloadavg(), **summary(args, run, at_start, logged)}
    show(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
