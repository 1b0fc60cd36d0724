"""Live updates of a people's table: server-sent events (``text/event-stream``), one
stream per open page, each carrying what its own seat may see after every change.

Why server-sent events: a table changes on the server (an agent's move, another person's
move, someone arriving or leaving), and each page must hear of it at once without asking
again and again. A stream is one long GET answered line by line, which the browser's
``EventSource`` reopens by itself after a network failure; it passes the same guard as
every request (``rummy_env.web.guard``), and needs nothing beyond Starlette.

A ``Channel`` counts a table's changes (``version``) and wakes whoever waits for the next
one; ``Streams`` bounds how many streams are open, on the server and from one client; a
stream (``table_stream``) sends the seat's message at once, then after every change, and
a comment line every ``KEEPALIVE`` seconds so that idle proxies keep it open.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Awaitable, Callable, Optional

from rummy_env.web.sessions import WebError

KEEPALIVE = 15.0  # seconds between comment lines on a quiet stream


class Channel:
    """A table's changes: ``notify`` after each (in the event loop), ``wait`` for the next."""

    def __init__(self) -> None:
        self.version = 0
        self._changed: Optional[asyncio.Event] = None

    def notify(self) -> None:
        self.version += 1
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def wait(self, seen: int, timeout: float) -> bool:
        """Wait until the version is past ``seen`` (True) or ``timeout`` seconds pass (False)."""
        if self.version != seen:
            return True
        if self._changed is None:
            self._changed = asyncio.Event()
        changed = self._changed
        try:
            await asyncio.wait_for(changed.wait(), timeout)
        except asyncio.TimeoutError:
            return self.version != seen
        return True


class Streams:
    """How many streams are open: at most ``capacity`` on the server (503 beyond) and
    ``per_client`` from one client address (429 beyond)."""

    def __init__(self, capacity: int, per_client: int) -> None:
        if capacity < 1 or per_client < 1:
            raise ValueError(f"the stream limits must be >= 1, got {capacity} and {per_client}")
        self.capacity = capacity
        self.per_client = per_client
        self.open: dict[str, int] = {}

    def __len__(self) -> int:
        return sum(self.open.values())

    def enter(self, client: str) -> None:
        if len(self) >= self.capacity:
            raise WebError(503, f"the server has {self.capacity} live streams open (its limit): close a table's page "
                                "or try again later")
        if self.open.get(client, 0) >= self.per_client:
            raise WebError(429, f"you have {self.per_client} live streams open on this server (its limit for one "
                                "client): close a table's page first")
        self.open[client] = self.open.get(client, 0) + 1

    def leave(self, client: str) -> None:
        left = self.open.get(client, 0) - 1
        if left > 0:
            self.open[client] = left
        else:
            self.open.pop(client, None)


def event(name: str, data: Any, version: Optional[int] = None) -> str:
    """One server-sent event: its id (the table's version), its name and its JSON data."""
    head = f"id: {version}\n" if version is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def table_stream(channel: Channel, message: Callable[[], Awaitable[dict[str, Any]]],
                       gone: Callable[[], Optional[str]], keepalive: float = KEEPALIVE) -> AsyncIterator[str]:
    """The events of one seat's stream: ``table`` with ``message()`` now and after every
    change, comments while nothing changes, and ``gone`` (then the end) once ``gone()``
    says why the stream ends (the table was dropped, the server is stopping)."""
    seen = None
    while True:
        reason = gone()
        if reason is not None:
            yield event("gone", {"error": reason})
            return
        if channel.version != seen:
            seen = channel.version
            yield event("table", await message(), seen)
        elif not await channel.wait(seen, keepalive):
            yield ": keepalive\n\n"
