"""People's tables in real browsers: headless Chromium, one browser context per person
(each its own storage, as two people on two machines). Ann opens a Gin Rummy table in
the lobby and sends the invitation to Bob, both get ready, and they play the hand to its
end by clicking, every move reaching the other page live; Ann reloads her page mid-hand
and is back in her seat; Bob leaves, his stand-in plays, and he takes his seat back; at
the end both play again (a rematch, each in their own seat). A Rommé table of two people
and two agents is played to its end while a spectator watches without seeing any hand.
Skipped without playwright or Chromium (``browser_ready``)."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

from web_helpers import chromium_pages, running_server, wait_until

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
STATE = "document.getElementById('table').dataset.state"


def open_table_in_the_lobby(page, url: str, name: str, game: str, seats: list[str], pace: str = "0.05") -> str:
    """Open a table from the lobby's form (``seats``: what each seat's picker is set to);
    returns its id, once the table's page shows the invitations."""
    page.goto(url + "/lobby")
    page.wait_for_selector(f"#create-game option[value={game}]", state="attached")
    page.fill("#create-name", name)
    page.select_option("#create-game", game)
    page.select_option("#create-players", str(len(seats)))
    for k, choice in enumerate(seats):
        page.select_option(f"#create-agent-{k}", choice)
    page.fill("#create-pace", pace)
    page.click("#create-start")
    page.wait_for_url(re.compile(r"/tables/[\w-]+$"))
    page.wait_for_selector(".invite input.link")
    return page.url.rsplit("/", 1)[1]


def join_by_link(page, link: str, name: str) -> None:
    page.goto(link)
    page.wait_for_selector("#join:not([hidden])")
    page.fill("#join-name", name)
    page.click("#join-go")
    wait_until(page, "!document.getElementById('ready').hidden")
    assert "#invite" not in page.url  # the spent invitation leaves the address bar


def state(page) -> str:
    return page.locator("#table").get_attribute("data-state") or ""


def test_two_people_play_gin_in_two_browsers_with_a_reload_a_leave_and_a_return(browser_ready, tmp_path):
    from rummy_env.web.app import create_app

    app = create_app(records=tmp_path)
    with running_server(app) as url, chromium_pages(2) as (ann, bob):
        key = open_table_in_the_lobby(ann, url, "Ann", "gin", ["person", "person"])
        link = ann.locator(".invite[data-seat='1'] input.link").input_value()
        assert link.startswith(f"{url}/tables/{key}#invite=")
        join_by_link(bob, link, "Bob")
        wait_until(ann, "document.querySelector('#seat-list tr[data-seat=\"1\"]').textContent.includes('Bob')")
        assert ann.locator(".invite").count() == 0  # the seat is taken: no invitation left to show
        for page in (ann, bob):
            page.click("#ready")
        for page in (ann, bob):
            wait_until(page, f"['yours', 'others'].includes({STATE})")
        table = app.state.lobby.get(key)
        stand_in_moves = lambda: sum(s == 1 and by == "agent" for (_, s, _), by in zip(table.moves, table.moved_by))  # noqa: E731
        bob_played_again = lambda: any(s == 1 and by == "person" and k > table.moved_by.index("agent")  # noqa: E731
                                       for k, ((_, s, _), by) in enumerate(zip(table.moves, table.moved_by)))
        clicks, reloaded, left, back, ended_away = 0, False, False, False, False
        deadline = time.monotonic() + 240
        # (until Bob is back too: the stand-in's own turn may end the hand while he is away)
        while not (state(ann) == "over" and state(bob) == "over" and (back or not left)):
            assert time.monotonic() < deadline, "the hand did not end in 240 s"
            if clicks == 3 and not reloaded:  # mid-hand: the page is loaded again and finds its seat
                ann.reload()
                wait_until(ann, f"['yours', 'others', 'over'].includes({STATE})")
                assert "you are seat 0" in ann.locator("#seating-title").inner_text()
                reloaded = True
            elif clicks >= 5 and not left and state(bob) == "yours":  # Bob leaves on his turn
                bob.click("#leave")
                wait_until(bob, "!document.getElementById('back').hidden")
                assert "plays your seat" in bob.locator("#table .status").inner_text()
                left = True
            elif left and not back and (stand_in_moves() >= 2 or state(ann) == "over"):
                ended_away = state(ann) == "over"  # the stand-in's first move may end the hand (the wall)
                if not ended_away:  # the stand-in has played: Bob comes back before Ann moves again
                    bob.click("#back")
                    wait_until(bob, "document.getElementById('back').hidden")
                back = True
            elif left and not back and state(ann) != "yours":
                time.sleep(0.05)  # Ann moves only on her turn; the stand-in plays Bob's
                continue
            # the state and a move offered read in one go: a page between two renders is not asked
            mover = next((p for p in (ann, bob) if p.evaluate(MOVE_OFFERED)), None)
            if mover is None:
                time.sleep(0.05)  # the other page's turn is arriving, or the stand-in is moving
                continue
            version = mover.locator("#table").get_attribute("data-version")
            # no knock until Bob is back and has moved again: a knock dealt early would end the
            # hand before he leaves, or before he plays his seat again
            if mover.evaluate(CLICK_A_GIN_MOVE, back and bob_played_again()) is None:  # drawn again meanwhile: look again
                continue
            wait_until(mover, f"document.getElementById('table').dataset.version !== '{version}'")
            clicks += 1
        assert reloaded and left and back and stand_in_moves() >= (1 if ended_away else 2)
        # Bob took his seat back and played on, unless the stand-in's own turn ended the hand
        assert bob_played_again() or table.moved_by[-1] == "agent"
        result = table.state.result
        for me, page in enumerate((ann, bob)):  # both pages show the showdown and the score, live
            wait_until(page, "document.getElementById('showdown') !== null")
            names = ["you" if s == me else f"player_{s} ({name})" for s, name in enumerate(["Ann", "Bob"])]
            assert page.locator("#showdown pre").inner_text() == table.game.explain(result.to_dict(), names)
            score = page.locator(".score").inner_text()
            assert all(str(points) in score for points in result.rewards)
        ARTIFACTS.mkdir(exist_ok=True)
        ann.screenshot(path=str(ARTIFACTS / "web-tables-gin.png"), full_page=True)
        # play again: Bob opens the rematch, Ann's page offers to join it, both sit in their seats there
        bob.click("#rematch")
        bob.wait_for_url(re.compile(r"/tables/(?!" + key + r")[\w-]+$"))
        rematch = bob.url.rsplit("/", 1)[1]
        wait_until(ann, "document.getElementById('rematch').textContent === 'Join the rematch'")
        ann.click("#rematch")
        ann.wait_for_url(f"{url}/tables/{rematch}")
        for me, page in enumerate((ann, bob)):
            wait_until(page, "!document.getElementById('ready').hidden")
            assert f"you are seat {me}" in page.locator("#seating-title").inner_text()
    (moved_by,), = sqlite3.connect(tmp_path / "tables.sqlite3").execute("SELECT moved_by FROM hands")
    assert json.loads(moved_by) == table.moved_by and "agent" in table.moved_by
    assert [by for (_, s, _), by in zip(table.moves, table.moved_by) if s == 0] == ["person"] * sum(
        s == 0 for _, s, _ in table.moves)


MOVE_OFFERED = "document.getElementById('table').dataset.state === 'yours' && !!document.querySelector('#table button.legal')"

# A move as a person would make it (``web_helpers.click_a_move``'s order: knock when offered
# and ``knock`` is true, else draw from the stock or pass on the upcard, else discard the
# highest deadwood card), chosen and clicked in one go in the page; null when the page
# offers nothing clickable (it is between two renders)
CLICK_A_GIN_MOVE = """(knock) => {
  const value = (text) => ({A: 1, T: 10, J: 10, Q: 10, K: 10}[text[0]] || Number(text[0]) || 0);
  const first = (selector) => document.querySelector(selector);
  const press = (knock && first("#table button.legal[data-group=knock]")) || first(".stock button.legal")
    || first("#table button.legal[data-group=pass]");
  if (press) { press.click(); return "button"; }
  let cards = Array.from(document.querySelectorAll(".hand .group[data-label=deadwood] button.legal"));
  if (!cards.length) cards = Array.from(document.querySelectorAll(".hand button.legal"));
  if (!cards.length) return null;
  cards.reduce((best, b) => (value(b.dataset.card) > value(best.dataset.card) ? b : best)).click();
  return "discard";
}"""

# Draw from the stock, else discard the highest card offered, else the first move offered:
# chosen and clicked in one go in the page (the page may render again between two of the
# test's own calls: the live stream sends every change)
CLICK_A_ROMME_MOVE = """() => {
  const value = (text) => text.startsWith("JK") ? 20 : ({A: 11, T: 10, J: 10, Q: 10, K: 10}[text[0]] || Number(text[0]));
  const stock = document.querySelector(".stock button.legal");
  if (stock) { stock.click(); return "stock"; }
  const discards = Array.from(document.querySelectorAll(".hand button.legal[data-group=discard]"));
  if (discards.length) {
    discards.reduce((best, b) => (value(b.dataset.card) > value(best.dataset.card) ? b : best)).click();
    return "discard";
  }
  const any = document.querySelector("#table button.legal");
  if (any) { any.click(); return "move"; }
  return null;
}"""


def test_a_romme_table_of_two_people_and_two_agents_with_a_spectator(browser_ready, tmp_path):
    from rummy_env.web.app import create_app

    app = create_app(records=tmp_path)
    with running_server(app) as url, chromium_pages(3) as (ann, bob, watcher):
        key = open_table_in_the_lobby(ann, url, "Ann", "romme", ["person", "person", "easy", "easy"])
        join_by_link(bob, ann.locator(".invite[data-seat='1'] input.link").input_value(), "Bob")
        watcher.goto(url + "/lobby")
        watcher.wait_for_selector(f"#tables tr[data-id='{key}']")
        assert "Ann (not ready), Bob (not ready), easy (agent), easy (agent)" in watcher.locator(f"#tables tr[data-id='{key}']").inner_text()
        watcher.click(f"#tables tr[data-id='{key}'] a")
        watcher.wait_for_url(f"**/tables/{key}")
        for page in (ann, bob):
            page.click("#ready")
        wait_until(watcher, f"['others', 'over'].includes({STATE})")
        table = app.state.lobby.get(key)
        clicks = {"ann": 0, "bob": 0}
        deadline = time.monotonic() + 300
        checked_mid_hand = False
        while not (state(ann) == "over" and state(bob) == "over"):  # played to the end
            assert time.monotonic() < deadline, "the hand did not end in 300 s"
            if not checked_mid_hand and min(clicks.values()) >= 4 and not table.over:
                wait_until(watcher, f"document.querySelectorAll('#log div').length >= {min(len(table.moves), 40) - 2}")
                assert watcher.locator("#table .hand").count() == 0  # a spectator sees no hand
                assert watcher.locator("#table .seat").count() == 4
                assert "watching" in watcher.locator("#seating-title").inner_text()
                assert ann.locator("#table .hand").count() == 1 and ann.locator("#table .seat").count() == 3
                checked_mid_hand = True
            # the state and a move offered read in one go: a page between two renders is not asked
            mover = next((name for name, p in (("ann", ann), ("bob", bob)) if p.evaluate(MOVE_OFFERED)), None)
            if mover is None:
                time.sleep(0.05)
                continue
            page = ann if mover == "ann" else bob
            version = page.locator("#table").get_attribute("data-version")
            if page.evaluate(CLICK_A_ROMME_MOVE) is None:  # drawn again meanwhile: look again
                continue
            wait_until(page, f"document.getElementById('table').dataset.version !== '{version}'")
            clicks[mover] += 1
        assert table.over and min(clicks.values()) >= 4
        agents = {by for (_, s, _), by in zip(table.moves, table.moved_by) if s in (2, 3)}
        assert agents == {"agent"} and {s for _, s, _ in table.moves} == {0, 1, 2, 3}  # the server played the agents
        result = table.state.result
        for page in (ann, bob, watcher):  # every page shows the end: the showdown and the score
            wait_until(page, "document.getElementById('showdown') !== null")
            score = page.locator(".score").inner_text()
            assert all(str(points) in score for points in result.rewards)
        ARTIFACTS.mkdir(exist_ok=True)
        watcher.screenshot(path=str(ARTIFACTS / "web-tables-romme-spectator.png"), full_page=True)
