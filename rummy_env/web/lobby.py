"""The lobby: the people's tables the server holds, the task that plays each table's
agents, and the API of the tables (``table_routes``).

API (JSON, through ``rummy_env.web.guard`` like every request; a refusal is a 4xx or 503
``{"error": message}`` and changes nothing; ``token`` is a seat token, ``invite`` an
invitation, both from ``rummy_env.web.tables``):

- ``GET /api/tables``: the open tables (waiting for people, or being played): game, rules,
  seats taken, the agents seated;
- ``POST /api/tables`` ``{"game", "players", "rules", "episode", "seats": ["person" or an
  agent spec, per seat], "seat" (the creator's, a person seat), "name", "takeover"
  (seconds), "pace" (seconds), "stand_in" (the agent that plays an away person's seat),
  "turn_limit" (seconds a person has for a move before the stand-in plays it; 0: none)}``
  -> ``{"id", "seat", "token", "invites": [{"seat", "invite"}], "table"}``: the creator
  has joined their seat; the invitations are for the other person seats;
- ``POST /api/tables/{id}/join`` ``{"invite", "name"}`` -> ``{"seat", "token", "table"}``;
- ``GET /api/tables/{id}?token=T``: what seat T is sent (no token: a spectator's);
- ``GET /api/tables/{id}/events?token=T``: the same, live (server-sent events: ``table``
  after every change, ``gone`` when the table is dropped);
- ``POST /api/tables/{id}/ready`` ``{"token", "ready": true | false}`` (the game starts
  when every person is ready), ``/move`` ``{"token", "action"}``, ``/leave`` and
  ``/back`` ``{"token"}`` -> the seat's message;
- ``POST /api/tables/{id}/rematch`` ``{"token"}``, once the game is over -> ``{"id", "seat",
  "token", "table"}``: the first to ask opens a new table with the same settings and sits
  in their seat there; each other person who asks with their own seat's token sits in
  theirs (the old table's status names the new one: ``rematch``).

Limits: at most ``capacity`` tables played or waiting (503 beyond) and ``per_client`` made
by one client address (429); finished tables are kept for their pages (the last
``capacity``) but no longer count; a table nobody asked about for ``idle_seconds`` is
dropped; ``Streams`` bounds the live streams and ``RequestRate`` each client's requests.
Served beyond this machine without accounts (``refusal`` set), every table request is
refused, saying why. With accounts (``rummy_env.web.accounts``), opening a table and
joining one need a login, a seat's name is its account's, and a seat token acts only
with the login of the account that took the seat (a forwarded link or a token read off
an address is no use alone).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any, AsyncIterator, Callable, Optional, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from rummy_env.core.game import Game
from rummy_env.web.accounts import Accounts
from rummy_env.web.checks import api, body, integer, refused
from rummy_env.web.choices import AgentChoices
from rummy_env.web.events import Streams, table_stream
from rummy_env.web.limits import RequestRate
from rummy_env.web.sessions import Sessions, WebError
from rummy_env.web.store import Store
from rummy_env.web.tables import FIELDS, PeopleTable, new_people_table, rematch_of

LOG = logging.getLogger("rummy_env.web")
WAKE = 5.0  # seconds a table's task sleeps at most before looking again (a table dropped, a takeover due)


class Lobby:
    """The people's tables (module docstring for the limits)."""

    def __init__(self, store: Optional[Store] = None, capacity: int = 20, per_client: int = 5,
                 idle_seconds: float = 1800.0, streams: int = 200, streams_per_client: int = 30,
                 rate: float = 20.0, burst: int = 200, refusal: Optional[str] = None,
                 accounts: Optional[Accounts] = None) -> None:
        self.store = store
        self.accounts = accounts  # on: opening a table, taking a seat and acting for it need a login
        self.live = Sessions(capacity=capacity, idle_seconds=idle_seconds, per_client=per_client)
        self.done: "OrderedDict[str, PeopleTable]" = OrderedDict()
        self.runners: dict[str, asyncio.Task] = {}
        self.streams = Streams(streams, streams_per_client)
        self.rate = RequestRate(rate, burst)
        self.refusal = refusal
        self.stopping = False

    def get(self, key: str) -> PeopleTable:
        """The table ``key`` (played, waiting, or finished lately), or a 404."""
        if key in self.done:
            return self.done[key]
        try:
            table = self.live.get(key)
        except WebError:
            raise WebError(404, f"no table {key!r}: it does not exist, or it was dropped (a table nobody asks "
                                f"about for {self.live.idle_seconds / 60:g} minutes is)") from None
        assert isinstance(table, PeopleTable)
        return table

    def gone(self, key: str) -> Optional[str]:
        """Why the streams of table ``key`` end now, or None while they go on."""
        if self.stopping:
            return "the server is stopping: every finished hand is in its records"
        if key not in self.done and key not in self.live:
            return "this table is no longer held on the server"
        return None

    def stop(self) -> None:
        """End every live stream (in the event loop), so that a stopping server need not
        wait for the pages that hold them open."""
        self.stopping = True
        for table in [*self.live.tables(), *self.done.values()]:
            table.channel.notify()

    def add(self, table: PeopleTable, client: str) -> str:
        key = self.live.add(table, client)
        table.key = key
        table.store = self.store
        return key

    def check_room(self, client: str) -> None:
        """Refuse a new table (503 for the server, 429 for ``client``) when none fits now."""
        try:
            self.live.check_room(client)
        except WebError as exc:
            minutes = f"{self.live.idle_seconds / 60:g}"
            if exc.status == 429:
                raise WebError(429, f"you have {self.live.per_client} tables open on this server (its limit for one "
                                    f"client): finish one, or wait until one has been idle for {minutes} minutes") from None
            raise WebError(503, f"the server has {self.live.capacity} tables open (its limit): try again when one has "
                                f"finished or has been idle for {minutes} minutes") from None

    def listing(self) -> list[dict[str, Any]]:
        """The open tables: waiting for people, or being played."""
        self.live.sweep()
        return [t.listing() for t in self.live.tables() if isinstance(t, PeopleTable) and not t.over]

    def start(self, key: str, table: PeopleTable) -> None:
        """Play the table's agents from now on (a task of the running event loop)."""
        if key not in self.runners:
            self.runners[key] = asyncio.get_running_loop().create_task(self._run(key, table))

    async def _run(self, key: str, table: PeopleTable) -> None:
        """The agents' moves, each when ``agent_due_in`` says, until the game is over or the
        table is dropped; a move that fails stops the table, its reason shown on it."""
        try:
            while key in self.live and not table.over and table.failure is None:
                seen = table.channel.version
                due = table.agent_due_in()
                if due is None or due > 0:
                    await table.channel.wait(seen, WAKE if due is None else min(due, WAKE))
                    continue
                async with table.lock:
                    if table.agent_due_in() == 0:
                        try:
                            await run_in_threadpool(table.advance)
                        except Exception as exc:
                            LOG.exception("table %s: an agent's move failed", key)
                            table.failure = f"an agent's move failed: {type(exc).__name__}: {exc}"
                table.channel.notify()
                if key in self.live:
                    self.live.get(key)  # a table being played is not idle
            if table.over and key in self.live:
                self.live.remove(key)
                self.done[key] = table
                while len(self.done) > self.live.capacity:
                    self.done.popitem(last=False)
        finally:
            self.runners.pop(key, None)

    async def close(self) -> None:
        """Stop every table's task (the server is stopping)."""
        for task in list(self.runners.values()):
            task.cancel()
        await asyncio.gather(*self.runners.values(), return_exceptions=True)
        if self.store is not None:
            self.store.close()


class LiveStream(StreamingResponse):
    """A live stream's answer: ``opened()`` when it starts, ``closed()`` when it ends however
    it ends (the page closed before the first event, the server stopping), so the count of
    a seat's open pages and of the streams stays exact."""

    def __init__(self, events: AsyncIterator[str], opened: Callable[[], None], closed: Callable[[], None]) -> None:
        super().__init__(events, media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.opened = opened
        self.closed = closed

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.opened()
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.closed()


def table_routes(lobby: Lobby, choices: AgentChoices, playable: Callable[[], Sequence[Game]],
                 client_of: Callable[[Request], str]) -> list[Route]:
    """The routes of the people's tables' API (module docstring)."""

    def checked(request: Request) -> str:
        """The client, once the tables are on here and its request is within its rate."""
        if lobby.refusal is not None:
            raise WebError(403, lobby.refusal)
        client = client_of(request)
        lobby.rate.check(client)
        return client

    async def account_of(request: Request, needed: bool) -> Optional[str]:
        """The account the request is logged in as (None with accounts off); ``needed``: a
        401 when accounts are on and it is logged in as none."""
        if lobby.accounts is None:
            return None
        account = await run_in_threadpool(lobby.accounts.of, request)
        if account is None and needed:
            raise WebError(401, "log in first: this server's tables are played by accounts (log in or sign up in "
                                "the lobby)")
        return account

    async def message(table: PeopleTable, seat: Optional[int]) -> dict[str, Any]:
        async with table.lock:
            return await run_in_threadpool(table.message, seat)

    async def viewer(request: Request, table: PeopleTable) -> Optional[int]:
        token = request.query_params.get("token")
        return None if token is None else table.seat_of(token, await account_of(request, False))

    async def listing(request: Request) -> dict[str, Any]:
        checked(request)
        return {"tables": lobby.listing(), "capacity": lobby.live.capacity}

    async def create(request: Request) -> dict[str, Any]:
        client = checked(request)
        data = await body(request, FIELDS)
        account = await account_of(request, True)
        lobby.check_room(client)  # before any agent is made
        table, seat = await run_in_threadpool(new_people_table, data, choices, playable(), account)
        key = lobby.add(table, client)
        invites = [{"seat": k, "invite": s.invite} for k, s in enumerate(table.seats) if s.invite is not None]
        return {"id": key, "seat": seat, "token": table.seats[seat].token, "invites": invites,
                "table": await message(table, seat)}

    async def show(request: Request) -> dict[str, Any]:
        checked(request)
        table = lobby.get(request.path_params["id"])
        return await message(table, await viewer(request, table))

    async def join(request: Request) -> dict[str, Any]:
        checked(request)
        data = await body(request, {"invite", "name"})
        account = await account_of(request, True)
        table = lobby.get(request.path_params["id"])
        async with table.lock:
            seat, token = table.join(data.get("invite"), data.get("name"), account)
        table.channel.notify()
        return {"seat": seat, "token": token, "table": await message(table, seat)}

    def seat_action(fields: set[str], work: Callable[[PeopleTable, int, dict[str, Any]], Any],
                    thread: bool = False) -> Callable:
        """A request of one seat (``token``): ``work`` on the table under its lock (in a
        worker thread when it plays a move or writes the records: never on the event loop,
        where every table's streams would wait), everyone told, the seat's message answered."""
        async def handle(request: Request) -> dict[str, Any]:
            checked(request)
            data = await body(request, fields | {"token"})
            account = await account_of(request, False)
            table = lobby.get(request.path_params["id"])
            async with table.lock:
                seat = table.seat_of(data.get("token"), account)
                result = await run_in_threadpool(work, table, seat, data) if thread else work(table, seat, data)
            if result is True:  # the game starts
                lobby.start(request.path_params["id"], table)
            table.channel.notify()
            return await message(table, seat)
        return handle

    async def rematch(request: Request) -> dict[str, Any]:
        client = checked(request)
        data = await body(request, {"token"})
        account = await account_of(request, False)
        key = request.path_params["id"]
        table = lobby.get(key)
        async with table.lock:
            seat = table.seat_of(data.get("token"), account)
            if table.rematch is None:
                lobby.check_room(client)  # before any agent is made
                made = await run_in_threadpool(rematch_of, table, seat, choices, playable())
                new_key = lobby.add(made, client)
                table.rematch = new_key
                table.rematch_seats = {k: s.invite for k, s in enumerate(made.seats) if s.invite is not None}
                table.rematch_seats[seat] = made.seats[seat].token
                token = made.seats[seat].token
            else:
                made = lobby.get(table.rematch)
                async with made.lock:
                    token = table.join_rematch(seat, made)
                made.channel.notify()
        table.channel.notify()
        return {"id": table.rematch, "seat": seat, "token": token, "table": await message(made, seat)}

    def ready(table: PeopleTable, seat: int, data: dict[str, Any]) -> bool:
        return table.set_ready(seat, data.get("ready", True))  # the game's start is written to the records

    def move(table: PeopleTable, seat: int, data: dict[str, Any]) -> None:
        action = integer(data, "action", 0, table.game.num_actions - 1, required=True)
        assert action is not None
        table.play(action, seat)

    async def events(request: Request) -> Response:
        try:
            client = checked(request)
            key = request.path_params["id"]
            table = lobby.get(key)
            seat = await viewer(request, table)
            lobby.streams.enter(client)
        except WebError as exc:
            return refused(exc)

        def opened() -> None:
            table.page_opened(seat)
            table.channel.notify()

        def closed() -> None:
            lobby.streams.leave(client)
            table.page_closed(seat)
            table.channel.notify()

        return LiveStream(table_stream(table.channel, lambda: message(table, seat), lambda: lobby.gone(key)),
                          opened, closed)

    return [
        Route("/api/tables", api(listing), methods=["GET"]),
        Route("/api/tables", api(create), methods=["POST"]),
        Route("/api/tables/{id}", api(show), methods=["GET"]),
        Route("/api/tables/{id}/events", events, methods=["GET"]),
        Route("/api/tables/{id}/join", api(join), methods=["POST"]),
        Route("/api/tables/{id}/ready", api(seat_action({"ready"}, ready, thread=True)), methods=["POST"]),
        Route("/api/tables/{id}/move", api(seat_action({"action"}, move, thread=True)), methods=["POST"]),
        Route("/api/tables/{id}/leave", api(seat_action(set(), lambda t, s, d: t.leave(s))), methods=["POST"]),
        Route("/api/tables/{id}/back", api(seat_action(set(), lambda t, s, d: t.back(s))), methods=["POST"]),
        Route("/api/tables/{id}/rematch", api(rematch), methods=["POST"]),
    ]
