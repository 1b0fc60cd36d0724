"""The web app's outer wall: what every request must be before the app sees it, and the
security headers on every answer (an ASGI middleware around the Starlette app).

Why: every HTTP client is hostile, and the most likely one is another web page open in
the same browser. Such a page can send a "simple" cross-origin request (a ``text/plain``
POST, ``mode: "no-cors"``) without any preflight, and a DNS-rebinding page can even read
the answers, by making its own host name resolve to this machine. So:

- ``Host`` must name this server: a localhost name, the address it is bound to, or one the
  operator allowed (``rummy serve --allow-host``); a rebinding page's name is refused.
- ``Origin``, when a browser sends one, must be the server's own (``http://`` + the Host
  asked for) or one the operator allowed (``--allow-origin``).
- State-changing requests (POST, PUT, PATCH, DELETE) must say ``Content-Type:
  application/json``, which a cross-origin page cannot send without a preflight that this
  server never approves.
- A request body is at most ``max_body`` bytes: a larger ``Content-Length`` is refused
  before anything is read, and a body without one is read only up to the limit.
- Every answer carries a Content-Security-Policy with no inline script,
  ``X-Content-Type-Options``, ``X-Frame-Options``/``frame-ancestors`` and ``Referrer-Policy``.

A refusal is a JSON ``{"error": message}`` naming what was wrong and what is allowed.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Iterable

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")  # bound to every address: clients name the machine some other way
STATE_CHANGING = ("POST", "PUT", "PATCH", "DELETE")
MAX_BODY = 16_384  # bytes: every request body of the API is a small JSON object
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without its port: ``[::1]:8000`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


class Guard:
    """Wraps ``app``: requests are checked (module docstring) and answers get the headers.

    ``bound``: the address the server listens on; ``hosts`` and ``origins``: the ones the
    operator allowed besides this machine's names and the server's own origin.
    """

    def __init__(self, app: ASGIApp, bound: str = "127.0.0.1", hosts: Iterable[str] = (),
                 origins: Iterable[str] = (), max_body: int = MAX_BODY) -> None:
        self.app = app
        self.state = getattr(app, "state", None)  # the app's state (its sessions), as Starlette's own apps give it
        self.hosts = {h.lower() for h in LOCAL_HOSTS} | {host_name(h) for h in hosts}
        if bound.strip("[]").lower() not in WILDCARDS:
            self.hosts.add(bound.strip("[]").lower())
        self.origins = {o.strip().rstrip("/").lower() for o in origins}
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket: the app has none, and none would pass unchecked
            await send({"type": "websocket.close", "code": 1008})
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + HEADERS}
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refusal = self._refusal(scope["method"], headers)
        if refusal is None and scope["method"] in STATE_CHANGING:
            body, refusal = await self._read_body(receive, headers)
            if refusal is None:
                receive = self._replay(body, receive)
        if refusal is not None:
            status, message = refusal
            await _answer(send_with_headers, status, message)
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, method: str, headers: dict[str, str]) -> "tuple[int, str] | None":
        """Why the request's headers are refused (status, message), or None."""
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            allowed = ", ".join(sorted(self.hosts))
            return 400, (f"Host {host!r} is not served here; this server answers to {allowed} "
                         "(rummy serve --allow-host NAME adds a name)")
        origin = headers.get("origin")
        if origin is not None:
            own = {f"http://{host.lower()}", f"https://{host.lower()}"}
            if origin.strip().rstrip("/").lower() not in own | self.origins:
                return 403, (f"requests from the page at {origin!r} are refused: only this server's own pages "
                             "(rummy serve --allow-origin ORIGIN adds one)")
        if method in STATE_CHANGING:
            kind = headers.get("content-type", "").partition(";")[0].strip().lower()
            if kind != "application/json":
                return 415, (f"a {method} request must be sent as JSON (Content-Type: application/json), "
                             f"got {kind or 'none'!r}")
            length = headers.get("content-length")
            if length is not None and not (length.isascii() and length.isdigit()):
                return 400, f"Content-Length must be a whole number of bytes, got {length[:40]!r}"
            if length is not None and (len(length) > 15 or int(length) > self.max_body):  # no int() of 5,000 digits
                return 413, f"the request body is {length} bytes; at most {self.max_body}"
        return None

    async def _read_body(self, receive: Receive, headers: dict[str, str]) -> "tuple[bytes, tuple[int, str] | None]":
        """The request body, read only up to ``max_body`` bytes (a refusal past it)."""
        parts, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return b"", (400, "the client went away before its request was read")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return b"", (413, f"the request body is more than {self.max_body} bytes; at most {self.max_body}")
            parts.append(chunk)
            more = message.get("more_body", False)
        return b"".join(parts), None

    @staticmethod
    def _replay(body: bytes, receive: Receive) -> Receive:
        """A ``receive`` that gives the app the body already read, then what the client sends."""
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
