"""Running the web app: ``serve`` starts uvicorn on ``host:port`` (127.0.0.1 by default, so
only this machine can reach it) and ``run`` is the one call that blocks (tests and the
docs' command checks replace it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional, Sequence

from rummy_env.web import MAX_THINK, require

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(host: str = "127.0.0.1", port: int = 8000, records: "str | Path" = "runs", max_games: int = 100,
          idle_minutes: float = 30.0, max_games_per_client: int = 10, agents: Sequence[str] = (),
          max_think: float = MAX_THINK, allow_hosts: Sequence[str] = (), allow_origins: Sequence[str] = (),
          db: "str | Path | None" = None, max_tables: int = 20, max_tables_per_client: int = 5,
          accounts: bool = False) -> None:
    """Serve the app until interrupted. A host other than this machine's loopback is
    allowed, with a warning: anyone who can reach it can play and read the records, and
    people's tables are off there unless ``accounts`` are on (``rummy_env.web.accounts``).
    ``agents``: ``NAME=SPEC`` entries, the operator's agents (policy files) clients may
    pick by name; each is made once now, so a bad one stops the start with one line.
    ``db``: the people's tables' records (default ``records/tables.sqlite3``)."""
    require()
    if not 0 < port < 65536:
        raise ValueError(f"--port must be 1..65535, got {port}")
    if min(max_games, max_games_per_client, max_tables, max_tables_per_client) < 1 or idle_minutes <= 0:
        raise ValueError(f"--max-games, --max-games-per-client, --max-tables and --max-tables-per-client must be "
                         f">= 1 and --idle-minutes > 0, got {max_games}, {max_games_per_client}, {max_tables}, "
                         f"{max_tables_per_client} and {idle_minutes}")
    from rummy_env.web.app import create_app
    from rummy_env.web.choices import AgentChoices

    app = create_app(records=records, max_games=max_games, idle_minutes=idle_minutes,
                     max_games_per_client=max_games_per_client, agents_named=AgentChoices.parse(agents),
                     max_think=max_think, bound=host, allow_hosts=allow_hosts, allow_origins=allow_origins, db=db,
                     max_tables=max_tables, max_tables_per_client=max_tables_per_client, accounts=accounts)
    if host not in LOOPBACK:
        tables = ("people's tables need a login (accounts are on); serve it over HTTPS (a reverse proxy) so that "
                  "passwords do not cross the network in the clear" if accounts else
                  "people's tables are off (rummy serve --accounts turns them on, with logins)")
        print(f"warning: serving on {host}, not only this machine: anyone who can reach it can use it "
              f"(the names clients use for this machine must be given with --allow-host); {tables}")
    print(f"rummy serve: open http://{'[' + host + ']' if ':' in host else host}:{port}/  (records from {records}; "
          f"people's tables' records in {app.state.lobby.store.path}; Ctrl-C stops)")
    run(app, host=host, port=port)


def run(app: Any, host: str, port: int) -> None:
    import gc

    import uvicorn

    # what is alive now (modules, the agents offered, the meld tables) lives as long as the
    # server: out of the collector's sight, so that its full passes, which pause every
    # table's stream, look only at what the games make (benchmarks/bench_web_tables.py)
    gc.freeze()

    class Server(uvicorn.Server):
        stopped_by: Optional[int] = None  # the signal (Ctrl-C, kill) that stopped the server

        def handle_exit(self, sig: int, frame: Any) -> None:
            self.stopped_by = sig
            super().handle_exit(sig, frame)

        async def shutdown(self, sockets: Any = None) -> None:
            app.state.lobby.stop()  # the tables' pages hold live streams: they end first, the pages told why
            await super().shutdown(sockets=sockets)

    server = Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=5))
    try:
        server.run()
    except asyncio.CancelledError:
        if server.stopped_by is None:
            raise
    # uvicorn raises the signal again once it has shut down, and asyncio's runner turns that
    # into KeyboardInterrupt, but not on every interleaving (a rare run ended with status 0):
    # a stop by a signal always ends as Ctrl-C does (``rummy`` says so, status 130)
    if server.stopped_by is not None:
        raise KeyboardInterrupt
