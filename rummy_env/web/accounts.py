"""Accounts for the people's tables: a name and a password per person, kept in the tables'
SQLite file, so that the tables can be served beyond this machine (``rummy serve
--accounts``).

Why accounts: without them a seat's link is its only key, which is fine on one machine
but not on a network, where a link is easily forwarded or read over a shoulder. With
accounts a person logs in once per browser; a table is opened and a seat taken by an
account, the seat's name is the account's, and a seat token acts only together with the
login of the account that took the seat.

How it is kept safe:

- **Passwords** are hashed with argon2id (``argon2-cffi``, its default costs: about a
  tenth of a second and 64 MiB a hash); the file holds the hash only. At most
  ``hashing`` hashes are computed at once and at most ``queue`` logins wait for one
  (503 beyond), so a flood of logins cannot take the server's memory or every thread.
- **Sign-ups** are bounded: ``signups`` an hour from one client address, ``max_accounts``
  in all.
- **Guessing** is bounded: after ``failures`` wrong passwords for one name from one client
  address, or ``failures * 4`` from one address for any names, within ``window``
  seconds, that client's logins are refused (429, saying when to try again) before any
  hash is computed. A name that does not exist is checked against a dummy hash, so the
  time of the answer does not tell whether it does.
- **Sessions**: a login sets a cookie holding a 256-bit random token (``HttpOnly``,
  ``SameSite=Strict``, ``Secure`` when the page came over HTTPS); the file keeps only the
  token's SHA-256, so reading the file gives no one a login. A login lasts
  ``session_days``; logging out ends it; an account keeps at most ``MAX_LOGINS`` (its
  oldest are ended).
- Every request that changes something is JSON from the server's own origin (the guard,
  ``rummy_env.web.guard``), so another site cannot log a browser in or out.

API: ``GET /api/account`` -> ``{"accounts": bool, "name": str or null}``;
``POST /api/account/signup`` and ``/login`` ``{"name", "password"}`` -> ``{"name"}`` (and
the cookie); ``POST /api/account/logout`` ``{}`` -> ``{"name": null}``.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import defaultdict, deque
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Optional

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rummy_env.web import EXTRA
from rummy_env.web.checks import api, body
from rummy_env.web.sessions import WebError
from rummy_env.web.store import Store

COOKIE = "rummy_login"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{1,23}")  # 2 to 24 letters, digits, _ . - (first a letter or digit)
MIN_PASSWORD, MAX_PASSWORD = 8, 128  # characters
MAX_LOGINS = 20  # sessions kept per account


def account_name(value: Any) -> str:
    """A valid account name, or a 400 saying what one is."""
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise WebError(400, "name must be 2 to 24 letters, digits, '_', '.' or '-', beginning with a letter or digit, "
                            f"got {str(value)[:40]!r}")
    return value


def password_of(value: Any, name: str) -> str:
    """A password that may be set, or a 400 saying what is allowed."""
    if not isinstance(value, str) or not MIN_PASSWORD <= len(value) <= MAX_PASSWORD:
        got = f"{len(value)} characters" if isinstance(value, str) else type(value).__name__
        raise WebError(400, f"password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters, got {got}")
    if value.casefold() == name.casefold():
        raise WebError(400, "password must not be the account's name")
    return value


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _when(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


class Recent:
    """Events (``what``: wrong passwords, accounts made) per (client, name) and per client
    within ``window`` seconds, and the refusal once there were too many."""

    def __init__(self, what: str, per_name: int, per_client: int, window: float, clock: Callable[[], float]) -> None:
        self.what, self.per_name, self.per_client, self.window, self.clock = what, per_name, per_client, window, clock
        self._seen: "defaultdict[tuple[str, str], deque[float]]" = defaultdict(deque)
        self._lock = threading.Lock()

    def _recent(self, key: tuple[str, str], now: float) -> "deque[float]":
        times = self._seen[key]
        while times and now - times[0] >= self.window:
            times.popleft()
        if not times:
            del self._seen[key]
            return deque()
        return times

    def check(self, client: str, name: str) -> None:
        """Refuse (429) a client that failed too often lately, for this name or for any."""
        now = self.clock()
        with self._lock:
            for key, most in (((client, name.casefold()), self.per_name), ((client, ""), self.per_client)):
                times = self._recent(key, now)
                if len(times) >= most:
                    wait = self.window - (now - times[0])
                    later = f"{wait / 60:.0f} minutes" if wait >= 60 else f"{max(wait, 1):.0f} seconds"
                    raise WebError(429, f"too many {self.what} from this address lately ({most} within "
                                        f"{self.window / 60:g} minutes): try again in {later}")

    def count(self, client: str, name: str) -> None:
        now = self.clock()
        with self._lock:
            for key in {(client, name.casefold()), (client, "")}:
                self._seen[key].append(now)
            if len(self._seen) > 10_000:  # forget the quiet ones: memory bounded by recent clients
                for key in list(self._seen):
                    self._recent(key, now)


class Accounts:
    """The accounts in ``store`` (module docstring). ``hasher``: an argon2-cffi
    ``PasswordHasher`` (its defaults when None; tests pass a cheaper one)."""

    def __init__(self, store: Store, hasher: Any = None, failures: int = 5, window: float = 900.0, hashing: int = 2,
                 queue: int = 16, session_days: float = 30.0, signups: int = 5, max_accounts: int = 10_000,
                 clock: Callable[[], float] = time.time) -> None:
        try:
            import argon2
        except ImportError:
            raise ImportError(f"accounts need argon2-cffi (the web extra): {EXTRA}") from None
        self.store = store
        self.hasher = hasher if hasher is not None else argon2.PasswordHasher()
        self._mismatch = argon2.exceptions.VerificationError
        self._invalid = argon2.exceptions.InvalidHashError
        self.failures = Recent("wrong passwords", failures, failures * 4, window, clock)
        self.signups = Recent("accounts made", signups, signups, 3600.0, clock)
        self.max_accounts = max_accounts
        self.session = timedelta(days=session_days)
        self.clock = clock
        self._hashing = threading.BoundedSemaphore(hashing)
        self._slots = threading.BoundedSemaphore(hashing + queue)  # hashing or waiting to
        self._dummy = self.hasher.hash(secrets.token_urlsafe(16))  # what a name that does not exist is checked against

    # ------------------------------------------------------------------ hashing, bounded

    def _hash_work(self, work: Callable[[], Any]) -> Any:
        """``work`` (a hash or a check) once a hashing slot is free; a 503 when too many wait."""
        if not self._slots.acquire(blocking=False):
            raise WebError(503, "the server is busy checking passwords: try again in a few seconds")
        try:
            with self._hashing:
                return work()
        finally:
            self._slots.release()

    def _verify(self, stored: str, password: str) -> bool:
        def check() -> bool:
            try:
                return bool(self.hasher.verify(stored, password))
            except (self._mismatch, self._invalid):
                return False
        return self._hash_work(check)

    # ------------------------------------------------------------------ accounts and logins

    def sign_up(self, name: Any, password: Any, client: str) -> str:
        """A new account, logged in: its session token. One client address makes at most
        ``signups`` an hour, the server holds at most ``max_accounts``."""
        name = account_name(name)
        password = password_of(password, name)
        self.signups.check(client, "")
        if self.store.read("SELECT 1 FROM accounts WHERE folded = ?", (name.casefold(),)):
            raise WebError(409, f"the name {name!r} is taken (names differ by more than case): choose another")
        if self.store.read("SELECT count(*) FROM accounts")[0][0] >= self.max_accounts:
            raise WebError(503, f"this server holds {self.max_accounts} accounts, its limit: no more can be made")
        self.signups.count(client, "")
        hashed = self._hash_work(lambda: self.hasher.hash(password))
        try:
            self.store.write("INSERT INTO accounts (name, folded, hash, created) VALUES (?, ?, ?, ?)",
                             (name, name.casefold(), hashed, _when(self._now())))
        except Exception as exc:  # two sign-ups of one name at once: the second meets the UNIQUE constraint
            if "UNIQUE" in str(exc):
                raise WebError(409, f"the name {name!r} is taken: choose another") from None
            raise
        return self._session(name)

    def log_in(self, name: Any, password: Any, client: str) -> tuple[str, str]:
        """(the account's name as written, a new session token), or a 401 / 429."""
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD \
                or len(name) > 64:
            raise WebError(400, f"name and password must be text (a password at most {MAX_PASSWORD} characters)")
        self.failures.check(client, name)
        rows = self.store.read("SELECT name, hash FROM accounts WHERE folded = ?", (name.casefold(),))
        stored = rows[0][1] if rows else self._dummy
        if not self._verify(stored, password) or not rows:
            self.failures.count(client, name)
            raise WebError(401, "wrong name or password")
        return rows[0][0], self._session(rows[0][0])

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), timezone.utc)

    def _session(self, name: str) -> str:
        token = secrets.token_urlsafe(32)
        now = self._now()
        self.store.write("INSERT INTO logins (digest, name, created, expires) VALUES (?, ?, ?, ?)",
                         (digest(token), name, _when(now), _when(now + self.session)))
        self.store.write("DELETE FROM logins WHERE name = ? AND digest NOT IN (SELECT digest FROM logins WHERE "
                         "name = ? ORDER BY created DESC, rowid DESC LIMIT ?)", (name, name, MAX_LOGINS))
        return token

    def who(self, token: Optional[str]) -> Optional[str]:
        """The account logged in with ``token`` (None: none, or the login expired)."""
        if not token or len(token) > 100:
            return None
        rows = self.store.read("SELECT name, expires FROM logins WHERE digest = ?", (digest(token),))
        if not rows or rows[0][1] <= _when(self._now()):
            return None
        return rows[0][0]

    def log_out(self, token: Optional[str]) -> None:
        if token and len(token) <= 100:
            self.store.write("DELETE FROM logins WHERE digest = ?", (digest(token),))

    def of(self, request: Request) -> Optional[str]:
        """The account the request's browser is logged in as."""
        return self.who(request.cookies.get(COOKIE))


def account_routes(accounts: Optional[Accounts], client_of: Callable[[Request], str]) -> list[Route]:
    """The routes of the module docstring's API; without accounts, only ``GET
    /api/account`` (saying they are off) and a 404 naming ``--accounts`` for the rest."""

    def off() -> WebError:
        return WebError(404, "accounts are off on this server (rummy serve --accounts turns them on)")

    def answer(request: Request, name: Optional[str], token: Optional[str]) -> Response:
        response = JSONResponse({"accounts": True, "name": name})
        if token is None:
            response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
        else:
            assert accounts is not None
            response.set_cookie(COOKIE, token, max_age=int(accounts.session.total_seconds()), path="/",
                                httponly=True, samesite="strict", secure=request.url.scheme == "https")
        return response

    async def me(request: Request) -> dict[str, Any]:
        if accounts is None:
            return {"accounts": False, "name": None}
        return {"accounts": True, "name": await run_in_threadpool(accounts.of, request)}

    async def sign_up(request: Request) -> Response:
        if accounts is None:
            raise off()
        data = await body(request, {"name", "password"})
        token = await run_in_threadpool(accounts.sign_up, data.get("name"), data.get("password"), client_of(request))
        return answer(request, data["name"], token)

    async def log_in(request: Request) -> Response:
        if accounts is None:
            raise off()
        data = await body(request, {"name", "password"})
        name, token = await run_in_threadpool(accounts.log_in, data.get("name"), data.get("password"),
                                              client_of(request))
        return answer(request, name, token)

    async def log_out(request: Request) -> Response:
        if accounts is None:
            raise off()
        await body(request, set())
        await run_in_threadpool(accounts.log_out, request.cookies.get(COOKIE))
        return answer(request, None, None)

    return [
        Route("/api/account", api(me), methods=["GET"]),
        Route("/api/account/signup", api(sign_up), methods=["POST"]),
        Route("/api/account/login", api(log_in), methods=["POST"]),
        Route("/api/account/logout", api(log_out), methods=["POST"]),
    ]
