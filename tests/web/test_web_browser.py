"""The web app in a real browser: headless Chromium (Debian's ``chromium``, driven by
playwright) opens the start page, starts a hand of Gin Rummy against ``random`` and plays
it to the end by clicking the highlighted cards and buttons, then checks the showdown and
the score against the server's record of the game. The last screen is kept as an artifact
(``artifacts/web-play-gin.png``). And the attack a web page of another origin can make: a
cross-origin request asking the server to load a policy file that would run code.

Without playwright or Chromium the test is skipped, saying why (the ``browser_ready``
fixture of tests/conftest.py); CI sets ``RUMMY_REQUIRE_BROWSER=1`` (``.ci/run``
installs Chromium), where it fails instead.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from hostile_files import hostile_policy
from web_helpers import chromium_page, click_a_move, running_server, wait_until

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def start_page(page, url: str, form: str, game: str) -> None:
    """The start page with ``game`` chosen in the form ``form`` ("play" or "watch")."""
    page.goto(url + "/")
    page.wait_for_selector(f"#{form}-game option[value={game}]", state="attached")
    page.select_option(f"#{form}-game", game)


def test_a_hand_of_gin_rummy_played_by_clicking(browser_ready, tmp_path):
    from rummy_env.web.app import create_app

    app = create_app(records=tmp_path)
    with running_server(app) as url, chromium_page() as page:
        start_page(page, url, "play", "gin")
        page.select_option("#play-agent-0", "random")
        page.select_option("#play-episode", "hand")
        page.click("#play-start")
        page.wait_for_url(re.compile(r"/table/[\w-]+$"))
        game_id = page.url.rsplit("/", 1)[1]
        page.goto(f"{url}/table/{game_id}?delay=40")  # agents' moves 40 ms apart instead of 700
        table = page.locator("#table")
        clicks = 0
        while True:
            wait_until(page, "['yours', 'over'].includes(document.getElementById('table').dataset.state)")
            if table.get_attribute("data-state") == "over":
                break
            version = table.get_attribute("data-version")
            click_a_move(page)
            clicks += 1
            assert clicks < 200, "a hand of Gin Rummy has fewer moves"
            wait_until(page, f"document.getElementById('table').dataset.version !== '{version}'")

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
        assert page.locator("#deal").inner_text().strip() == f"deal {session.deal}"  # exact: the same cards to watch
        score = page.locator(".score").inner_text()
        assert "points this hand" in score
        for points in result.rewards:
            assert str(points) in score
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "web-play-gin.png"), full_page=True)
    assert (ARTIFACTS / "web-play-gin.png").stat().st_size > 10_000


def settled(page, table, quiet: float = 0.6, timeout: float = 30.0) -> None:
    """Wait until the table's ``data-version`` has not changed for ``quiet`` seconds."""
    deadline = time.monotonic() + timeout
    version = table.get_attribute("data-version")
    while True:
        page.wait_for_timeout(quiet * 1000)
        now = table.get_attribute("data-version")
        if now == version:
            return
        assert time.monotonic() < deadline, f"the table kept changing for {timeout:g} s after the pause"
        version = now


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
        wait_until(page, "[...document.querySelectorAll('#plots img')].every((i) => i.complete && i.naturalWidth > 0)"
                               " && document.querySelectorAll('#plots img').length === 2")
        page.locator("#games button[data-key]").first.click()
        page.wait_for_url(re.compile(r"/table/[\w-]+$"))
        page.wait_for_selector("#table[data-state]")
        page.click("#pause")
        table = page.locator("#table")
        settled(page, table)  # a move asked for before the pause lands first, however busy the machine
        assert page.locator("#table .hand").count() == 2  # a replay shows every hand
        version = table.get_attribute("data-version")
        log = page.locator("#log div").count()
        page.click("#step")
        wait_until(page, f"document.getElementById('table').dataset.version !== '{version}'")
        assert page.locator("#log div").count() == log + 1  # one move further, and no more: paused
        page.select_option("#seat-view", "1")
        wait_until(page, "document.querySelectorAll('#table .hand').length === 1")
        assert page.locator("#table .hand").get_attribute("data-seat") == "1"
        assert page.locator("#table .seat").count() == 1  # the other seat: its card count only


ATTACK = """<!doctype html><html><body><script>
const body = JSON.stringify({game: "gin", opponents: ["ppo:PATH"]});
async function attack() {
  const done = [];
  try {  // a "simple" request: no preflight, the browser sends it as it is
    await fetch("TARGET/api/games", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body});
    done.push("no-cors sent");
  } catch (e) { done.push("no-cors failed"); }
  try {  // JSON: the browser asks first (a preflight), which the server never approves
    const answer = await fetch("TARGET/api/games", {method: "POST", headers: {"Content-Type": "application/json"}, body});
    done.push("cors answered " + answer.status);
  } catch (e) { done.push("cors blocked"); }
  document.title = done.join("; ");
}
attack();
</script></body></html>"""


def test_a_page_of_another_origin_cannot_make_the_server_load_a_file(browser_ready, tmp_path):
    """The attack of issue "remote code execution through the web app": a page served from
    another origin posts an opponent spec naming a pickle that would create a marker file."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    from rummy_env.web.app import create_app

    path, marker = hostile_policy(tmp_path)
    app = create_app(records=tmp_path)
    arrived = []

    async def recorded(scope, receive, send):  # what reached the server (the browser really sent it)
        if scope["type"] == "http":
            arrived.append((scope["method"], scope["path"]))
        await app(scope, receive, send)

    with running_server(recorded) as url:
        page_html = ATTACK.replace("TARGET", url).replace("PATH", str(path))
        attacker = Starlette(routes=[Route("/", lambda request: HTMLResponse(page_html))])
        with running_server(attacker) as other, chromium_page(errors_expected=True) as page:
            assert other != url  # another port: another origin
            page.goto(other + "/")
            wait_until(page, "document.title.includes('cors')", timeout=20)
            title = page.title()
    # the simple request is sent (the browser then hides, or with CORP refuses, the answer); the JSON one never is
    assert "cors blocked" in title and "cors answered" not in title, title
    assert arrived.count(("POST", "/api/games")) == 1, arrived  # it reached the server, which refused it
    assert len(app.state.sessions) == 0 and not marker.exists()


def test_each_seat_picks_a_level_of_the_chosen_game(browser_ready, tmp_path):
    """The start page offers, per seat, the chosen game's levels (each naming its agent),
    its agents, and "other" for a typed spec; the game made seats what was picked."""
    from rummy_env import agents
    from rummy_env.web.app import create_app

    app = create_app(records=tmp_path)
    with running_server(app) as url, chromium_page() as page:
        start_page(page, url, "watch", "basic")
        page.select_option("#watch-players", "3")
        for seat in range(3):
            levels = page.locator(f"#watch-agent-{seat} optgroup[label=Levels] option")
            assert [levels.nth(k).get_attribute("value") for k in range(levels.count())] == list(agents.levels("basic"))
            assert page.input_value(f"#watch-agent-{seat}") == "medium"  # the default opponent
            assert not page.locator(f"#watch-spec-{seat}").is_visible()
        page.select_option("#watch-agent-0", "hard")
        page.select_option("#watch-agent-1", "easy")
        page.select_option("#watch-agent-2", "")  # other: a spec typed
        assert page.locator("#watch-spec-2").is_visible()
        page.fill("#watch-spec-2", "heuristic:danger_weight=0")
        page.fill("#watch-seed", "3")
        page.click("#watch-start")
        page.wait_for_url(re.compile(r"/table/[\w-]+$"))
        session = app.state.sessions.get(page.url.rsplit("/", 1)[1])
        assert session.names == ["hard", "easy", "heuristic:danger_weight=0"]
        assert [type(a).__name__ for a in session.players] == [
            type(agents.make("hard", game="basic")).__name__, type(agents.make("easy", game="basic")).__name__,
            "RummyHeuristicAgent"]
        # another game: its own levels (Rommé's), the choices reset to its default
        start_page(page, url, "play", "romme")
        levels = page.locator("#play-agent-0 optgroup[label=Levels] option")
        assert [levels.nth(k).get_attribute("value") for k in range(levels.count())] == list(agents.levels("romme"))
