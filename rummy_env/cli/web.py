"""``rummy serve``: the local web app (``rummy_env.web``) to play and watch the agents and
read tournament records. Needs the ``web`` extra; without it, one line says how to install it."""

from __future__ import annotations

import argparse

from rummy_env.web import MAX_THINK


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
    sv.add_argument("--max-games-per-client", type=int, default=10,
                    help="games one client address may hold at once (default 10)")
    sv.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC",
                    help="offer an agent to the pages by name, e.g. --agent mybot=ppo:runs/x/policy.pt (repeatable); "
                         "clients never name files themselves")
    sv.add_argument("--max-think", type=float, default=MAX_THINK, metavar="SECONDS",
                    help="the most thinking a move a page may ask of an agent (mcts:time, simulations, ...; "
                         f"default {MAX_THINK:g})")
    sv.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="another name this server answers to (Host header) besides localhost, 127.0.0.1, ::1 and "
                         "--host, e.g. the machine's name on your network (repeatable)")
    sv.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                    help="another origin whose pages may use the API, e.g. http://mybox:8000 (repeatable)")
    sv.add_argument("--db", default=None, metavar="PATH",
                    help="the SQLite file where people's tables keep their games and hands (default "
                         "RECORDS/tables.sqlite3, made when the first table starts)")
    sv.add_argument("--max-tables", type=int, default=20, help="people's tables waiting or played at once (default 20)")
    sv.add_argument("--max-tables-per-client", type=int, default=5,
                    help="people's tables one client address may open at once (default 5)")
    sv.add_argument("--accounts", action="store_true",
                    help="people log in (a name and a password, kept hashed in --db) to open and join tables; "
                         "needed to seat people when --host is beyond this machine")
    sv.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from rummy_env.web import require

    require()  # an ImportError with the install command: rummy prints it on one line
    from rummy_env.web.server import serve

    serve(args.host, args.port, args.records, args.max_games, args.idle_minutes, args.max_games_per_client,
          args.agent, args.max_think, args.allow_host, args.allow_origin, args.db, args.max_tables,
          args.max_tables_per_client, args.accounts)
    return 0
