"""The web app through its HTTP API (the app's test client): whole games against agents,
matches, watching, replaying tournament records, every bad request refused with a clear
4xx and the game unchanged, and no hidden card reaching a seat (the cards a seat cannot
know dealt otherwise, what it is sent stays the same, as the env's no-leak tests check)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # what starlette's test client uses

from starlette.testclient import TestClient  # noqa: E402

from rummy_env import agents  # noqa: E402
from rummy_env.core.game import get_game  # noqa: E402
from rummy_env.web.app import create_app  # noqa: E402
from rummy_env.web.sessions import Sessions, WebError  # noqa: E402
from web_helpers import BASE, JSON, error, play_through, small_tournament  # noqa: E402


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    root = tmp_path_factory.mktemp("records")
    small_tournament(root / "gin_small")
    return root


@pytest.fixture()
def app(records):
    return create_app(records=records, max_games=20)


@pytest.fixture()
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


def new_game(client, **body):
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    return answer["id"], answer["table"]


# ----------------------------------------------------------------------------- playing


def test_options_list_every_game_with_its_presets_and_agents(client):
    games = {g["name"]: g for g in client.get("/api/options").json()["games"]}
    assert set(games) == {"gin", "basic", "romme"}
    assert games["basic"]["max_players"] == 4 and games["gin"]["max_players"] == 2
    assert {"random", "heuristic", "mcts", "ppo", "hard"} <= set(games["gin"]["agents"])
    assert games["romme"]["agents"][:2] == ["random", "heuristic"] and "mcts" not in games["romme"]["agents"]
    assert [lv["name"] for lv in games["gin"]["levels"]] == ["easy", "medium", "hard", "expert"]
    assert {lv["name"]: lv["agent"] for lv in games["gin"]["levels"]} == agents.levels("gin")
    assert {p["name"]: p["match"] for p in games["gin"]["presets"]}["openspiel"] is False
    assert all(p["match"] for p in games["romme"]["presets"])  # a Rommé table is its match


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_a_whole_hand_of_gin_against_an_agent(client, app, opponent):
    game_id, table = new_game(client, game="gin", opponents=[opponent], seat=0)
    assert table["you"] == 0 and table["names"] == ["you", f"player_1 ({opponent})"] and table["kind"] == "play"
    moves = []

    def check(t):
        assert t["seats"] == [0] and len(t["views"]) == 1 and t["views"][0]["seat"] == 0
        hand = t["views"][0]["hand"]
        assert hand["note"].startswith("deadwood ")
        assert sum(len(g["cards"]) for g in hand["groups"]) == t["views"][0]["players"][0]["cards"]
        moves.append(len(t["log"]))

    final = play_through(client, table, game_id, np.random.default_rng(1), check)
    table_obj = app.state.sessions.get(game_id)
    result = table_obj.state.result
    assert final["over"] and final["to_move"] is None and final["moves"] == []
    assert final["score"] == {"title": "points this hand", "points": list(result.rewards), "final": True}
    assert [h["number"] for h in final["hands"]] == [1]
    assert final["hands"][0]["explanation"] == get_game("gin").explain(result.to_dict(), final["names"])
    if result.outcome != "draw":  # the showdown lays out both hands
        showdown = final["hands"][0]["showdown"]
        assert {s["seat"] for s in showdown["seats"]} == {0, 1}
        assert showdown["seats"][0]["seat"] == result.knocker
    assert len(table_obj.moves) == len(table_obj.state.actions) and max(moves) == min(40, len(table_obj.moves))


@pytest.mark.parametrize("game, players, opponent", [("basic", 3, "random"), ("romme", 2, "random")])
def test_a_whole_hand_of_basic_rummy_and_romme(client, app, game, players, opponent):
    game_id, table = new_game(client, game=game, players=players, opponents=[opponent])
    final = play_through(client, table, game_id, np.random.default_rng(2))
    result = app.state.sessions.get(game_id).state.result
    assert final["over"] and final["score"]["points"] == list(result.rewards)
    assert len(final["views"][0]["players"]) == players
    if result.winner is not None:
        seats = final["hands"][0]["showdown"]["seats"]
        assert [s["note"].startswith("went out") for s in seats] == [s == result.winner for s in range(players)]


def first_hand_over(table):
    """Whether a match's first hand is over (the table shows a finished hand)."""
    return bool(table["hands"])


def test_a_match_goes_on_to_the_next_hand_with_the_points_added(client, app):
    game_id, table = new_game(client, game="gin", opponents=["random"], episode="match", seat=1)
    assert table["score"] == {"title": "match points (to 100)", "points": [0, 0], "final": False}
    first = play_through(client, table, game_id, np.random.default_rng(3), until=first_hand_over)
    hand = app.state.sessions.get(game_id).finished[0]
    expected = [0, 0]
    if hand.result.winner is not None:
        expected[hand.result.winner] = hand.result.points
    assert not first["over"] and first["hand_number"] == 2 and first["score"]["points"] == expected
    assert app.state.sessions.get(game_id).state is not hand and not app.state.sessions.get(game_id).state.is_over


def test_a_romme_table_adds_up_its_hands(client, app):
    """A Rommé match is a table: its score names what ends it, and after the first hand the
    totals are that hand's rewards (zero-sum), against the heuristic."""
    game_id, table = new_game(client, game="romme", players=3, opponents=["heuristic", "random"],
                              episode="match", rules="romme")
    assert table["score"] == {"title": "match points (8 hands)", "points": [0, 0, 0], "final": False}
    table = play_through(client, table, game_id, np.random.default_rng(4), until=first_hand_over)
    hand = app.state.sessions.get(game_id).finished[0]
    assert not table["over"] and table["hand_number"] == 2
    assert table["score"]["points"] == list(hand.result.rewards) and sum(table["score"]["points"]) == 0


def test_watching_agents_step_by_step_every_seat_or_one(client, app):
    game_id, table = new_game(client, mode="watch", game="basic", players=3, agents=["heuristic"], seed=5)
    assert table["you"] is None and table["kind"] == "watch" and table["seats"] == [0, 1, 2]
    assert [v["seat"] for v in table["views"]] == [0, 1, 2] and table["moves"] == []
    one = client.get(f"/api/games/{game_id}?seat=1").json()
    assert one["seats"] == [1] and [v["seat"] for v in one["views"]] == [1]
    steps = 0
    while not table["over"]:
        table = client.post(f"/api/games/{game_id}/advance?seat=all", json={}).json()
        steps += 1
    assert steps == len(app.state.sessions.get(game_id).state.actions)
    assert all(entry["text"] for entry in table["log"])
    error(client.post(f"/api/games/{game_id}/move", json={"action": 0}), 409, "agents play every seat")


def test_a_trained_network_the_operator_names_plays_and_a_client_path_is_refused(records):
    pytest.importorskip("torch")
    from rummy_env.agents.gin.ppo import SHIPPED

    app = create_app(records=records, agents_named={"shipped": f"ppo:{SHIPPED}"})
    with TestClient(app, base_url=BASE) as client:
        assert "shipped" in {g["name"]: g for g in client.get("/api/options").json()["games"]}["gin"]["agents"]
        game_id, table = new_game(client, game="gin", opponents=["shipped"], seat=0)
        assert table["names"][1] == "player_1 (shipped)" and str(SHIPPED) not in json.dumps(table)
        while table["to_move"] == 0:
            table = client.post(f"/api/games/{game_id}/move", json={"action": table["moves"][0]["id"]}).json()
        assert client.post(f"/api/games/{game_id}/advance", json={}).status_code == 200
        for spec in (f"ppo:{SHIPPED}", f"ppo:path={SHIPPED}", "ppo:/etc/shadow", "ppo:/nonexistent",
                     "mcts:rollout=net,net=/etc/passwd", "ppo:../x.pt", "heuristic:knock=~/x"):
            message = error(client.post("/api/games", json={"game": "gin", "opponents": [spec]}), 400, "names a file")
            assert "not found" not in message and "Unpickling" not in message  # no file-existence oracle
        error(client.post("/api/games", json={"game": "gin", "opponents": ["shipped:greedy=false"]}), 400,
              "takes no options")
        error(client.post("/api/games", json={"game": "basic", "opponents": ["shipped"]}), 400, "plays Gin Rummy")


def test_an_agent_that_fails_mid_move_gives_a_json_500_and_the_game_stays(client, app):
    class Broken:
        def act(self, observation, info):
            raise RuntimeError("the network file is damaged")

    game_id, table = new_game(client, game="gin", opponents=["random"], seat=0)
    while table["to_move"] == 0:
        table = client.post(f"/api/games/{game_id}/move", json={"action": table["moves"][0]["id"]}).json()
    held = app.state.sessions.get(game_id)
    held.players[1] = Broken()
    before = list(held.state.actions)
    error(client.post(f"/api/games/{game_id}/advance", json={}), 500, "internal error", "RuntimeError", "damaged")
    assert held.state.actions == before and client.get(f"/api/games/{game_id}").status_code == 200


# ----------------------------------------------------------------------------- bad requests


def test_every_bad_request_is_a_clear_4xx_and_changes_nothing(client):
    game_id, table = new_game(client, game="gin", opponents=["random"], seat=0)
    path = f"/api/games/{game_id}"
    while table["to_move"] != 0:
        table = client.post(f"{path}/advance", json={}).json()

    def unchanged():
        assert client.get(path).json() == table

    error(client.post("/api/games", json={"game": "chess"}), 400, "unknown game 'chess'", "gin, basic, romme")
    error(client.post("/api/games", json={"game": "gin", "players": 3}), 400, "players must be an integer 2..2")
    error(client.post("/api/games", json={"game": "gin", "rules": "nope"}), 400, "rules must be one of", "'classic'")
    error(client.post("/api/games", json={"game": "gin", "opponents": ["alphago"]}), 400, "unknown agent 'alphago'")
    error(client.post("/api/games", json={"game": "gin", "opponents": ["rummy-random"]}), 400, "Basic Rummy's 'random'")
    error(client.post("/api/games", json={"game": "romme", "opponents": ["mcts"]}), 400, "'mcts' is an agent of Gin Rummy")
    error(client.post("/api/games", json={"game": "gin", "rules": "openspiel", "episode": "match"}), 400, "no match")
    error(client.post("/api/games", json={"game": "gin", "colour": "red"}), 400, "unknown field(s) ['colour']")
    error(client.post("/api/games", content=b"[1, 2]", headers=JSON), 400, "JSON object")
    error(client.post("/api/games", content=b"{not json", headers=JSON), 400, "JSON object")
    error(client.post("/api/games", json={"mode": "watch", "seat": 0}), 400, "not 'opponents' or 'seat'")
    error(client.get("/api/games/nope"), 404, "no game 'nope'")
    error(client.post("/api/games/nope/advance", json={}), 404, "no game 'nope'")
    error(client.get(f"{path}?seat=1"), 403, "only their own seat")
    for bad in ("3", -1, 108, 2.0, True, None):
        error(client.post(f"{path}/move", json={"action": bad}), 400, "action must be an integer 0..107")
    error(client.post(f"{path}/move", json={}), 400, "action is required")
    error(client.post(f"{path}/move", json={"action": 3, "seat": 1}), 400, "unknown field(s) ['seat']")
    legal = {m["id"] for m in table["moves"]}
    illegal = next(a for a in range(108) if a not in legal)
    error(client.post(f"{path}/move", json={"action": illegal}), 400, f"action {illegal}", "is not legal now; legal:")
    error(client.post(f"{path}/advance", json={}), 409, "it is your turn")
    unchanged()
    table = client.post(f"{path}/move", json={"action": table["moves"][-1]["id"]}).json()
    if table["to_move"] == 1:  # the agent's turn: the person may not move
        error(client.post(f"{path}/move", json={"action": 0}), 409, "not your turn", "player_1 (random) is to move")
        unchanged()
    table = play_through(client, table, game_id, np.random.default_rng(0))
    for request in (lambda: client.post(f"{path}/move", json={"action": 0}), lambda: client.post(f"{path}/advance", json={})):
        error(request(), 409, "the game is over")
        unchanged()
    assert client.request("DELETE", path, headers=JSON).json() == {"deleted": game_id}
    error(client.get(path), 404)


def test_game_ids_are_unguessable_and_sessions_capped_and_dropped_when_idle():
    ids = set()
    clock = [0.0]
    sessions = Sessions(capacity=3, idle_seconds=60, clock=lambda: clock[0])
    for _ in range(3):
        ids.add(sessions.add(object()))  # type: ignore[arg-type]
    assert len(ids) == 3 and all(len(i) >= 22 for i in ids)  # 128 random bits, url-safe
    with pytest.raises(WebError) as full:
        sessions.add(object())  # type: ignore[arg-type]
    assert full.value.status == 503 and "holds 3 games" in full.value.message
    clock[0] = 30.0
    kept = next(iter(ids))
    sessions.get(kept)  # asked about: its idle time starts again
    clock[0] = 70.0
    assert sessions.sweep() == 2 and len(sessions) == 1
    sessions.add(object())  # type: ignore[arg-type]
    clock[0] = 200.0
    with pytest.raises(WebError) as gone:
        sessions.get(kept)
    assert gone.value.status == 404 and "idle minutes" in gone.value.message


def test_the_server_refuses_new_games_beyond_its_cap(records):
    with TestClient(create_app(records=records, max_games=2), base_url=BASE) as c:
        for _ in range(2):
            new_game(c, game="gin", opponents=["random"])
        error(c.post("/api/games", json={"game": "gin"}), 503, "holds 2 games")


# ----------------------------------------------------------------------------- no leaks


@pytest.mark.parametrize("game, players, opponent", [("gin", 2, "random"), ("basic", 3, "random"),
                                                     ("romme", 2, "random")])
def test_a_seat_is_sent_nothing_of_the_cards_it_cannot_know(client, app, game, players, opponent):
    """Mid-game and after each hand, the hidden cards dealt otherwise (the state's
    ``redeal_hidden``), the person's table is the same; a watcher of one seat too."""
    played = get_game(game)
    rng = np.random.default_rng(8)
    checked = moved = 0
    for mode in ("play", "watch"):
        body = {"opponents": [opponent], "seat": 1} if mode == "play" else {"agents": [opponent], "seed": 21}
        game_id, table = new_game(client, mode=mode, game=game, players=players, **body)
        session = app.state.sessions.get(game_id)
        query = "" if mode == "play" else "?seat=1"

        def check(answer):
            nonlocal checked, moved
            if checked >= 60 * (1 + (mode == "watch")):
                return
            before = client.get(f"/api/games/{game_id}{query}").json()
            assert before == answer or answer["kind"] == "watch"
            true_state, true_finished = session.env.game, list(session.finished)
            for _ in range(2):
                session.env.game = played.redeal_hidden(true_state, 1, rng)
                session.finished = [played.redeal_hidden(h, 1, rng) for h in true_finished]
                moved += session.env.game.card_places() != true_state.card_places()
                assert client.get(f"/api/games/{game_id}{query}").json() == before
            session.env.game, session.finished = true_state, true_finished
            checked += 1

        final = play_through(client, table, game_id, rng, check)
        check(final)
    assert checked > 40 and moved > 20  # the perturbation really dealt hidden cards otherwise


# ----------------------------------------------------------------------------- records


def test_records_list_a_leaderboard_and_replay_a_game_move_by_move(client, app, records):
    assert client.get("/api/records").json() == {"folders": [{"folder": "gin_small", "files": ["results.jsonl",
                                                                                              "summary.json"]}]}
    summary = client.get("/api/records/summary?folder=gin_small").json()
    assert [r["agent"] for r in summary["points_ratings"]] and set(summary["plots"]) == {"crosstable.png", "ratings.png"}
    assert all(r["ci95_low"] <= r["rating"] <= r["ci95_high"] for r in summary["ratings"])
    plot = client.get("/api/records/plot?folder=gin_small&name=crosstable.png")
    assert plot.status_code == 200 and plot.content.startswith(b"\x89PNG")
    listed = client.get("/api/records/games?folder=gin_small").json()
    assert listed["game"] == "gin" and len(listed["games"]) == 4 and all(g["replayable"] for g in listed["games"])
    lines = (records / "gin_small" / "results.jsonl").read_text().splitlines()
    record = json.loads(lines[2])
    answer = client.post("/api/replays", json={"folder": "gin_small", "key": record["key"]}).json()
    game_id, table = answer["id"], answer["table"]
    assert table["kind"] == "replay" and table["names"] == [f"player_{s} ({p})" for s, p in enumerate(record["players"])]
    assert len(table["views"]) == 2  # a record is replayed with every hand shown
    steps = 0
    while not table["over"]:
        table = client.post(f"/api/games/{game_id}/advance", json={}).json()
        steps += 1
    assert steps == len(record["hands"][0]["actions"])
    assert table["score"]["final"] and table["score"]["points"] == [record["margin"], -record["margin"]]
    error(client.post(f"/api/games/{game_id}/advance", json={}), 409, "the game is over")


@pytest.mark.parametrize("folder", ["../", "/etc", "gin_small/../..", "nowhere"])
def test_records_stay_under_their_folder(client, folder):
    response = client.get(f"/api/records/summary?folder={folder}")
    assert response.status_code in (400, 404) and "folder" in response.json()["error"]


def test_records_refuse_unknown_games_and_plots(client):
    error(client.post("/api/replays", json={"folder": "gin_small", "key": "9-9-9"}), 404, "no game '9-9-9'", "keys look like")
    error(client.get("/api/records/plot?folder=gin_small&name=secret.txt"), 400, "plot must be one of")


# ----------------------------------------------------------------------------- the command


def test_rummy_serve_starts_the_app_on_this_machine_by_default(monkeypatch, tmp_path, capsys):
    from rummy_env.cli import main
    from rummy_env.web import server

    started = {}
    monkeypatch.setattr(server, "run", lambda app, host, port: started.update(app=app, host=host, port=port))
    assert main(["serve", "--port", "8123", "--records", str(tmp_path)]) == 0
    assert started["host"] == "127.0.0.1" and started["port"] == 8123
    assert "http://127.0.0.1:8123/" in capsys.readouterr().out
    with TestClient(started["app"], base_url=BASE) as c:
        assert "Play against the computer" in c.get("/").text and c.get("/api/records").json() == {"folders": []}


def test_rummy_serve_without_the_web_extra_says_how_to_install_it_in_one_line():
    code = ("import importlib.util, sys; real = importlib.util.find_spec; "
            "importlib.util.find_spec = lambda name, *a: None if name == 'uvicorn' else real(name, *a); "
            "from rummy_env.cli import main; sys.exit(main(['serve']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().count("\n") == 0 and 'pip install -e ".[web]"' in out.stderr and "uvicorn" in out.stderr


def test_the_leaderboard_of_a_one_deal_tournament_sends_no_interval_as_null(tmp_path):
    small_tournament(tmp_path / "one", deals=1)
    with TestClient(create_app(records=tmp_path), base_url=BASE) as c:
        answer = c.get("/api/records/summary?folder=one")
        assert answer.status_code == 200, answer.text  # was a 500: NaN is no JSON
        assert all(a["points_ci95"] is None and a["win_share_ci95"] is None for a in answer.json()["agents"])
