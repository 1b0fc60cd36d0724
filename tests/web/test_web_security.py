"""The web app against hostile clients (its test client, and curl on a real server): no file
named by a client is ever read, no request of another origin or host name is served, no
state changes without JSON, budgets and bodies are bounded before work starts, one client
cannot fill the server, a game played cannot be dealt again by another request until it is
over, every page carries the security headers, and a fuzz of the JSON API never gets a 500
or a traceback. The same attack from a page of another origin in a real browser is in
tests/web/test_web_browser.py."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from rummy_env.core.game import get_game  # noqa: E402
from rummy_env.web import MAX_THINK  # noqa: E402
from rummy_env.web.app import create_app  # noqa: E402
from rummy_env.web.choices import AgentChoices  # noqa: E402
from rummy_env.web.guard import MAX_BODY, Guard  # noqa: E402
from hostile_files import hostile_policy  # noqa: E402
from web_helpers import BASE, JSON, error, play_through, running_server  # noqa: E402


@pytest.fixture()
def app(tmp_path):
    return create_app(records=tmp_path, max_games=50, max_games_per_client=20)


@pytest.fixture()
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


# ----------------------------------------------------------------------------- files and code


def test_a_client_cannot_make_the_server_read_a_file_even_a_hostile_pickle(client, app, tmp_path):
    path, marker = hostile_policy(tmp_path)
    attack = json.dumps({"game": "gin", "opponents": [f"ppo:{path}"]})
    # the cross-origin form of the attack: text/plain, as a page's no-cors fetch sends it
    error(client.post("/api/games", content=attack, headers={"Content-Type": "text/plain"}), 415, "JSON")
    # and as JSON from a client that may send it: the path is refused before anything is read
    error(client.post("/api/games", content=attack, headers=JSON), 400, "names a file", "rummy serve --agent")
    missing = error(client.post("/api/games", json={"game": "gin", "opponents": ["ppo:/nonexistent.pt"]}), 400)
    shadow = error(client.post("/api/games", json={"game": "gin", "opponents": ["ppo:/etc/shadow"]}), 400)
    assert missing.replace("/nonexistent.pt", "X") == shadow.replace("/etc/shadow", "X")  # no existence oracle
    assert not marker.exists() and len(app.state.sessions) == 0


def test_the_operator_names_policy_files_and_a_hostile_one_stops_the_start_in_one_line(tmp_path):
    path, marker = hostile_policy(tmp_path)
    out = subprocess.run([sys.executable, "-m", "rummy_env.cli", "serve", "--agent", f"bad=ppo:{path}", "--records",
                          str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "--agent bad=" in out.stderr and "rummy convert-policy" in out.stderr
    assert not marker.exists()
    for pairs, words in ((["nameonly"], "NAME=SPEC"), (["heuristic=random"], "already an agent"),
                         (["a=random", "a=simple"], "named twice"), (["x y=random"], "a name is a letter")):
        with pytest.raises(ValueError, match=words):
            create_app(records=tmp_path, agents_named=AgentChoices.parse(pairs))


# ----------------------------------------------------------------------------- host, origin, type


def test_a_spoofed_host_is_refused_on_every_path_and_an_allowed_one_served(tmp_path):
    with TestClient(create_app(records=tmp_path), base_url="http://attacker.example:8000") as c:
        for path in ("/", "/api/options", "/static/common.js", "/api/records"):
            error(c.get(path), 400, "Host 'attacker.example:8000' is not served here", "--allow-host")
        error(c.post("/api/games", json={}), 400, "is not served here")
    with TestClient(create_app(records=tmp_path, allow_hosts=["attacker.example"]),
                    base_url="http://attacker.example:8000") as c:
        assert c.get("/api/options").status_code == 200
    for base in ("http://127.0.0.1:8000", "http://[::1]:8000", "http://LOCALHOST"):
        with TestClient(create_app(records=tmp_path), base_url=base) as c:
            assert c.get("/api/options").status_code == 200, base
    with TestClient(create_app(records=tmp_path, bound="192.168.1.5"), base_url="http://192.168.1.5:8000") as c:
        assert c.get("/api/options").status_code == 200


def test_only_the_servers_own_origin_may_send_requests(client, app, tmp_path):
    for origin in ("http://evil.example", "null", "http://localhost.evil.example", "http://localhost:9999"):
        error(client.post("/api/games", json={"game": "gin"}, headers={"Origin": origin}), 403, "refused", "--allow-origin")
    assert len(app.state.sessions) == 0
    assert client.post("/api/games", json={"game": "gin"}, headers={"Origin": BASE}).status_code == 200
    with TestClient(create_app(records=tmp_path, allow_origins=["http://mybox:8000/"]), base_url=BASE) as c:
        assert c.post("/api/games", json={"game": "gin"}, headers={"Origin": "http://mybox:8000"}).status_code == 200


def test_state_changing_requests_must_be_json(client, app):
    game_id = client.post("/api/games", json={"mode": "watch", "game": "gin", "agents": ["random"]}).json()["id"]
    for method, path in (("POST", "/api/games"), ("POST", f"/api/games/{game_id}/advance"),
                         ("DELETE", f"/api/games/{game_id}"), ("POST", "/api/replays")):
        for headers in ({}, {"Content-Type": "text/plain"}, {"Content-Type": "application/x-www-form-urlencoded"},
                        {"Content-Type": "multipart/form-data; boundary=x"}):
            error(client.request(method, path, content=b"{}", headers=headers), 415, "Content-Type: application/json")
    assert len(app.state.sessions) == 1 and not app.state.sessions.get(game_id).moves
    answer = client.post(f"/api/games/{game_id}/advance", content=b"{}",
                         headers={"Content-Type": "application/json; charset=utf-8"})
    assert answer.status_code == 200


def test_every_answer_carries_the_security_headers(client, tmp_path):
    answers = [client.get(p) for p in ("/", "/table/x", "/records", "/leaderboard", "/static/table.js", "/api/options",
                                       "/api/games/nope")]
    answers.append(client.post("/api/games", content=b"x", headers={"Content-Type": "text/plain"}))
    for answer in answers:
        h = answer.headers
        assert "script-src 'self'" in h["content-security-policy"] and "'unsafe-inline'" not in h["content-security-policy"]
        assert "frame-ancestors 'none'" in h["content-security-policy"]
        assert h["x-content-type-options"] == "nosniff" and h["x-frame-options"] == "DENY"
        assert h["referrer-policy"] == "no-referrer"


def test_the_pages_have_no_inline_script_or_style():
    from rummy_env.web.pages import PAGES, render_pages

    pages = render_pages()
    assert set(pages) == set(PAGES) and {"lobby", "people"} <= set(pages)
    for name, text in pages.items():
        assert "<script>" not in text and " style=" not in text and " onclick=" not in text, name
        tags = text.split("<script")[1:]
        assert tags and all('src="/static/' in tag for tag in tags), name


# ----------------------------------------------------------------------------- budgets and sizes


@pytest.mark.parametrize("spec, words", [
    ("mcts:time=1e9", "time may be at most 2"), ("mcts:time=20", "time may be at most 2"),
    ("mcts:simulations=1000000000", "simulations may be at most 10000"),
    ("heuristic:knock_worlds=100000000", "knock_worlds may be at most 20000"),
    ("hard:knock_worlds=30000", "knock_worlds may be at most 20000"),
    ("mcts:time=inf", "time may be at most 2"), ("mcts:time=nan", "time may be at most 2"),
    ("mcts:simulations=inf", "simulations may be at most 10000"),
    ("mcts:time=-1", "time must be a number of seconds > 0"), ("x" * 300, "at most 200 characters"),
])
def test_agent_budgets_from_clients_are_bounded_before_anything_is_made(client, app, spec, words):
    error(client.post("/api/games", json={"game": "gin", "opponents": [spec]}), 400, words)
    assert len(app.state.sessions) == 0


def test_a_budget_within_the_servers_limit_is_played_and_the_limit_is_an_option(client, tmp_path):
    game_id = client.post("/api/games", json={"game": "gin", "opponents": ["mcts:simulations=50,time=0.05"],
                                              "seat": 0}).json()["id"]
    table = client.get(f"/api/games/{game_id}").json()
    assert table["names"][1] == "player_1 (mcts:simulations=50,time=0.05)"
    with TestClient(create_app(records=tmp_path, max_think=30), base_url=BASE) as c:
        assert c.get("/api/options").json()["max_think"] == 30
        made = c.post("/api/games", json={"game": "gin", "opponents": ["mcts:time=20"]})
        assert made.status_code == 200  # allowed by this operator (not played here: it would think 20 s)
    with pytest.raises(ValueError, match="--max-think must be a number of seconds > 0"):
        create_app(records=tmp_path, max_think=float("inf"))


def test_an_agents_default_budget_counts_so_a_bare_name_buys_no_more_thinking(client, app, tmp_path):
    """``search`` plays 100 playouts a move by default, about 15 s in Gin Rummy and 4 s in
    Rommé: a bare name is held to the limit like a typed option, and is not offered as it
    is there; each game's playouts cost what its hands do (``Game.playout_seconds``)."""
    def most(game: str, rollout: str) -> int:  # the playouts a move the default 2 s buy
        table = get_game(game).playout_seconds
        return math.floor(MAX_THINK / table.get(rollout, table["*"]))

    assert most("romme", "heuristic") < 100 < most("basic", "heuristic")
    error(client.post("/api/games", json={"mode": "watch", "game": "romme", "agents": ["search"]}), 400,
          f"simulations=100 (its default) is not allowed here: simulations may be at most {most('romme', 'heuristic')}")
    error(client.post("/api/games", json={"mode": "watch", "game": "gin", "agents": ["search:simulations=14"]}), 400,
          f"simulations may be at most {most('gin', 'heuristic')}")
    too_many = most("basic", "heuristic") + 1
    error(client.post("/api/games", json={"mode": "watch", "game": "basic",
                                          "agents": [f"search:simulations={too_many}"]}), 400,
          f"simulations may be at most {too_many - 1}")
    error(client.post("/api/games", json={"mode": "watch", "game": "basic",  # a dearer rollout buys fewer playouts
                                          "agents": ["search:rollout=ppo,simulations=100"]}), 400,
          f"simulations may be at most {most('basic', 'ppo')}")
    assert len(app.state.sessions) == 0
    offered = {g["name"]: g["agents"] for g in client.get("/api/options").json()["games"]}
    assert "search" not in offered["gin"] and "search" not in offered["romme"] and "search" in offered["basic"]
    assert all("heuristic" in names for names in offered.values())
    romme = next(g for g in client.get("/api/options").json()["games"] if g["name"] == "romme")
    assert [lv["name"] for lv in romme["levels"]] == ["easy", "medium", "hard", "expert"]  # expert's 48 playouts fit
    for game, spec in (("gin", "search:simulations=13"), ("basic", f"search:simulations={too_many - 1}")):
        made = client.post("/api/games", json={"mode": "watch", "game": game, "agents": [spec]})
        assert made.status_code == 200, made.text
    with TestClient(create_app(records=tmp_path, max_think=30), base_url=BASE) as c:  # a generous operator
        offered = {g["name"]: g["agents"] for g in c.get("/api/options").json()["games"]}
        assert all("search" in names for names in offered.values())
    with TestClient(create_app(records=tmp_path, max_think=0.1), base_url=BASE) as c:  # a strict one: no mcts
        gin = next(g for g in c.get("/api/options").json()["games"] if g["name"] == "gin")
        assert "mcts" not in gin["agents"] and [lv["name"] for lv in gin["levels"]] == ["easy", "medium", "hard"]
        assert gin["default_agent"] in gin["agents"]


async def _call(app, headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> tuple[int, dict, int]:
    """``app`` called as a server would: a POST with ``headers`` and a body in ``chunks``;
    returns the status, the answer and how many chunks the app read."""
    read = 0
    answer: dict = {}

    async def receive():
        nonlocal read
        if read < len(chunks):
            read += 1
            return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
        elif message["type"] == "http.response.body":
            answer["body"] = answer.get("body", b"") + message.get("body", b"")

    scope = {"type": "http", "method": "POST", "path": "/api/games", "raw_path": b"/api/games", "query_string": b"",
             "headers": [(b"host", b"localhost")] + headers, "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000),
             "scheme": "http", "root_path": "", "http_version": "1.1"}
    await app(scope, receive, send)
    return answer["status"], json.loads(answer["body"]), read


def test_the_body_limit_is_checked_before_the_body_is_read(app):
    import asyncio

    ctype = (b"content-type", b"application/json")
    huge = [b"x" * 65536] * 3200  # 200 MB, had the server read it
    status, answer, read = asyncio.run(_call(app, [ctype, (b"content-length", str(200 * 2**20).encode())], huge))
    assert status == 413 and read == 0 and "at most 16384" in answer["error"]
    status, answer, read = asyncio.run(_call(app, [ctype], huge))  # no Content-Length: streamed up to the cap
    assert status == 413 and read == 1
    status, _, read = asyncio.run(_call(app, [ctype, (b"content-length", b"-5")], [b"{}"]))
    assert status == 400 and read == 0
    body = json.dumps({"game": "gin", "opponents": ["random"]}).encode()
    status, answer, _ = asyncio.run(_call(app, [ctype], [body[:10], body[10:]]))  # a body in two parts is whole
    assert status == 200 and answer["table"]["game"] == "gin"
    assert MAX_BODY == 16_384 and isinstance(app, Guard)


def test_one_client_cannot_fill_the_server(tmp_path):
    app = create_app(records=tmp_path, max_games=5, max_games_per_client=2)
    with TestClient(app, base_url=BASE, client=("10.0.0.1", 1)) as one, \
            TestClient(app, base_url=BASE, client=("10.0.0.2", 1)) as two:
        ids = [one.post("/api/games", json={"game": "gin"}).json()["id"] for _ in range(2)]
        error(one.post("/api/games", json={"game": "gin"}), 429, "you hold 2 games", "end one")
        assert two.post("/api/games", json={"game": "gin"}).status_code == 200  # another client still may
        assert one.request("DELETE", f"/api/games/{ids[0]}", headers=JSON).status_code == 200
        assert one.post("/api/games", json={"game": "gin"}).status_code == 200  # room again


@pytest.mark.parametrize("seat", ["²", "1x", "-1", "١", "99999999999999999999", "", " 1", "all1"])
@pytest.mark.parametrize("mode", ["watch", "play"])
def test_every_bad_query_value_is_a_400(client, seat, mode):
    body = {"agents": ["random"]} if mode == "watch" else {"opponents": ["random"], "seat": 0}
    game_id = client.post("/api/games", json={"mode": mode, "game": "gin", **body}).json()["id"]
    error(client.get(f"/api/games/{game_id}", params={"seat": seat}), 400, "seat must be 'all' or a seat 0..1")
    if mode == "play":  # a well-formed seat that is not the person's: forbidden, not malformed
        error(client.get(f"/api/games/{game_id}", params={"seat": "1"}), 403, "only their own seat")


def test_a_body_nested_thousands_deep_is_a_400(client):
    deep = b"[" * 8000 + b"]" * 8000
    error(client.post("/api/games", content=deep, headers=JSON), 400, "JSON object")


# ----------------------------------------------------------------------------- deals


def test_a_game_played_is_dealt_secretly_and_its_deal_told_when_it_is_over(client, app):
    error(client.post("/api/games", json={"game": "gin", "seed": 7}), 400, "dealt secretly", "games to watch")
    game_id = client.post("/api/games", json={"game": "gin", "opponents": ["random"], "seat": 0}).json()["id"]
    other = client.post("/api/games", json={"game": "gin", "opponents": ["random"], "seat": 0}).json()["id"]
    table = client.get(f"/api/games/{game_id}").json()
    assert table["deal"] is None
    held = app.state.sessions.get(game_id)
    assert held.deal != app.state.sessions.get(other).deal and 40 < held.deal.bit_length() <= 53  # exact in JavaScript
    error(client.post("/api/games", json={"mode": "watch", "game": "gin", "seed": 2**53}), 400, "seed must be an integer")
    final = play_through(client, table, game_id, np.random.default_rng(0))
    assert final["over"] and final["deal"] == held.deal
    watched = client.post("/api/games", json={"mode": "watch", "game": "gin", "agents": ["random"],
                                              "seed": final["deal"]}).json()
    assert watched["table"]["deal"] == final["deal"]
    again, played = app.state.sessions.get(watched["id"]).state.clone(), held.finished[0]
    for action in played.actions:  # the same cards: the person's moves play out the same hand
        again.step(action)
    assert again.card_places() == played.card_places() and again.result.rewards == played.result.rewards


# ----------------------------------------------------------------------------- a fuzz of the API


VALUES = [None, True, 0, -1, 2**70, 1.5, float("1e308"), "", "x", "gin", "²", "\x00", "../../etc/passwd", "ppo:/etc/x",
          "mcts:time=1e9", "random", [], ["random"], [1, 2], {}, {"a": 1}, "a" * 5000, [[[[[[[[[[[]]]]]]]]]]],
          {"a": {"b": {"c": [None, {"d": []}]}}}]
KEYS = ["mode", "game", "players", "rules", "opponents", "agents", "seat", "episode", "seed", "action", "folder", "key"]


def test_a_fuzz_of_the_json_api_never_gets_a_500_or_a_traceback(client, app):
    rng = np.random.default_rng(42)
    made = client.post("/api/games", json={"mode": "watch", "game": "basic", "agents": ["random"]}).json()["id"]
    ids = [made, "nope", "", "%00", "../x", "a" * 300]
    routes = [("POST", "/api/games"), ("POST", "/api/replays"), ("GET", "/api/records/summary"),
              ("GET", "/api/records/games"), ("GET", "/api/records/plot")]
    for _ in range(600):
        body = {KEYS[k]: VALUES[int(rng.integers(len(VALUES)))] for k in rng.choice(len(KEYS), int(rng.integers(0, 5)),
                                                                                     replace=False)}
        game = ids[int(rng.integers(len(ids)))]
        choices = routes + [("POST", f"/api/games/{game}/move"), ("POST", f"/api/games/{game}/advance"),
                            ("GET", f"/api/games/{game}"), ("DELETE", f"/api/games/{game}")]
        method, path = choices[int(rng.integers(len(choices)))]
        params = {k: str(v) for k, v in body.items()} if method == "GET" else None
        if method == "GET":
            params["seat"] = str(VALUES[int(rng.integers(len(VALUES)))])
            answer = client.get(path, params=params)
        else:
            content = json.dumps(body) if rng.random() < 0.9 else bytes(rng.integers(0, 256, 40).astype(np.uint8))
            answer = client.request(method, path, content=content, headers=JSON)
        assert answer.status_code < 500, (method, path, body, answer.text)
        assert "Traceback" not in answer.text
        if answer.status_code == 200 and path in ("/api/games", "/api/replays"):
            ids.append(answer.json()["id"])
        if answer.status_code >= 400 and answer.headers.get("content-type") == "application/json":
            assert answer.json()["error"]


# ----------------------------------------------------------------------------- curl on a real server


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_curl_text_plain_and_a_spoofed_host_are_refused_on_a_real_server(tmp_path):
    path, marker = hostile_policy(tmp_path)
    app = create_app(records=tmp_path)
    body = json.dumps({"game": "gin", "opponents": [f"ppo:{path}"]})
    with running_server(app) as url:
        def curl(*args: str) -> tuple[int, dict]:
            out = subprocess.run(["curl", "-s", "-o", "-", "-w", "\n%{http_code}", *args], capture_output=True,
                                 text=True, timeout=60)
            text, _, code = out.stdout.rpartition("\n")
            return int(code), json.loads(text)

        code, answer = curl("-X", "POST", "-H", "Content-Type: text/plain", "--data", body, url + "/api/games")
        assert code == 415 and "JSON" in answer["error"]
        code, answer = curl("-X", "POST", "-H", "Content-Type: application/json", "--data", body, url + "/api/games")
        assert code == 400 and "names a file" in answer["error"]
        code, answer = curl("-H", "Host: attacker.example", url + "/api/options")
        assert code == 400 and "not served here" in answer["error"]
        code, answer = curl("-X", "POST", "-H", "Host: attacker.example", "-H", "Content-Type: application/json",
                            "--data", json.dumps({"game": "gin"}), url + "/api/games")
        assert code == 400 and len(app.state.sessions) == 0
        code, answer = curl("-X", "POST", "-H", "Content-Type: application/json", "-H", "Origin: http://evil.example",
                            "--data", json.dumps({"game": "gin"}), url + "/api/games")
        assert code == 403 and len(app.state.sessions) == 0
    assert not marker.exists()
