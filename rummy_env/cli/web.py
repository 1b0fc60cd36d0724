"""``rummy serve``: the local web app (``rummy_env.web``) to play and watch the agents and
read tournament records. Needs the ``web`` extra; without it, one line says how to install it."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    sv = sub.add_parser("serve", help="a local web app: play and watch the agents, replay tournaments, "
                        "e.g. rummy serve --port 8000")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sv.add_argument("--records", default="runs", help="folder whose tournament folders the records pages show "
                    "(default runs)")
    sv.add_argument("--max-games", type=int, default=100, help="games held at once (default 100)")
    sv.add_argument("--idle-minutes", type=float, default=30.0,
                    help="a game nobody asks about for this long is dropped (default 30)")
    sv.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from rummy_env.web import require

    require()  # an ImportError with the install command: rummy prints it on one line
    from rummy_env.web.server import serve

    serve(args.host, args.port, args.records, args.max_games, args.idle_minutes)
    return 0
