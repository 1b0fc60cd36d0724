"""The web app (ASGI, Starlette): the pages and the JSON API they call.

Pages (plain HTML, CSS and JavaScript under ``static/``, no build step): ``/`` to start a
game to play or watch, ``/table/{id}`` the table of a game (played, watched or replayed),
``/lobby`` the tables for people and ``/tables/{id}`` one of them (their API:
``rummy_env.web.lobby``; logins: ``rummy_env.web.accounts``), ``/players`` the players'
leaderboard (``GET /api/players``, ``rummy_env.web.players``), ``/records`` the tournament
folders and ``/leaderboard?folder=F``
one tournament.

API (JSON; every error is a 4xx or 503 ``{"error": message}`` and changes nothing; every
request passes ``rummy_env.web.guard`` first: Host, Origin, JSON content type, body size):

- ``GET /api/options``: the games, their presets, player counts and agents;
- ``POST /api/games``: a new game, ``{"mode": "play" | "watch", "game", "players",
  "rules" (a preset), "opponents" (play) or "agents" (watch): agent specs vetted by
  ``rummy_env.web.choices``, "seat" (play), "episode": "hand" | "match", "seed" (watch:
  a game to play is dealt secretly, its deal number told when it is over)}`` -> ``{"id", "table"}``;
- ``GET /api/games/{id}?seat=K|all``: the table as seat K sees it (a player sees only
  their own seat; a watcher any seat, or ``all``);
- ``POST /api/games/{id}/move`` ``{"action": id}``: the person's move;
- ``POST /api/games/{id}/advance``: the move of the agent (or record) to move;
- ``POST /api/games/{id}/seek`` ``{"move": n}``: a replay goes to the position after its
  first n moves (back or forward);
- ``POST /api/games/{id}/rematch``: a game over played again with the same settings, dealt
  anew -> ``{"id", "table"}``; ``POST /api/games/{id}/replay``: a game over replayed move by
  move -> ``{"id", "table"}``;
- ``DELETE /api/games/{id}``;
- ``GET /api/players``: the players' leaderboard; with accounts on, ``GET /api/account``,
  ``POST /api/account/signup|login|logout`` (``rummy_env.web.accounts``), ``GET
  /api/account/games`` and ``POST /api/account/replays`` ``{"game"}`` -> ``{"id", "table"}``
  (one's own games: ``rummy_env.web.players``);
- ``GET /api/records``, ``GET /api/records/summary?folder=F``, ``GET /api/records/plot?folder=F&name=P``,
  ``GET /api/records/games?folder=F``, ``POST /api/replays`` ``{"folder", "key"}`` -> ``{"id", "table"}``.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Optional, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rummy_env import agents
from rummy_env.core.game import Game, games, get_game
from rummy_env.web import MAX_THINK
from rummy_env.web.accounts import Accounts, account_routes
from rummy_env.web.checks import DEALS, api, body, choice, game_settings, integer, refused, specs
from rummy_env.web.choices import AgentChoices
from rummy_env.web.guard import LOCAL_HOSTS, Guard
from rummy_env.web.lobby import Lobby, table_routes
from rummy_env.web.pages import render_pages
from rummy_env.web.players import player_routes
from rummy_env.web.records import Records
from rummy_env.web.sessions import AgentTable, ReplayTable, Sessions, Table, WebError
from rummy_env.web.store import DB_NAME, Store
from rummy_env.web.views import table_view

STATIC = Path(__file__).resolve().parent / "static"
SEAT = re.compile(r"[0-9]{1,4}")  # a seat number as a query value (ASCII digits only)


def web_games() -> list[Game]:
    """The registered games that draw people's screens (``Game.has_view``)."""
    return [g for g in map(get_game, games()) if g.has_view]


def options(choices: AgentChoices) -> dict[str, Any]:
    """What the start page offers: each game with its presets (whether each plays a match,
    and its description in a line), player counts, agents (names, levels and the
    operator's), the levels (each with the agent it stands for: the start page's level
    picker per seat) and default opponent, and the most thinking a move an agent may be
    given."""
    out = []
    for game in web_games():
        offered = choices.names(game)  # what a client may pick as it is (within --max-think)
        default = agents.default_opponent(game.name)
        out.append({
            "name": game.name, "title": game.title, "min_players": game.min_players, "max_players": game.max_players,
            "presets": [{"name": p, "match": bool(getattr(game.load_rules(p), "match", False)),
                         "note": game.preset_note(p)} for p in game.presets],
            "default_preset": game.default_preset, "agents": offered,
            "levels": [{"name": level, "agent": spec} for level, spec in agents.levels(game.name).items()
                       if level in offered],
            "default_agent": default if default in offered else offered[0],
        })
    return {"games": out, "max_think": choices.max_think}


def new_table(data: dict[str, Any], choices: AgentChoices) -> Table:
    """A game to play or watch from a checked request (see the module docstring). A game to
    play is dealt from a secret seed (no other request can deal its cards until it is over)."""
    mode = choice(data, "mode", ["play", "watch"], "play")
    game, n, preset, rules, episode = game_settings(data, web_games())
    default = agents.default_opponent(game.name)
    if mode == "play":
        if "agents" in data:
            raise WebError(400, "a game to play takes 'opponents' (the other seats), not 'agents'")
        if "seed" in data:
            raise WebError(400, "a game to play is dealt secretly, so that no other request can deal its cards; "
                                "its deal number is shown when it is over ('seed' is for games to watch)")
        seed = secrets.randbelow(DEALS)
        others = specs(data, "opponents", n - 1, default)
        seat = integer(data, "seat", 0, n - 1)
        if seat is None:
            seat = secrets.randbelow(n)
        seated = others[:seat] + [None] + others[seat:]
    else:
        if "opponents" in data or "seat" in data:
            raise WebError(400, "a game to watch takes 'agents' (one spec per seat, or one for all), "
                                "not 'opponents' or 'seat'")
        seed = integer(data, "seed", 0, DEALS - 1)
        seed = secrets.randbelow(DEALS) if seed is None else seed
        seated = specs(data, "agents", n, default)
    made = [None if spec is None else choices.make(spec, game, seed + 1 + s) for s, spec in enumerate(seated)]
    players = [None if m is None else m[0] for m in made]
    names = ["you" if m is None else m[1] for m in made]
    table = AgentTable(game, rules, preset, names, players, episode, seed)
    # a rematch: the same request, the person in the same seat, and a new deal (no seed)
    table.settings = {**{k: v for k, v in data.items() if k != "seed"}, **({"seat": seat} if mode == "play" else {})}
    return table


def rematch(table: Table, choices: AgentChoices) -> Table:
    """A new game with ``table``'s settings (game, players, rules, seats and agents, length),
    dealt anew, once ``table`` is over."""
    settings = getattr(table, "settings", None)
    if settings is None:
        raise WebError(409, "only a game played or watched here can be played again (a replay replays its record)")
    if not table.over:
        raise WebError(409, "the game is not over: a rematch starts once it has ended")
    return new_table(settings, choices)


def replay_of(table: Table) -> ReplayTable:
    """A finished game played or watched here, to replay move by move (every hand shown:
    the game is over, and its deal number, which deals the same cards, is told by then)."""
    if not isinstance(table, AgentTable):
        raise WebError(409, "only a game played or watched here can be replayed from its page")
    score = table.score()
    final = None if score is None else {"title": score["title"], "points": score["points"]}
    return ReplayTable(table.game, table.rules, table.preset, list(table.names), table.hand_records(), final,
                       table.episode)


def seats_of(table: Table, request: Request) -> list[int]:
    """The seats a request may see: the person's own (a game played), or any seat or
    ``all`` (a game watched or replayed; ``all`` by default)."""
    asked = request.query_params.get("seat")
    n = table.num_players
    if asked not in (None, "all") and (not SEAT.fullmatch(asked) or int(asked) >= n):
        raise WebError(400, f"seat must be 'all' or a seat 0..{n - 1}, got {asked!r}")
    if table.human is not None:
        if asked not in (None, str(table.human)):
            raise WebError(403, f"a player sees only their own seat ({table.human}); seat={asked!r} is not allowed")
        return [table.human]
    return list(range(n)) if asked in (None, "all") else [int(asked)]


# ------------------------------------------------------------------------ the app


def create_app(records: "str | Path" = "runs", max_games: int = 100, idle_minutes: float = 30.0,
               max_games_per_client: int = 10, agents_named: Optional[dict[str, str]] = None,
               max_think: float = MAX_THINK, bound: str = "127.0.0.1", allow_hosts: Sequence[str] = (),
               allow_origins: Sequence[str] = (), db: "str | Path | None" = None, max_tables: int = 20,
               max_tables_per_client: int = 5, accounts: bool = False, hasher: Any = None) -> Guard:
    """The app behind its guard (``rummy_env.web.guard``): games held in memory (at most
    ``max_games``, ``max_games_per_client`` for one client address, dropped after
    ``idle_minutes`` without a request), the tournament folders under ``records``, the
    agents clients may choose (``agents_named``: the operator's NAME -> SPEC; thinking at
    most ``max_think`` seconds a move), answering to this machine's names, ``bound`` and
    ``allow_hosts``, and to pages of its own origin or ``allow_origins``. People's tables
    (``rummy_env.web.lobby``: at most ``max_tables``, ``max_tables_per_client``) keep their
    records in the SQLite file ``db`` (default ``records/tables.sqlite3``); without
    ``accounts`` they are served only when ``bound`` is this machine's loopback (a seat's
    link is then its only key); with them (``rummy_env.web.accounts``, kept in the same
    file; ``hasher``: argon2-cffi's ``PasswordHasher``, its defaults when None) anywhere."""
    sessions = Sessions(capacity=max_games, idle_seconds=60 * idle_minutes, per_client=max_games_per_client)
    folders = Records(Path(records))
    choices = AgentChoices(agents_named, max_think)
    store = Store(Path(records) / DB_NAME if db is None else db)
    logins = Accounts(store, hasher) if accounts else None
    lobby = Lobby(store, capacity=max_tables, per_client=max_tables_per_client, idle_seconds=60 * idle_minutes,
                  refusal=people_refusal(bound, accounts), accounts=logins)

    async def with_table(request: Request, work: Callable[[Table], None], seats: bool = True) -> dict[str, Any]:
        """Run ``work`` on the table (in a worker thread: an agent may think for seconds),
        one request at a time per table, then its view for the request's seats."""
        table = sessions.get(request.path_params["id"])
        async with table.lock:
            chosen = seats_of(table, request)

            def run() -> dict[str, Any]:
                work(table)
                return table_view(table, chosen)

            return await run_in_threadpool(run)

    async def get_options(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(options, choices)

    async def create(request: Request) -> dict[str, Any]:
        data = await body(request, {"mode", "game", "players", "rules", "opponents", "agents", "seat", "episode", "seed"})
        sessions.check_room(client_of(request))  # before any agent is made
        table = await run_in_threadpool(new_table, data, choices)
        key = sessions.add(table, client_of(request))
        return {"id": key, "table": await run_in_threadpool(table_view, table, seats_of(table, request))}

    async def show(request: Request) -> dict[str, Any]:
        return await with_table(request, lambda table: None)

    async def move(request: Request) -> dict[str, Any]:
        data = await body(request, {"action"})
        table = sessions.get(request.path_params["id"])
        action = integer(data, "action", 0, table.game.num_actions - 1, required=True)
        return await with_table(request, lambda t: t.play(action))

    async def advance(request: Request) -> dict[str, Any]:
        await body(request, set())
        return await with_table(request, lambda t: t.advance())

    async def seek(request: Request) -> dict[str, Any]:
        data = await body(request, {"move"})
        table = sessions.get(request.path_params["id"])
        if not isinstance(table, ReplayTable):
            raise WebError(409, "only a replay goes back or to a chosen move; a game being played goes forward only")
        position = integer(data, "move", 0, table.length, required=True)
        return await with_table(request, lambda t: t.seek(position))

    async def again(request: Request, make: Callable[[Table], Table]) -> dict[str, Any]:
        """A new table made from the table of the request (``make``): a rematch or a replay."""
        await body(request, set())
        table = sessions.get(request.path_params["id"])
        sessions.check_room(client_of(request))  # before any agent is made
        async with table.lock:
            made = await run_in_threadpool(make, table)
        key = sessions.add(made, client_of(request))
        return {"id": key, "table": await run_in_threadpool(table_view, made, seats_of(made, request))}

    async def play_again(request: Request) -> dict[str, Any]:
        return await again(request, lambda table: rematch(table, choices))

    async def replay_played(request: Request) -> dict[str, Any]:
        return await again(request, replay_of)

    async def delete(request: Request) -> dict[str, Any]:
        sessions.remove(request.path_params["id"])
        return {"deleted": request.path_params["id"]}

    async def record_list(request: Request) -> dict[str, Any]:
        return {"folders": await run_in_threadpool(folders.folders)}

    async def summary(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(folders.summary, request.query_params.get("folder"))

    async def record_games(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(folders.games, request.query_params.get("folder"))

    async def replay(request: Request) -> dict[str, Any]:
        data = await body(request, {"folder", "key"})
        sessions.check_room(client_of(request))
        table = await run_in_threadpool(folders.replay, data.get("folder"), data.get("key"))
        key = sessions.add(table, client_of(request))
        return {"id": key, "table": await run_in_threadpool(table_view, table, list(range(table.num_players)))}

    async def plot(request: Request) -> Response:
        try:
            path = folders.plot(request.query_params.get("folder"), request.query_params.get("name"))
        except WebError as exc:
            return refused(exc)
        return FileResponse(path, media_type="image/png")

    pages = render_pages()

    def page(name: str) -> Callable:
        async def serve_page(request: Request) -> Response:
            return HTMLResponse(pages[name])
        return serve_page

    routes = [
        Route("/", page("index")),
        Route("/table/{id}", page("table")),
        Route("/records", page("records")),
        Route("/leaderboard", page("leaderboard")),
        Route("/api/options", api(get_options)),
        Route("/api/games", api(create), methods=["POST"]),
        Route("/api/games/{id}", api(show), methods=["GET"]),
        Route("/api/games/{id}", api(delete), methods=["DELETE"]),
        Route("/api/games/{id}/move", api(move), methods=["POST"]),
        Route("/api/games/{id}/advance", api(advance), methods=["POST"]),
        Route("/api/games/{id}/seek", api(seek), methods=["POST"]),
        Route("/api/games/{id}/rematch", api(play_again), methods=["POST"]),
        Route("/api/games/{id}/replay", api(replay_played), methods=["POST"]),
        Route("/api/records", api(record_list)),
        Route("/api/records/summary", api(summary)),
        Route("/api/records/games", api(record_games)),
        Route("/api/records/plot", plot),
        Route("/api/replays", api(replay), methods=["POST"]),
        Route("/lobby", page("lobby")),
        Route("/tables/{id}", page("people")),
        Route("/players", page("players")),
        *player_routes(store, logins, sessions, client_of),
        *table_routes(lobby, choices, web_games, client_of),
        *account_routes(logins, client_of),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await lobby.close()  # the tables' tasks stop; every finished hand is written already

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.sessions = sessions
    app.state.choices = choices
    app.state.lobby = lobby
    return Guard(app, bound=bound, hosts=allow_hosts, origins=allow_origins)


def people_refusal(bound: str, accounts: bool = False) -> Optional[str]:
    """Why people's tables are off on a server listening on ``bound``, or None (loopback,
    or accounts on)."""
    if accounts or bound.strip("[]").lower() in LOCAL_HOSTS:
        return None
    return (f"people's tables are off on this server: it listens on {bound} (rummy serve --host), beyond this machine, "
            "without accounts, where a seat's link would be its only key; serve on 127.0.0.1, or turn accounts on "
            "(rummy serve --accounts) to seat people")


def client_of(request: Request) -> str:
    """The address a request comes from: games are counted against it (``Sessions``)."""
    return request.client.host if request.client is not None else "unknown"
