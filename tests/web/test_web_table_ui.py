"""What players expect at the table of ``rummy serve`` (issue 46): the hand sorted by rank
or suit and dragged into an order of one's own, the card just drawn marked, each knock
saying the deadwood it leaves, the table's deadwood agreeing with the showdown after the
lay-offs, a match's score sheet with every bonus (and no next deal behind a hand's result),
a rematch with the same settings, a replay that steps back and jumps to a move, the
leaderboard naming agents, and each rules preset explained where it is chosen.

Through the API (the app's test client) where the server changed, and in headless
Chromium (the ``browser_ready`` fixture of tests/conftest.py) for each feature's page.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # what starlette's test client uses

from starlette.testclient import TestClient  # noqa: E402

from rummy_env import agents  # noqa: E402
from rummy_env.core import melds  # noqa: E402
from rummy_env.core.cards import card_str  # noqa: E402
from rummy_env.core.game import get_game  # noqa: E402
from rummy_env.gin.game import KNOCK  # noqa: E402
from rummy_env.web.app import create_app  # noqa: E402
from rummy_env.web.sessions import AgentTable  # noqa: E402
from rummy_env.web.views import table_view  # noqa: E402
from web_helpers import BASE, chromium_page, error, play_through, running_server, small_tournament, wait_until  # noqa: E402


@pytest.fixture()
def app(tmp_path):
    return create_app(records=tmp_path, max_games=40, max_games_per_client=40)


@pytest.fixture()
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


def agent_table(game: str, seats: list, episode: str = "hand", seed: int = 0, rules: str = "") -> AgentTable:
    """A table as ``new_table`` makes one, dealt from ``seed``: ``None`` the person's seat,
    else an agent spec."""
    played = get_game(game)
    preset = rules or played.default_preset
    players = [None if spec is None else agents.make(spec, game=game, seed=seed + 1 + s) for s, spec in enumerate(seats)]
    names = ["you" if spec is None else spec for spec in seats]
    return AgentTable(played, played.load_rules(preset), preset, names, players, episode, seed)


def played_out(table: AgentTable, rng: np.random.Generator, until=lambda t: t.over) -> AgentTable:
    """``table`` played until ``until``: the person's moves at random, the agents' their own."""
    while not until(table):
        if table.agent_plays(table.to_move):
            table.advance()
        else:
            table.play(int(rng.choice(table.state.legal_actions())))
    return table


def laid_off_hand() -> AgentTable:
    """A hand of Gin Rummy between heuristics that ends in a knock with lay-offs."""
    for seed in range(80):
        table = played_out(agent_table("gin", ["heuristic", "heuristic"], seed=seed), np.random.default_rng(0))
        result = table.state.result
        if result.knocker is not None and result.layoffs:
            return table
    raise AssertionError("no hand with lay-offs in 80 deals")


def add(app, table) -> str:
    return app.state.sessions.add(table, "127.0.0.1")


# ------------------------------------------------------- 3. the table's deadwood after lay-offs


def test_after_lay_offs_the_table_tells_the_deadwood_the_showdown_scored():
    """The defender's hand on the table said the deadwood of its own best melds (29), the
    showdown the deadwood left after its lay-offs (26): the table now lays the hand out as
    the showdown did."""
    table = laid_off_hand()
    result = table.state.result
    view = table_view(table, [0, 1])
    notes = {v["seat"]: v["hand"]["note"] for v in view["views"]}
    showdown = {s["seat"]: s for s in view["hands"][-1]["showdown"]["seats"]}
    defender = 1 - result.knocker
    assert notes[defender] == showdown[defender]["note"] == f"deadwood {result.defender_deadwood}"
    assert notes[result.knocker] == f"deadwood {result.knocker_deadwood}"
    laid = [g for v in view["views"] if v["seat"] == defender for g in v["hand"]["groups"] if g["label"] == "laid off"]
    assert laid and laid[0]["cards"] == [card_str(c) for c, _ in result.layoffs]


@pytest.mark.parametrize("game, players", [("basic", 3), ("romme", 2)])
def test_once_a_player_went_out_each_hand_on_the_table_says_what_it_pays(game, players):
    rng = np.random.default_rng(1)
    for seed in range(20):
        table = played_out(agent_table(game, ["heuristic"] * players, seed=seed), rng)
        result = table.state.result
        if result.winner is not None:
            break
    view = table_view(table, list(range(players)))
    for v in view["views"]:
        if v["seat"] != result.winner:
            assert v["hand"]["note"] == f"pays {result.penalties[v['seat']]}"


# ------------------------------------------------------- 2. each knock with the deadwood it leaves


def knock_offered(seed_from: int = 0) -> AgentTable:
    """A hand of Gin Rummy where the person (seat 0) is offered a knock now."""
    rng = np.random.default_rng(seed_from)
    for seed in range(seed_from, seed_from + 200):
        table = agent_table("gin", [None, "random"], seed=seed)
        played_out(table, rng, until=lambda t: t.over or (t.to_move == 0 and any(
            KNOCK <= a < KNOCK + 52 for a in t.state.legal_actions())))
        if not table.over:
            return table
    raise AssertionError("no knock offered in 200 deals")


def test_each_knock_says_the_card_discarded_and_the_deadwood_it_leaves(client, app):
    table = knock_offered()
    game_id = add(app, table)
    answer = client.get(f"/api/games/{game_id}").json()
    knocks = [m for m in answer["moves"] if m["group"] == "knock" and KNOCK <= m["id"] < KNOCK + 52]
    assert knocks
    hand = table.state.hands[0]
    rules = table.rules
    for m in knocks:
        card = m["id"] - KNOCK
        left = melds.best_arrangement(hand & ~(1 << card), aces_high=rules.aces_high,
                                      five_under_ten=rules.five_under_ten).deadwood
        assert m["label"] == f"knock, discard {card_str(card)}: deadwood {left}"
        assert left <= table.state.knock_limit
    # told from the person's own hand only: the opponent's and the stock's cards dealt otherwise, the same
    rng = np.random.default_rng(3)
    true_state = table.env.game
    for _ in range(4):
        table.env.game = table.game.redeal_hidden(true_state, 0, rng)
        assert client.get(f"/api/games/{game_id}").json()["moves"] == answer["moves"]
    table.env.game = true_state


# ------------------------------------------------------- 4. the score sheet of a match


@pytest.mark.parametrize("game, players", [("gin", 2), ("basic", 2), ("romme", 3)])
def test_a_match_has_a_score_sheet_of_its_hands_with_every_bonus(game, players):
    table = played_out(agent_table(game, ["heuristic"] * players, episode="match", seed=5), np.random.default_rng(0))
    final = table.env.match.result()
    sheet = table_view(table, list(range(players)))["score_sheet"]
    assert sheet["final"] and len(sheet["rows"]) == len(table.finished)
    sums = [sum(r["points"][s] for r in sheet["rows"]) for s in range(players)]
    assert sheet["totals"][-1]["points"] == list(final.scores) == table.score()["points"]
    for row, hand in zip(sheet["rows"], table.finished):
        assert row["winner"] == hand.result.winner
    rules = table.rules
    if game == "gin":
        assert sums == list(final.hand_points) == sheet["totals"][0]["points"]
        labels = [t["label"] for t in sheet["totals"]]
        assert labels[1].startswith("game bonus") and labels[2].startswith("line bonus")
        assert sheet["totals"][1]["points"] == list(final.game_bonus)
        assert sheet["totals"][2]["points"] == list(final.line_bonus)
        bonus = {"gin": ("gin bonus", rules.gin_bonus), "big_gin": ("Big Gin bonus", rules.big_gin_bonus),
                 "undercut": ("undercut bonus", rules.undercut_bonus)}
        for row, hand in zip(sheet["rows"], table.finished):
            r = hand.result
            assert row["bonuses"] == ([list(bonus[r.outcome])] if r.outcome in bonus else [])
            assert row["points"][r.winner if r.winner is not None else 0] == r.points * (r.winner is not None)
        assert any(row["bonuses"] for row in sheet["rows"]) or all(h.result.outcome in ("knock", "draw", "tie")
                                                                   for h in table.finished)
    else:
        assert sums == list(final.totals)
    # a single hand has no sheet; the match's first hands have one that is not final
    assert table_view(played_out(agent_table(game, ["random"] * players, seed=1), np.random.default_rng(0)),
                      [0])["score_sheet"] is None
    going = played_out(agent_table(game, ["heuristic"] * players, episode="match", seed=5), np.random.default_rng(0),
                       until=lambda t: len(t.finished) == 1)
    assert not table_view(going, [0])["score_sheet"]["final"]


def test_a_match_score_sheet_sends_no_hidden_card(client, app):
    """A person's match against an agent: every answer, score sheet and knock labels
    included, is the same with the cards the person cannot know dealt otherwise."""
    table = agent_table("gin", [None, "heuristic"], episode="match", seed=11)
    game_id = add(app, table)
    rng = np.random.default_rng(4)
    checked = 0

    def check(answer):
        nonlocal checked
        true_state, true_finished = table.env.game, list(table.finished)
        for _ in range(2):
            table.env.game = table.game.redeal_hidden(true_state, 0, rng)
            table.finished = [table.game.redeal_hidden(h, 0, rng) for h in true_finished]
            assert client.get(f"/api/games/{game_id}").json() == answer
        table.env.game, table.finished = true_state, true_finished
        checked += 1

    first = client.get(f"/api/games/{game_id}").json()
    last = play_through(client, first, game_id, rng, lambda t: check(t) if len(t["hands"]) < 3 else None,
                        limit=20000, until=lambda t: len(t["hands"]) >= 2 or t["over"])
    assert checked > 20 and last["score_sheet"] is not None


# ------------------------------------------------------- 5, 7. rematch, replay back and forth


def test_a_rematch_has_the_same_settings_and_a_new_deal(client, app):
    answer = client.post("/api/games", json={"game": "basic", "players": 3, "rules": "basic_300",
                                             "opponents": ["random", "heuristic"], "seat": 2}).json()
    game_id = answer["id"]
    error(client.post(f"/api/games/{game_id}/rematch", json={}), 409, "not over")
    table = app.state.sessions.get(game_id)
    played_out(table, np.random.default_rng(0))
    again = client.post(f"/api/games/{game_id}/rematch", json={})
    assert again.status_code == 200, again.text
    made = again.json()
    fresh = app.state.sessions.get(made["id"])
    assert made["id"] != game_id and made["table"]["kind"] == "play" and not made["table"]["over"]
    assert (fresh.game.name, fresh.preset, fresh.names, fresh.human, fresh.episode) == (
        "basic", "basic_300", table.names, 2, "hand")
    assert fresh.deal != table.deal or fresh.state.hands != table.state.hands  # dealt anew
    watched = client.post("/api/games", json={"mode": "watch", "game": "gin", "agents": ["random"], "seed": 7}).json()
    played_out(app.state.sessions.get(watched["id"]), np.random.default_rng(0))
    rewatched = client.post(f"/api/games/{watched['id']}/rematch", json={}).json()
    assert app.state.sessions.get(rewatched["id"]).deal is not None and rewatched["table"]["kind"] == "watch"


def test_a_game_over_is_replayed_back_and_forth_and_to_any_move(client, app):
    game_id = add(app, played_out(agent_table("gin", [None, "heuristic"], episode="match", seed=2),
                                  np.random.default_rng(0)))
    original = app.state.sessions.get(game_id)
    made = client.post(f"/api/games/{game_id}/replay", json={}).json()
    replay_id, table = made["id"], made["table"]
    assert table["kind"] == "replay" and table["position"] == 0 and table["length"] == len(original.moves)
    end = client.post(f"/api/games/{replay_id}/seek", json={"move": table["length"]}).json()
    assert end["over"] and end["score"]["points"] == original.score()["points"]
    assert [m["text"] for m in end["log"]] == [m["text"] for m in table_view(original, [0, 1])["log"]]
    assert end["score_sheet"] == table_view(original, [0])["score_sheet"]
    back = client.post(f"/api/games/{replay_id}/seek", json={"move": 5}).json()
    assert back["position"] == 5 and [m["index"] for m in back["log"]] == [1, 2, 3, 4, 5] and not back["over"]
    forward = client.post(f"/api/games/{replay_id}/advance", json={}).json()
    assert forward["position"] == 6
    error(client.post(f"/api/games/{replay_id}/seek", json={"move": table["length"] + 1}), 400, "0..")
    error(client.post(f"/api/games/{replay_id}/seek", json={"move": "5"}), 400, "integer")
    error(client.post(f"/api/games/{replay_id}/seek", json={"move": 1, "x": 1}), 400, "unknown field")
    playing = client.post("/api/games", json={"game": "gin", "opponents": ["random"]}).json()["id"]
    error(client.post(f"/api/games/{playing}/seek", json={"move": 0}), 409, "only a replay")
    error(client.post(f"/api/games/{playing}/replay", json={}), 409, "not over")
    error(client.post(f"/api/games/{replay_id}/rematch", json={}), 409, "replay")
    # a state-changing request of another origin is refused, as every other (rummy_env.web.guard)
    assert client.post(f"/api/games/{replay_id}/seek", json={"move": 1},
                       headers={"Origin": "http://evil.example"}).status_code == 403


# ------------------------------------------------------- 6. the presets explained


def test_each_preset_comes_with_its_games_own_description(client):
    for g in client.get("/api/options").json()["games"]:
        game = get_game(g["name"])
        for p in g["presets"]:
            assert p["note"] and p["note"] == game.preset_note(p["name"])
        assert sorted(p["name"] for p in g["presets"]) == sorted(game.presets)


# ============================================================ in Chromium


def open_table(page, url: str, game_id: str) -> None:
    page.goto(f"{url}/table/{game_id}?delay=30")
    page.wait_for_selector("#table[data-state]", state="attached")  # hidden while a hand's result shows


def own_cards(page) -> list[str]:
    return page.eval_on_selector_all("#table .hand.own .card", "(cards) => cards.map((c) => c.dataset.card)")


RANKS = "A23456789TJQK"


def test_browser_the_hand_sorted_dragged_and_the_card_just_drawn(browser_ready, app):
    table = played_out(agent_table("gin", [None, "random"], seed=3), np.random.default_rng(0),
                       until=lambda t: t.to_move == 0 and 0 in t.state.legal_actions())  # draw from the stock
    game_id = add(app, table)
    with running_server(app) as url, chromium_page() as page:
        open_table(page, url, game_id)
        wait_until(page, "document.getElementById('table').dataset.state === 'yours'")
        moves = len(table.moves)
        page.click("#sort-rank")
        cards = own_cards(page)
        assert [RANKS.index(c[0]) for c in cards] == sorted(RANKS.index(c[0]) for c in cards)
        page.click("#sort-suit")
        cards = own_cards(page)
        assert [("CDHS".index(c[1]), RANKS.index(c[0])) for c in cards] == sorted(
            ("CDHS".index(c[1]), RANKS.index(c[0])) for c in cards)
        page.drag_and_drop("#own-hand .card >> nth=0", "#own-hand .card >> nth=4")
        dragged = own_cards(page)
        assert dragged == cards[1:5] + [cards[0]] + cards[5:]
        assert "your order" in page.locator("#table .hand.own").inner_text()
        assert len(table.moves) == moves  # sorting and dragging asked nothing of the server
        version = page.locator("#table").get_attribute("data-version")
        page.click(".stock button.legal")  # a draw: the server answers, the page renders again
        wait_until(page, f"document.getElementById('table').dataset.version !== '{version}'")
        now = own_cards(page)
        new = [c for c in now if c not in dragged]
        assert len(new) == 1 and now[:10] == dragged  # the own order kept, the drawn card after it
        assert page.eval_on_selector_all(".card.drawn", "(c) => c.map((x) => x.dataset.card)") == new
        assert new[0] == card_str(next(c for c in range(52) if table.state.hands[0] >> c & 1
                                       and card_str(c) not in dragged))
        page.click("#sort-melds")  # grouped again, the drawn card still marked
        assert page.locator("#table .hand.own .group[data-label]").count() >= 1
        assert page.eval_on_selector_all(".card.drawn", "(c) => c.map((x) => x.dataset.card)") == new
        version = page.locator("#table").get_attribute("data-version")
        page.locator(f"#table .hand.own button.legal[data-card='{new[0]}']").click()  # discarded: no longer marked
        wait_until(page, f"document.getElementById('table').dataset.version !== '{version}'")
        assert page.locator(".card.drawn").count() == 0


def test_browser_each_knock_button_says_its_deadwood(browser_ready, app):
    table = knock_offered(40)
    game_id = add(app, table)
    expected = {m["label"] for m in table_view(table, [0])["moves"] if m["group"] == "knock"}
    with running_server(app) as url, chromium_page() as page:
        open_table(page, url, game_id)
        buttons = page.locator("button.action[data-group=knock]")
        wait_until(page, "document.querySelectorAll('button.action[data-group=knock]').length > 0")
        texts = {buttons.nth(k).inner_text() for k in range(buttons.count())}
        assert texts == expected
        assert all(re.fullmatch(r"knock, discard \w\w: deadwood \d+|declare Big Gin", t) for t in texts)


def test_browser_the_defenders_deadwood_on_the_table_is_the_showdowns(browser_ready, app):
    table = laid_off_hand()
    game_id = add(app, table)
    defender = 1 - table.state.result.knocker
    with running_server(app) as url, chromium_page() as page:
        open_table(page, url, game_id)
        page.wait_for_selector("#showdown")
        on_table = page.locator(f"#table .hand[data-seat='{defender}'] .note").first.inner_text()
        line = page.locator(f"#showdown .seatline[data-seat='{defender}']").inner_text()
        assert on_table == f"deadwood {table.state.result.defender_deadwood}" and line.endswith(on_table)


def test_browser_a_match_ends_on_its_score_sheet_and_no_next_deal_shows_behind_a_result(browser_ready, app):
    over = add(app, played_out(agent_table("gin", ["heuristic", "heuristic"], episode="match", seed=5),
                               np.random.default_rng(0)))
    going = played_out(agent_table("gin", [None, "random"], episode="match", seed=6), np.random.default_rng(0),
                       until=lambda t: len(t.finished) == 1)
    going_id = add(app, going)
    with running_server(app) as url, chromium_page() as page:
        open_table(page, url, over)
        page.wait_for_selector("#score-sheet")
        table = app.state.sessions.get(over)
        final = table.env.match.result()
        assert page.locator("#score-sheet tbody tr").count() == len(table.finished)
        last = page.locator("#score-sheet tfoot tr.last td.num")
        assert [int(last.nth(k).inner_text()) for k in range(2)] == list(final.grand_total)
        text = page.locator("#score-sheet").inner_text()
        assert "game bonus" in text and "line bonus" in text
        open_table(page, url, going_id)  # a hand just ended, the next one dealt: only the result shows
        wait_until(page, "document.getElementById('table').dataset.state === 'waiting'")
        assert page.locator("#showdown").is_visible() and not page.locator("#table").is_visible()
        page.click("#next-hand")
        wait_until(page, "document.getElementById('table').dataset.state !== 'waiting'")
        assert page.locator("#table").is_visible()


def test_browser_rematch_and_replay_stepping_back_and_jumping(browser_ready, app):
    first = played_out(agent_table("gin", [None, "random"], seed=8), np.random.default_rng(0))
    first.settings = {"mode": "play", "game": "gin", "opponents": ["random"], "seat": 0, "episode": "hand"}
    game_id = add(app, first)
    with running_server(app) as url, chromium_page() as page:
        open_table(page, url, game_id)
        page.click("#rematch")
        page.wait_for_url(re.compile(r"/table/[\w-]+$"))
        fresh = app.state.sessions.get(page.url.rsplit("/", 1)[1])
        assert fresh is not first and not fresh.over and fresh.names == first.names and fresh.human == 0
        open_table(page, url, game_id)
        page.click("#replay-game")
        page.wait_for_url(re.compile(r"/table/[\w-]+$"))
        page.wait_for_selector("#table[data-state]")
        replay = app.state.sessions.get(page.url.rsplit("/", 1)[1])
        assert replay.kind == "replay" and replay.length == len(first.moves)
        page.click("#pause")
        page.wait_for_timeout(500)
        position = len(replay.moves)
        if position < 3:  # a few moves on, to step back from
            for _ in range(3 - position):
                version = page.locator("#table").get_attribute("data-version")
                page.click("#step")
                wait_until(page, f"document.getElementById('table').dataset.version !== '{version}'")
        position = len(replay.moves)
        page.click("#step-back")
        wait_until(page, f"document.getElementById('position').textContent === 'move {position - 1} of {replay.length}'")
        assert len(replay.moves) == position - 1
        page.click("#step")
        wait_until(page, f"document.getElementById('position').textContent === 'move {position} of {replay.length}'")
        page.click("#log div[data-index='1']")  # a move of the log: the position just after it
        wait_until(page, f"document.getElementById('position').textContent === 'move 1 of {replay.length}'")
        assert len(replay.moves) == 1 and page.locator("#log div").count() == 1
        assert page.locator("#step-back").is_enabled()


def test_browser_the_leaderboard_names_the_winning_agent(browser_ready, tmp_path):
    small_tournament(tmp_path / "gin_small")
    app = create_app(records=tmp_path)
    with running_server(app) as url, chromium_page() as page:
        page.goto(f"{url}/leaderboard?folder=gin_small")
        page.wait_for_selector("#games tbody tr")
        records = page.request.get(f"{url}/api/records/games?folder=gin_small").json()["games"]
        cells = page.locator("#games tbody td.winner")
        for k, record in enumerate(records):
            shown = cells.nth(k).inner_text()
            winner = record["winner"]
            assert shown == ("-" if winner is None else f"{record['players'][winner]} (seat {winner})")
        assert any(r["winner"] is not None for r in records)


def test_browser_each_preset_is_explained_where_it_is_chosen(browser_ready, app):
    with running_server(app) as url, chromium_page() as page:
        notes = {g["name"]: {p["name"]: p["note"] for p in g["presets"]}
                 for g in page.request.get(f"{url}/api/options").json()["games"]}
        page.goto(url + "/")
        page.wait_for_selector("#play-game option[value=gin]", state="attached")
        wait_until(page, "document.getElementById('play-rules-note').textContent !== ''")
        assert page.inner_text("#play-rules-note") == notes["gin"]["classic"]
        page.select_option("#play-rules", "eaai")
        assert page.inner_text("#play-rules-note") == notes["gin"]["eaai"]
        page.select_option("#watch-game", "romme")
        page.select_option("#watch-rules", "romme_40_run")
        assert page.inner_text("#watch-rules-note") == notes["romme"]["romme_40_run"]
        page.goto(url + "/lobby")
        wait_until(page, "document.getElementById('create-rules-note') !== null"
                         " && document.getElementById('create-rules-note').textContent !== ''")
        page.select_option("#create-game", "basic")
        assert page.inner_text("#create-rules-note") == notes["basic"][page.input_value("#create-rules")]
