"""The web app in a real browser: headless Chromium (Debian's ``chromium``, driven by
playwright) opens the start page, starts a hand of Gin Rummy against ``random`` and plays
it to the end by clicking the highlighted cards and buttons, then checks the showdown and
the score against the server's record of the game. The last screen is kept as an artifact
(``artifacts/web-play-gin.png``).

Without playwright or Chromium the test is skipped, saying why; CI sets
``RUMMY_REQUIRE_BROWSER=1`` (``.ci/run`` installs Chromium), where it fails instead.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from web_helpers import browser_missing, chromium_page, running_server

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
VALUES = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


@pytest.fixture()
def browser_ready():
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    missing = browser_missing()
    if missing:
        if os.environ.get("RUMMY_REQUIRE_BROWSER") == "1":
            pytest.fail(f"RUMMY_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)


def card_value(text: str) -> int:
    return VALUES.get(text[0], int(text[0]) if text[0].isdigit() else 0)


def click_a_move(page) -> None:
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


def test_a_hand_of_gin_rummy_played_by_clicking(browser_ready, tmp_path):
    from rummy_env.web.app import create_app

    app = create_app(records=tmp_path)
    with running_server(app) as url, chromium_page() as page:
        page.goto(url + "/")
        page.wait_for_selector("#play-game option[value=gin]", state="attached")
        page.select_option("#play-game", "gin")
        page.fill("#play-agent-0", "random")
        page.select_option("#play-episode", "hand")
        page.fill("#play-seed", "7")
        page.click("#play-start")
        page.wait_for_url(re.compile(r"/table/[\w-]+$"))
        game_id = page.url.rsplit("/", 1)[1]
        page.goto(f"{url}/table/{game_id}?delay=40")  # agents' moves 40 ms apart instead of 700
        table = page.locator("#table")
        clicks = 0
        while True:
            page.wait_for_function("['yours', 'over'].includes(document.getElementById('table').dataset.state)")
            if table.get_attribute("data-state") == "over":
                break
            version = table.get_attribute("data-version")
            click_a_move(page)
            clicks += 1
            assert clicks < 200, "a hand of Gin Rummy has fewer moves"
            page.wait_for_function(f"document.getElementById('table').dataset.version !== '{version}'")

        answer = page.request.get(f"{url}/api/games/{game_id}").json()
        session = app.state.sessions.get(game_id)
        result = session.state.result
        assert answer["over"] and result is not None and clicks == sum(1 for _, s, _ in session.moves if s == answer["you"])
        showdown = page.locator("#showdown")
        assert showdown.is_visible()
        assert "Hand 1" in showdown.inner_text()
        assert page.locator("#showdown pre").inner_text() == answer["hands"][0]["explanation"]
        if result.outcome != "draw":  # both hands laid out, with each deadwood
            assert showdown.locator(".seatline").count() == 2
            assert f"deadwood {result.knocker_deadwood}" in showdown.inner_text()
        score = page.locator(".score").inner_text()
        assert "points this hand" in score
        for points in result.rewards:
            assert str(points) in score
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "web-play-gin.png"), full_page=True)
    assert (ARTIFACTS / "web-play-gin.png").stat().st_size > 10_000


def test_a_leaderboard_and_a_game_replayed_step_by_step_one_seat_or_every_seat(browser_ready, tmp_path):
    from rummy_env.web.app import create_app
    from web_helpers import small_tournament

    small_tournament(tmp_path / "gin_small")
    app = create_app(records=tmp_path)
    with running_server(app) as url, chromium_page() as page:
        page.goto(url + "/records")
        page.click("text=gin_small")
        page.wait_for_selector("#ratings tbody tr")
        assert page.locator("#ratings tbody tr").count() == 2
        page.wait_for_function("[...document.querySelectorAll('#plots img')].every((i) => i.complete && i.naturalWidth > 0)"
                               " && document.querySelectorAll('#plots img').length === 2")
        page.locator("#games button[data-key]").first.click()
        page.wait_for_url(re.compile(r"/table/[\w-]+$"))
        page.wait_for_selector("#table[data-state]")
        page.click("#pause")
        page.wait_for_timeout(800)  # a move asked for before the pause lands first (a replay's moves take ms)
        table = page.locator("#table")
        assert page.locator("#table .hand").count() == 2  # a replay shows every hand
        version = table.get_attribute("data-version")
        log = page.locator("#log div").count()
        page.click("#step")
        page.wait_for_function(f"document.getElementById('table').dataset.version !== '{version}'")
        assert page.locator("#log div").count() == log + 1  # one move further, and no more: paused
        page.select_option("#seat-view", "1")
        page.wait_for_function("document.querySelectorAll('#table .hand').length === 1")
        assert page.locator("#table .hand").get_attribute("data-seat") == "1"
        assert page.locator("#table .seat").count() == 1  # the other seat: its card count only
