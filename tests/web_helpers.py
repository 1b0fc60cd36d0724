"""What the web app's tests share: an app with a small recorded tournament, and a person
playing through the HTTP API (the app's test client, or an HTTP client on a real server)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import numpy as np

BASE = "http://localhost"  # the test client's address: a name the server answers to (rummy_env.web.guard)
JSON = {"Content-Type": "application/json"}  # what every state-changing request must say it sends


def error(response: Any, status: int, *words: str) -> str:
    """The error message of ``response``, checked to have ``status`` and to name ``words``."""
    assert response.status_code == status, (response.status_code, response.text)
    message = response.json()["error"]
    for word in words:
        assert word in message, (word, message)
    return message


def small_tournament(folder: Path, agents: tuple[str, ...] = ("random", "heuristic"), deals: int = 2,
                     mode: str = "hands") -> Path:
    """A Gin Rummy tournament of a few deals recorded with its moves, written under ``folder``."""
    from rummy_env.eval.config import load_config
    from rummy_env.eval.tournament import run

    run(load_config(None, agents=list(agents), out=str(folder), deals=deals, seed=3, mode=mode), progress=False)
    return folder


def play_through(client: Any, table: dict[str, Any], game_id: str, rng: np.random.Generator,
                 on_table: Optional[Callable[[dict[str, Any]], None]] = None, limit: int = 3000,
                 until: Callable[[dict[str, Any]], bool] = lambda table: table["over"]) -> dict[str, Any]:
    """Play a game to its end (or until a table answered is ``until``, e.g. the first hand
    over) through the API: the person's moves drawn at random among the moves offered, the
    agents' moves asked for with ``advance``; every answer must be a table (no error).
    ``on_table`` sees each table answered. Returns the last one."""
    for _ in range(limit):
        if on_table is not None:
            on_table(table)
        if until(table):
            return table
        if table["to_move"] == table["you"]:
            assert table["moves"], "the person is to move: moves must be offered"
            move = table["moves"][int(rng.integers(len(table["moves"])))]
            response = client.post(f"/api/games/{game_id}/move", json={"action": move["id"]})
        else:
            assert table["moves"] == [], "moves are offered only on the person's turn"
            response = client.post(f"/api/games/{game_id}/advance", json={})
        assert response.status_code == 200, response.text
        table = response.json()
    raise AssertionError(f"the game did not end (or reach what was asked) in {limit} requests")


@contextlib.contextmanager
def running_server(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread on a free port of 127.0.0.1; yields its address."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        time.sleep(0.02)
    else:
        raise RuntimeError("the test server did not start in 10 seconds")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


CHROMIUM = os.environ.get("RUMMY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def browser_missing() -> Optional[str]:
    """Why a browser test cannot run here (no playwright package, no Chromium), or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; or set RUMMY_CHROMIUM)"
    return None


def wait_until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Wait until the JavaScript ``expression`` is true on ``page``. Polled from here with
    ``page.evaluate`` (playwright's ``wait_for_function`` evaluates a string with ``eval``,
    which the pages' Content-Security-Policy forbids, as it should)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {expression}")
        time.sleep(0.03)


@contextlib.contextmanager
def chromium_page(width: int = 1100, height: int = 860, errors_expected: bool = False) -> Iterator[Any]:
    """A headless Chromium page (Debian's chromium driven by playwright); JavaScript errors
    on the page fail the test, unless ``errors_expected`` (an attacker's page, whose
    requests the browser blocks)."""
    with chromium_pages(1, width, height, errors_expected) as (page,):
        yield page


VALUES = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


def card_value(text: str) -> int:
    return VALUES.get(text[0], int(text[0]) if text[0].isdigit() else 0)


def click_a_move(page: Any) -> None:
    """A move as a person would make it, by clicking: knock when a knock is offered, else
    draw from the stock (or pass on the upcard), else discard the highest deadwood card."""
    for selector in ("button.legal[data-group=knock]", ".stock button.legal", "button.legal[data-group=pass]"):
        found = page.locator(selector)
        if found.count():
            found.first.click()
            return
    deadwood = page.locator(".hand .group[data-label=deadwood] button.legal")
    cards = deadwood if deadwood.count() else page.locator(".hand button.legal")
    assert cards.count(), "it is the person's turn, so some card or button must be clickable"
    values = [card_value(cards.nth(k).get_attribute("data-card")) for k in range(cards.count())]
    cards.nth(values.index(max(values))).click()


class EventStream:
    """A live stream of the app (``GET PATH``, server-sent events) opened in the event loop
    of a running ``TestClient`` (whose own requests wait for the whole answer, which a
    stream never ends): the app is called as a server would call it, its answer read event
    by event from this thread, as a client at ``address`` would. ``close()`` disconnects it
    as a closed page would."""

    def __init__(self, client: Any, path: str, address: str = "127.0.0.1") -> None:
        import queue
        from urllib.parse import urlsplit

        self.client = client
        self.status: Optional[int] = None
        self.events: "queue.Queue[tuple[str, Any]]" = queue.Queue()
        self.received: list[tuple[str, Any]] = []
        self._gone: Any = None
        parts = urlsplit(path)
        self.scope = {"type": "http", "method": "GET", "path": parts.path, "raw_path": parts.path.encode(),
                      "query_string": parts.query.encode(), "root_path": "", "scheme": "http", "http_version": "1.1",
                      "headers": [(b"host", b"localhost")], "client": (address, 5000),
                      "server": ("localhost", 80)}
        self.done = client.portal.start_task_soon(self._run)
        deadline = time.monotonic() + 30
        while self.status is None and not self.done.done():
            assert time.monotonic() < deadline, "the stream did not answer in 30 s"
            time.sleep(0.005)

    async def _run(self) -> None:
        import asyncio
        import json as json_

        gone = self._gone = asyncio.Event()
        asked = False
        buffer = ""

        async def receive() -> dict:
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            nonlocal buffer
            if message["type"] == "http.response.start":
                self.status = message["status"]
            elif message["type"] == "http.response.body":
                buffer += message.get("body", b"").decode()
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
                    if "event" in fields:
                        self.events.put((fields["event"], json_.loads(fields["data"])))

        await self.client.app(self.scope, receive, send)

    def next(self, timeout: float = 30.0) -> tuple[str, Any]:
        """The next event (its name and data), waiting at most ``timeout`` seconds."""
        import queue

        try:
            item = self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event in {timeout:g} s") from None
        self.received.append(item)
        return item

    def drain(self) -> list[tuple[str, Any]]:
        """The events arrived so far and not yet read."""
        out = []
        while not self.events.empty():
            out.append(self.next())
        return out

    def close(self) -> None:
        if self._gone is not None:
            self.client.portal.call(self._gone.set)
        self.done.result(timeout=30)


@contextlib.contextmanager
def chromium_pages(count: int, width: int = 1100, height: int = 860, errors_expected: bool = False) -> Iterator[list[Any]]:
    """``count`` headless Chromium pages, each in a browser context of its own (its own
    storage and cookies: as many people on as many browsers); JavaScript errors on any
    page fail the test, unless ``errors_expected``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            errors: list[str] = []
            pages = []
            for _ in range(count):
                page = browser.new_context(viewport={"width": width, "height": height}).new_page()
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
                pages.append(page)
            yield pages
            assert errors_expected or not errors, f"errors on the pages: {errors}"
        finally:
            browser.close()
