"""The screenshots of docs/web.md, taken the way the browser test plays: the app on a free
port of 127.0.0.1, headless Chromium driven by playwright.

    python tests/web_screenshots.py [docs/images]

Writes web-play.png (a hand of Gin Rummy against heuristic, the person to discard),
web-showdown.png (that hand's showdown), web-watch.png (three heuristic agents at
Basic Rummy, every hand shown), web-replay.png (a tournament game replayed) and
web-leaderboard.png (that tournament's leaderboard).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent / "web")]
from test_web_browser import click_a_move  # noqa: E402
from web_helpers import chromium_page, running_server, small_tournament, wait_until  # noqa: E402

SIZE = (1000, 760)


def wait_for(page, states: str) -> None:
    wait_until(page, f"{states}.includes(document.getElementById('table').dataset.state)")


def after(page, renders: int) -> None:
    """Wait until the table has been drawn ``renders`` times, or its game is over."""
    wait_until(page, f"Number(document.getElementById('table').dataset.version) >= {renders} "
                           "|| document.getElementById('table').dataset.state === 'over'", timeout=120_000)


def paused_shot(page, renders: int, path: Path) -> None:
    """On the table page being opened (watching or a replay): play at speed 250, pause
    after ``renders`` drawings of the table (or at the game's end), then screenshot it."""
    page.wait_for_url("**/table/*")
    page.select_option("#speed", "250")
    after(page, renders)
    page.click("#pause")
    page.wait_for_timeout(800)
    page.screenshot(path=str(path))


def moved(page, version: str) -> None:
    wait_until(page, f"document.getElementById('table').dataset.version !== '{version}'")


def main() -> None:
    from rummy_env.web.app import create_app

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        small_tournament(Path(tmp) / "demo", agents=("random", "simple", "heuristic"), deals=2)
        app = create_app(records=tmp)
        with running_server(app) as url, chromium_page(*SIZE) as page:
            # play: a hand of Gin Rummy against heuristic (a secret deal), shown when the person holds a meld and must discard
            page.goto(url + "/")
            page.wait_for_selector("#play-game option[value=gin]", state="attached")
            page.select_option("#play-agent-0", "heuristic")
            page.select_option("#play-seat", "0")
            page.click("#play-start")
            page.wait_for_url("**/table/*")
            page.goto(page.url + "?delay=30")
            shot = False
            while True:
                wait_for(page, "['yours', 'over']")
                table = page.locator("#table")
                if table.get_attribute("data-state") == "over":
                    break
                melded = page.locator(".hand .group[data-label=run], .hand .group[data-label=set]").count()
                if not shot and melded and page.locator(".hand button.legal").count():
                    page.screenshot(path=str(out / "web-play.png"))
                    shot = True
                version = table.get_attribute("data-version")
                click_a_move(page)
                moved(page, version)
            page.locator("#showdown").screenshot(path=str(out / "web-showdown.png"))

            # watch: Basic Rummy, three agents, every hand shown, paused after a few moves
            page.goto(url + "/")
            page.wait_for_selector("#watch-game option[value=basic]", state="attached")
            page.select_option("#watch-game", "basic")
            page.select_option("#watch-players", "3")
            for seat in range(3):
                page.select_option(f"#watch-agent-{seat}", "heuristic")
            page.fill("#watch-seed", "3")
            page.click("#watch-start")
            paused_shot(page, 50, out / "web-watch.png")

            # records: the tournament's leaderboard, then one of its games replayed
            page.goto(url + "/leaderboard?folder=demo")
            page.wait_for_selector("#games button[data-key]")
            page.wait_for_selector("#plots img")
            page.wait_for_timeout(500)
            page.screenshot(path=str(out / "web-leaderboard.png"))
            page.locator("#games button[data-key]").nth(9).click()
            paused_shot(page, 12, out / "web-replay.png")
    for name in ("web-play", "web-showdown", "web-watch", "web-leaderboard", "web-replay"):
        print(f"{out / name}.png: {(out / f'{name}.png').stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
