"""The players' leaderboard and each account's own games: what the accounts did at the
people's tables, read from the tables' SQLite file (``rummy_env.web.store``), beside the
agents' leaderboards of the tournaments; and a finished game of one's own replayed move by
move (``player_routes``: ``GET /api/players``, ``GET /api/account/games``, ``POST
/api/account/replays`` ``{"game": id}`` -> ``{"id", "table"}``).

Why accounts only: a guest's name is whatever they typed (two Anns are one name, and
anyone may call themselves Ann), so only seats taken by an account (``rummy serve
--accounts``) are counted. A game counts once it has ended; a game is won by the seat
with the strictly highest final points (a shared highest is a draw), a hand by the seat
with the highest positive reward (a stalemate is nobody's). Each row is one account in
one game under one preset, and the rows per opponent say how the account did against each
other seat it met (an agent by its spec, an account by its name, a guest as ``guest``).

The answer is computed from the file at most once every ``CACHE_SECONDS`` (a request
asks nothing of the file in between), so asking for it often costs the server little.

Why replays of one's own games only: a replay shows every hand from the deal on, which
the other players never saw during the game (what was drawn from the stock, what a hand
held before it was shown); a person may see that of the games they sat at, as the sites
this comes from allow, and no one else may. A replay is checked to reproduce each stored
hand's outcome before it is shown.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from typing import Any, Callable, Optional

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from rummy_env.core.game import get_game
from rummy_env.eval.games import replay_hand
from rummy_env.web.checks import api, body
from rummy_env.web.sessions import ReplayTable, Sessions, WebError
from rummy_env.web.store import Store
from rummy_env.web.views import table_view

CACHE_SECONDS = 10.0
MAX_ROWS = 500  # rows of each list answered, the most games first
MAX_GAMES = 100  # an account's own games listed, the latest first


def _blank() -> dict[str, Any]:
    return {"games": 0, "won": 0, "drawn": 0, "points": 0, "hands": 0, "hands_won": 0}


def _identity(seat: dict[str, Any]) -> str:
    if "agent" in seat:
        return str(seat["agent"])
    return str(seat["person"]) if seat.get("account") else "guest"


def standings(store: Store) -> dict[str, Any]:
    """``{"players": [...], "opponents": [...]}`` from the file (module docstring)."""
    if not store.path.exists():
        return {"players": [], "opponents": []}
    games = store.read("SELECT id, game, rules, seats, score FROM games WHERE ended IS NOT NULL")
    hands: dict[str, list[list[int]]] = defaultdict(list)
    for game_id, rewards in store.read("SELECT game_id, rewards FROM hands"):
        hands[game_id].append(json.loads(rewards))
    players: dict[tuple[str, str, str], dict[str, Any]] = defaultdict(_blank)
    against: dict[tuple[str, str, str, str], dict[str, Any]] = defaultdict(_blank)
    for game_id, game, rules, seats_json, score_json in games:
        seats = json.loads(seats_json)
        score = json.loads(score_json) if score_json else None
        points = list(score["points"]) if score and score.get("points") else None
        if points is None or len(points) != len(seats):
            continue
        best = max(points)
        leaders = sum(p == best for p in points)
        for seat, who in enumerate(seats):
            if "agent" in who or not who.get("account"):
                continue
            name = str(who["person"])
            won, drawn = points[seat] == best and leaders == 1, points[seat] == best and leaders > 1
            hands_won = sum(1 for r in hands[game_id] if len(r) == len(seats) and r[seat] > 0 and r[seat] == max(r))
            rows = [players[(name, game, rules)]]
            rows += [against[(name, game, rules, _identity(other))] for k, other in enumerate(seats) if k != seat]
            for row in rows:
                row["games"] += 1
                row["won"] += won
                row["drawn"] += drawn
                row["points"] += int(points[seat])
                row["hands"] += len(hands[game_id])
                row["hands_won"] += hands_won

    def listed(table: dict[tuple, dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
        rows = [dict(zip(keys, key), **row) for key, row in table.items()]
        rows.sort(key=lambda r: (-r["won"], -r["games"], -r["points"], r["name"]))
        return rows[:MAX_ROWS]

    return {"players": listed(players, ("name", "game", "rules")),
            "opponents": listed(against, ("name", "game", "rules", "opponent"))}


class Standings:
    """``standings`` of ``store``, kept for ``CACHE_SECONDS``."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self._lock = threading.Lock()
        self._kept: Optional[tuple[float, dict[str, Any]]] = None

    def get(self) -> dict[str, Any]:
        with self._lock:
            now = self.clock()
            if self._kept is None or now - self._kept[0] >= CACHE_SECONDS:
                self._kept = (now, standings(self.store))
            return self._kept[1]


def _seated(seats: list[dict[str, Any]], account: str) -> Optional[int]:
    """The seat ``account`` took at a table, or None."""
    return next((k for k, s in enumerate(seats) if s.get("account") and s.get("person") == account), None)


def _names(seats: list[dict[str, Any]]) -> list[str]:
    return [str(s["agent"]) if "agent" in s else str(s["person"]) for s in seats]


def games_of(store: Store, account: str) -> list[dict[str, Any]]:
    """The ended games ``account`` sat at, the latest first (at most ``MAX_GAMES``)."""
    if not store.path.exists():
        return []
    rows = store.read("SELECT id, game, rules, episode, seats, started, ended, score FROM games "
                      "WHERE ended IS NOT NULL ORDER BY ended DESC, started DESC")
    out = []
    for key, game, rules, episode, seats_json, started, ended, score_json in rows:
        seats = json.loads(seats_json)
        seat = _seated(seats, account)
        if seat is None:
            continue
        score = json.loads(score_json) if score_json else None
        out.append({"id": key, "game": game, "rules": rules, "episode": episode, "seat": seat, "names": _names(seats),
                    "points": score.get("points") if score else None, "started": started, "ended": ended})
        if len(out) == MAX_GAMES:
            break
    return out


def replay_of_stored(store: Store, account: str, key: Any) -> ReplayTable:
    """A replay of the ended game ``key``, one ``account`` sat at (a 404 otherwise, the same
    whether the game does not exist or is another's)."""
    if not isinstance(key, str) or len(key) > 100:
        raise WebError(400, f"game must be the id of one of your games (GET /api/account/games), got {str(key)[:40]!r}")
    rows = store.read("SELECT game, rules, episode, seats, score FROM games WHERE id = ? AND ended IS NOT NULL",
                      (key,)) if store.path.exists() else []
    seats = json.loads(rows[0][3]) if rows else []
    if not rows or _seated(seats, account) is None:
        raise WebError(404, f"no ended game {key!r} of yours: a replay is of a game you sat at, once it has ended")
    game_name, preset, episode, _, score_json = rows[0]
    hands = [json.loads(record) for (record,) in
             store.read("SELECT record FROM hands WHERE game_id = ? ORDER BY number", (key,))]
    game = get_game(game_name)
    try:
        rules = game.load_rules(preset)
        for hand in hands:
            replay_hand(hand, preset, game.name, len(seats))
    except (ValueError, TypeError, KeyError) as exc:
        raise WebError(422, f"game {key!r} cannot be replayed: {exc}") from None
    score = json.loads(score_json) if score_json else None
    final = {"title": "final points (stored)", "points": list(score["points"])} if score and score.get("points") \
        else None
    return ReplayTable(game, rules, preset, _names(seats), hands, final, episode)


def player_routes(store: Store, accounts: Any, sessions: Sessions, client_of: Callable[[Request], str]) -> list[Route]:
    """``GET /api/players`` (the board), and with accounts on ``GET /api/account/games``
    and ``POST /api/account/replays`` for the account the request is logged in as."""
    board = Standings(store)

    def account_of(request: Request) -> str:
        if accounts is None:
            raise WebError(404, "accounts are off on this server (rummy serve --accounts turns them on)")
        name = accounts.of(request)
        if name is None:
            raise WebError(401, "log in first: your games are your account's")
        return name

    async def players(request: Request) -> dict[str, Any]:
        return await run_in_threadpool(board.get)

    async def my_games(request: Request) -> dict[str, Any]:
        name = await run_in_threadpool(account_of, request)
        return {"name": name, "games": await run_in_threadpool(games_of, store, name)}

    async def my_replay(request: Request) -> dict[str, Any]:
        data = await body(request, {"game"})
        name = await run_in_threadpool(account_of, request)
        client = client_of(request)
        sessions.check_room(client)
        table = await run_in_threadpool(replay_of_stored, store, name, data.get("game"))
        key = sessions.add(table, client)
        return {"id": key, "table": await run_in_threadpool(table_view, table, list(range(table.num_players)))}

    return [
        Route("/api/players", api(players), methods=["GET"]),
        Route("/api/account/games", api(my_games), methods=["GET"]),
        Route("/api/account/replays", api(my_replay), methods=["POST"]),
    ]
