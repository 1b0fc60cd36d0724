"""Running the web app: ``serve`` starts uvicorn on ``host:port`` (127.0.0.1 by default, so
only this machine can reach it) and ``run`` is the one call that blocks (tests and the
docs' command checks replace it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rummy_env.web import require

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(host: str = "127.0.0.1", port: int = 8000, records: "str | Path" = "runs", max_games: int = 100,
          idle_minutes: float = 30.0) -> None:
    """Serve the app until interrupted. A host other than this machine's loopback is
    allowed, with a warning: anyone who can reach it can play and read the records."""
    require()
    if not 0 < port < 65536:
        raise ValueError(f"--port must be 1..65535, got {port}")
    if max_games < 1 or idle_minutes <= 0:
        raise ValueError(f"--max-games must be >= 1 and --idle-minutes > 0, got {max_games} and {idle_minutes}")
    from rummy_env.web.app import create_app

    app = create_app(records=records, max_games=max_games, idle_minutes=idle_minutes)
    if host not in LOOPBACK:
        print(f"warning: serving on {host}, not only this machine: anyone who can reach it can use it")
    print(f"rummy serve: open http://{'[' + host + ']' if ':' in host else host}:{port}/  (records from {records}; "
          "Ctrl-C stops)")
    run(app, host=host, port=port)


def run(app: Any, host: str, port: int) -> None:
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
