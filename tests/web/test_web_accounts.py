"""Accounts (``rummy serve --accounts``, ``rummy_env.web.accounts``): signing up, logging in
and out, what the file keeps (a hash, a digest: never a password or a token), the bounds
on guessing, sign-ups and hashing, and the people's tables played by accounts: a login
needed to open or join one, the account's name on its seat, a seat token that acts only
with its account's login, and tables served beyond this machine only with accounts on.
Then two people sign up and sit at one table in real browsers."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

pytest.importorskip("starlette")
argon2 = pytest.importorskip("argon2")

from starlette.testclient import TestClient  # noqa: E402

from rummy_env.web.accounts import COOKIE, Accounts, Recent, digest  # noqa: E402
from rummy_env.web.app import create_app  # noqa: E402
from rummy_env.web.sessions import WebError  # noqa: E402
from rummy_env.web.store import Store  # noqa: E402
from web_helpers import chromium_pages, error, running_server, wait_until  # noqa: E402

BASE = "http://localhost"
CHEAP = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # the tests' hashes: fast, still argon2id


def app_with_accounts(tmp_path, **options):
    return create_app(records=tmp_path, accounts=True, hasher=CHEAP, **options)


def sign_up(client, name: str, password: str = "correct horse"):
    answer = client.post("/api/account/signup", json={"name": name, "password": password})
    assert answer.status_code == 200, answer.text
    return answer


# ----------------------------------------------------------------------------- signing up, logging in and out


def test_accounts_are_off_unless_asked_for(tmp_path):
    with TestClient(create_app(records=tmp_path), base_url=BASE) as c:
        assert c.get("/api/account").json() == {"accounts": False, "name": None}
        for path in ("/api/account/signup", "/api/account/login", "/api/account/logout"):
            error(c.post(path, json={}), 404, "accounts are off", "rummy serve --accounts")


def test_sign_up_logs_in_with_a_cookie_the_page_cannot_read_and_the_file_keeps_only_a_hash(tmp_path):
    with TestClient(app_with_accounts(tmp_path), base_url=BASE) as c:
        answer = sign_up(c, "Ann")
        assert answer.json() == {"accounts": True, "name": "Ann"}
        cookie = answer.headers["set-cookie"]
        token = c.cookies[COOKIE]
        assert len(token) >= 40 and "HttpOnly" in cookie and "samesite=strict" in cookie.lower()
        assert "secure" not in cookie.lower()  # a page over plain HTTP would never send a Secure cookie back
        assert c.get("/api/account").json() == {"accounts": True, "name": "Ann"}
        db = sqlite3.connect(tmp_path / "tables.sqlite3")
        (name, folded, hashed), = db.execute("SELECT name, folded, hash FROM accounts").fetchall()
        assert (name, folded) == ("Ann", "ann") and hashed.startswith("$argon2id$") and "correct horse" not in hashed
        (kept,), = db.execute("SELECT digest FROM logins").fetchall()
        assert kept == digest(token) and token not in kept
        assert c.post("/api/account/logout", json={}).json() == {"accounts": True, "name": None}
        assert c.get("/api/account").json()["name"] is None
        assert db.execute("SELECT count(*) FROM logins").fetchone() == (0,)  # the login is over on the server too
    with TestClient(app_with_accounts(tmp_path / "s"), base_url="https://localhost") as c:
        assert "secure" in sign_up(c, "Bea").headers["set-cookie"].lower()  # over HTTPS the cookie is Secure


@pytest.mark.parametrize("body, status, words", [
    ({"name": "A", "password": "correct horse"}, 400, "name must be 2 to 24 letters"),
    ({"name": "Ann Lee", "password": "correct horse"}, 400, "name must be 2 to 24 letters"),
    ({"name": "x" * 25, "password": "correct horse"}, 400, "name must be 2 to 24"),
    ({"name": ["Ann"], "password": "correct horse"}, 400, "name must be"),
    ({"name": "Ann", "password": "short"}, 400, "password must be 8 to 128 characters, got 5 characters"),
    ({"name": "Ann", "password": "p" * 129}, 400, "got 129 characters"),
    ({"name": "Annabelle", "password": "ANNABELLE"}, 400, "must not be the account's name"),
    ({"name": "Ann", "password": 12345678}, 400, "password must be 8 to 128 characters, got int"),
    ({"name": "Ann", "password": "correct horse", "admin": True}, 400, "unknown field(s) ['admin']"),
])
def test_a_bad_sign_up_is_refused_naming_what_is_allowed(tmp_path, body, status, words):
    with TestClient(app_with_accounts(tmp_path), base_url=BASE) as c:
        message = error(c.post("/api/account/signup", json=body), status, words)
        assert "\n" not in message
        assert c.get("/api/account").json()["name"] is None


def test_names_differ_by_more_than_case_and_a_login_finds_the_name_in_any_case(tmp_path):
    with TestClient(app_with_accounts(tmp_path), base_url=BASE) as c:
        sign_up(c, "Ann")
        error(c.post("/api/account/signup", json={"name": "aNN", "password": "another one"}), 409, "'aNN' is taken")
        c.post("/api/account/logout", json={})
        answer = c.post("/api/account/login", json={"name": "ANN", "password": "correct horse"})
        assert answer.json() == {"accounts": True, "name": "Ann"}  # the name as its owner wrote it


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer_after_the_same_work(tmp_path):
    checked = []

    class Spy(argon2.PasswordHasher):
        def verify(self, hash, password):  # noqa: A002
            checked.append(hash)
            return super().verify(hash, password)

    app = create_app(records=tmp_path, accounts=True, hasher=Spy(time_cost=1, memory_cost=8, parallelism=1))
    with TestClient(app, base_url=BASE) as c:
        sign_up(c, "Ann")
        c.post("/api/account/logout", json={})
        wrong = c.post("/api/account/login", json={"name": "Ann", "password": "not the one"})
        unknown = c.post("/api/account/login", json={"name": "Nobody", "password": "not the one"})
        assert wrong.status_code == unknown.status_code == 401 and wrong.json() == unknown.json()
        assert len(checked) == 2 and all(h.startswith("$argon2id$") for h in checked)  # a hash checked for both
        assert COOKIE not in c.cookies


def test_guessing_is_stopped_before_any_hash_is_computed(tmp_path):
    accounts = Accounts(Store(tmp_path / "t.sqlite3"), CHEAP, failures=3, window=60.0)
    token = accounts.sign_up("Ann", "correct horse", "10.0.0.1")
    assert accounts.who(token) == "Ann"
    for _ in range(3):
        with pytest.raises(WebError, match="wrong name or password"):
            accounts.log_in("Ann", "guess guess", "10.0.0.9")
    with pytest.raises(WebError, match=r"too many wrong passwords from this address lately \(3 within 1 minutes\)") as refusal:
        accounts.log_in("Ann", "correct horse", "10.0.0.9")  # even the right password, from that address
    assert refusal.value.status == 429
    name, _ = accounts.log_in("Ann", "correct horse", "10.0.0.2")  # another address logs in
    assert name == "Ann"


def test_the_limits_count_per_name_and_per_client_and_forget_after_the_window():
    now = [0.0]
    recent = Recent("wrong passwords", per_name=2, per_client=3, window=10.0, clock=lambda: now[0])
    for name in ("ann", "ANN"):
        recent.check("c", name)
        recent.count("c", name)
    with pytest.raises(WebError, match="2 within"):
        recent.check("c", "Ann")  # names counted whatever their case
    recent.check("c", "bob")
    recent.count("c", "bob")
    with pytest.raises(WebError, match="3 within"):
        recent.check("c", "cy")  # the address's own limit, for any name
    recent.check("other", "ann")  # another client is not held back
    now[0] = 10.0
    recent.check("c", "ann")  # the window has passed


def test_sign_ups_per_client_and_accounts_in_all_are_bounded(tmp_path):
    accounts = Accounts(Store(tmp_path / "t.sqlite3"), CHEAP, signups=2, max_accounts=3)
    accounts.sign_up("a1", "password 1", "c1")
    accounts.sign_up("a2", "password 2", "c1")
    with pytest.raises(WebError, match="too many accounts made from this address"):
        accounts.sign_up("a3", "password 3", "c1")
    accounts.sign_up("a3", "password 3", "c2")
    with pytest.raises(WebError, match="holds 3 accounts, its limit") as refusal:
        accounts.sign_up("a4", "password 4", "c3")
    assert refusal.value.status == 503


def test_hashing_is_bounded_and_a_flood_of_logins_is_turned_away(tmp_path):
    release = threading.Event()

    class Slow(argon2.PasswordHasher):
        def verify(self, hash, password):  # noqa: A002
            release.wait(10)
            return super().verify(hash, password)

    accounts = Accounts(Store(tmp_path / "t.sqlite3"), Slow(time_cost=1, memory_cost=8, parallelism=1), hashing=1,
                        queue=1)
    accounts.sign_up("Ann", "correct horse", "c")
    results = []

    def attempt() -> None:
        try:
            results.append(accounts.log_in("Ann", "correct horse", "c")[0])
        except WebError as exc:
            results.append(exc.status)

    threads = [threading.Thread(target=attempt) for _ in range(2)]  # one hashing, one waiting
    for t in threads:
        t.start()
    time.sleep(0.3)
    attempt()  # a third finds no slot: refused at once, no hash computed
    assert results == [503]
    release.set()
    for t in threads:
        t.join()
    assert sorted(map(str, results)) == ["503", "Ann", "Ann"]


def test_a_login_expires_and_an_account_keeps_its_latest_logins_only(tmp_path):
    now = [1_000_000.0]
    accounts = Accounts(Store(tmp_path / "t.sqlite3"), CHEAP, session_days=1, clock=lambda: now[0])
    first = accounts.sign_up("Ann", "correct horse", "c")
    tokens = [accounts.log_in("Ann", "correct horse", "c")[1] for _ in range(20)]
    assert accounts.who(first) is None and accounts.who(tokens[0]) == "Ann"  # 20 kept: the oldest ended
    now[0] += 86_401
    assert accounts.who(tokens[-1]) is None
    assert accounts.who(None) is None and accounts.who("x" * 500) is None


def test_logins_are_json_from_our_own_origin_only(tmp_path):
    with TestClient(app_with_accounts(tmp_path), base_url=BASE) as c:
        sign_up(c, "Ann")
        c.post("/api/account/logout", json={})
        form = c.post("/api/account/login", content="name=Ann&password=correct+horse",
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
        error(form, 415, "must be sent as JSON")
        foreign = c.post("/api/account/login", json={"name": "Ann", "password": "correct horse"},
                         headers={"Origin": "http://evil.example"})
        error(foreign, 403, "requests from the page at 'http://evil.example' are refused")
        assert c.get("/api/account").json()["name"] is None


def test_a_file_of_the_first_version_is_upgraded_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript("""
        CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, episode TEXT NOT NULL,
            seats TEXT NOT NULL, deal INTEGER NOT NULL, started TEXT NOT NULL, ended TEXT, score TEXT);
        CREATE TABLE hands (game_id TEXT NOT NULL REFERENCES games(id), number INTEGER NOT NULL, ended TEXT NOT NULL,
            rewards TEXT NOT NULL, record TEXT NOT NULL, moved_by TEXT NOT NULL, PRIMARY KEY (game_id, number));
        INSERT INTO games VALUES ('g1', 'gin', 'gin', 'hand', '[]', 7, '2026-01-01T00:00:00+00:00', NULL, NULL);
        PRAGMA user_version = 1;
    """)
    old.close()
    accounts = Accounts(Store(path), CHEAP)
    assert accounts.who(accounts.sign_up("Ann", "correct horse", "c")) == "Ann"
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (2,)
    assert db.execute("SELECT id, deal FROM games").fetchall() == [("g1", 7)]


# ----------------------------------------------------------------------------- tables played by accounts


def test_tables_need_a_login_sit_the_account_and_a_token_acts_only_with_its_login(tmp_path):
    with TestClient(app_with_accounts(tmp_path), base_url=BASE) as c:
        logins: dict[str, str] = {}

        def as_(person: str) -> TestClient:
            """The client, as ``person``'s browser: their login's cookie, or none."""
            c.cookies.clear()
            if person in logins:
                c.cookies.set(COOKIE, logins[person])
            return c

        def signed_up(person: str) -> None:
            as_("nobody")
            sign_up(c, person)
            logins[person] = c.cookies[COOKIE]

        seats = {"game": "gin", "seats": ["person", "person"], "pace": 0}
        error(as_("Ann").post("/api/tables", json=seats), 401, "log in first")
        signed_up("Ann")
        error(as_("Ann").post("/api/tables", json={**seats, "name": "Queen"}), 400,
              "a seat's name is its account's ('Ann')")
        made = as_("Ann").post("/api/tables", json=seats).json()
        key, invite = made["id"], made["invites"][0]["invite"]
        assert made["table"]["status"]["seats"][0]["name"] == "Ann"
        error(as_("Bob").post(f"/api/tables/{key}/join", json={"invite": invite}), 401, "log in first")
        error(as_("Ann").post(f"/api/tables/{key}/join", json={"invite": invite}), 409,
              "has a seat at this table already")
        signed_up("Bob")
        joined = as_("Bob").post(f"/api/tables/{key}/join", json={"invite": invite}).json()
        assert [s["name"] for s in joined["table"]["status"]["seats"]] == ["Ann", "Bob"]
        # Ann's token, read off her page's address by someone else, is no use without her login
        signed_up("Eve")
        for person in ("nobody", "Eve", "Bob"):
            error(as_(person).post(f"/api/tables/{key}/ready", json={"token": made["token"], "ready": True}), 403,
                  "taken by the account 'Ann'")
            error(as_(person).get(f"/api/tables/{key}", params={"token": made["token"]}), 403, "log in as it")
        error(as_("Eve").get(f"/api/tables/{key}/events", params={"token": made["token"]}), 403,
              "taken by the account 'Ann'")
        assert as_("Eve").get(f"/api/tables/{key}").json()["status"]["you"] is None  # watching needs no seat
        for person, token in (("Ann", made["token"]), ("Bob", joined["token"])):
            assert as_(person).post(f"/api/tables/{key}/ready", json={"token": token, "ready": True}).status_code == 200
        assert c.app.state.lobby.get(key).started
    seats = sqlite3.connect(tmp_path / "tables.sqlite3").execute("SELECT seats FROM games").fetchone()[0]
    assert '"person": "Ann"' in seats and '"account": true' in seats


def test_tables_are_served_beyond_this_machine_only_with_accounts(tmp_path, monkeypatch, capsys):
    from rummy_env.cli import main
    from rummy_env.web import server

    with TestClient(create_app(records=tmp_path, bound="0.0.0.0"), base_url=BASE) as c:
        error(c.get("/api/tables"), 403, "people's tables are off", "rummy serve --accounts")
    with TestClient(app_with_accounts(tmp_path / "on", bound="0.0.0.0"), base_url=BASE) as c:
        assert c.get("/api/tables").status_code == 200
        error(c.post("/api/tables", json={"game": "gin", "seats": ["person", "hard"]}), 401, "log in first")
    started = {}
    monkeypatch.setattr(server, "run", lambda app, host, port: started.update(app=app))
    assert main(["serve", "--host", "0.0.0.0", "--accounts", "--records", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "need a login (accounts are on)" in out and "HTTPS" in out
    assert started["app"].state.lobby.refusal is None and started["app"].state.lobby.accounts is not None


# ----------------------------------------------------------------------------- in real browsers


def test_two_people_sign_up_and_sit_at_one_table_in_two_browsers(browser_ready, tmp_path):
    app = app_with_accounts(tmp_path)
    with running_server(app) as url, chromium_pages(2) as (ann, bob):
        ann.goto(url + "/lobby")
        ann.wait_for_selector("#account:not([hidden])")
        assert ann.locator("#create-name").is_hidden() and ann.locator("#create-start").is_disabled()
        ann.fill("#account-user", "Ann")
        ann.fill("#account-password", "correct horse")
        ann.click("#account-signup")
        wait_until(ann, "document.getElementById('account-name').textContent === 'Ann'")
        assert ann.locator("#account-password").input_value() == ""
        assert ann.evaluate("document.cookie") == ""  # HttpOnly: the page's scripts never hold the login
        ann.wait_for_selector("#create-game option[value=gin]", state="attached")
        ann.select_option("#create-agent-1", "person")
        ann.click("#create-start")
        ann.wait_for_selector(".invite input.link")
        link = ann.locator(".invite[data-seat='1'] input.link").input_value()
        bob.goto(link)
        bob.wait_for_selector("#join:not([hidden])")
        bob.wait_for_selector("#account:not([hidden])")  # the account's answer applied (it may come after the table's)
        assert bob.locator("#join-go").is_disabled() and bob.locator("#join-name").is_hidden()
        bob.fill("#account-user", "Bob")
        bob.fill("#account-password", "another password")
        bob.click("#account-signup")
        wait_until(bob, "document.getElementById('account-name').textContent === 'Bob'")
        bob.click("#join-go")
        wait_until(bob, "!document.getElementById('ready').hidden")
        wait_until(ann, "document.querySelector('#seat-list tr[data-seat=\"1\"]').textContent.includes('Bob')")
        for page in (ann, bob):
            page.click("#ready")
        for page in (ann, bob):
            wait_until(page, "['yours', 'others'].includes(document.getElementById('table').dataset.state)")


# ----------------------------------------------------------------------------- the players' leaderboard


def test_the_players_leaderboard_counts_accounts_games_worked_out_by_hand(tmp_path):
    from rummy_env.web.players import standings

    store = Store(tmp_path / "t.sqlite3")
    ann, bob, guest = {"person": "Ann", "stand_in": "medium", "account": True}, \
        {"person": "Bob", "stand_in": "medium", "account": True}, {"person": "Ann", "stand_in": "medium"}
    games = [  # (id, game, rules, seats, final points, the hands' rewards)
        ("g1", "gin", "gin", [ann, {"agent": "hard"}], [120, 40], [[25, -25], [0, 0], [-10, 10]]),
        ("g2", "gin", "gin", [ann, bob], [50, 50], [[12, -12]]),  # a shared highest: a draw for both
        ("g3", "romme", "romme", [bob, ann, {"agent": "easy"}], [30, -10, -20], [[30, -10, -20]]),
        ("g4", "gin", "gin", [guest, {"agent": "hard"}], [100, 0], [[100, -100]]),  # a guest: not counted
    ]
    for key, game, rules, seats, points, rewards in games:
        store.game_started(key, game, rules, "match", seats, 1)
        for number, r in enumerate(rewards, 1):
            store.hand_ended(key, number, r, {}, [])
        store.game_ended(key, {"title": "over", "points": points, "final": True})
    store.game_started("g5", "gin", "gin", "hand", [ann, {"agent": "hard"}], 1)  # not ended: not counted
    board = standings(store)
    rows = {(r["name"], r["game"]): r for r in board["players"]}
    assert set(rows) == {("Ann", "gin"), ("Bob", "gin"), ("Ann", "romme"), ("Bob", "romme")}
    assert rows[("Ann", "gin")] == {"name": "Ann", "game": "gin", "rules": "gin", "games": 2, "won": 1, "drawn": 1,
                                    "points": 170, "hands": 4, "hands_won": 2}
    assert rows[("Bob", "gin")] == {"name": "Bob", "game": "gin", "rules": "gin", "games": 1, "won": 0,
                                         "drawn": 1, "points": 50, "hands": 1, "hands_won": 0}
    assert (rows[("Bob", "romme")]["won"], rows[("Ann", "romme")]["points"]) == (1, -10)
    against = {(r["name"], r["opponent"], r["game"]): r for r in board["opponents"]}
    assert (against[("Ann", "hard", "gin")]["games"], against[("Ann", "Bob", "gin")]["drawn"],
            against[("Ann", "Bob", "romme")]["won"], against[("Ann", "easy", "romme")]["games"]) == (1, 1, 0, 1)
    assert [k for k in against if k[1] == "guest"] == [] and against[("Bob", "Ann", "romme")]["won"] == 1


def test_the_players_page_shows_an_account_that_played_a_table_to_its_end(tmp_path, monkeypatch):
    from rummy_env.web import players

    monkeypatch.setattr(players, "CACHE_SECONDS", 0.0)  # every request reads the file
    with TestClient(app_with_accounts(tmp_path), base_url=BASE) as c:
        assert c.get("/api/players").json() == {"players": [], "opponents": []}
        assert "Players" in c.get("/players").text
        sign_up(c, "Ann")
        made = c.post("/api/tables", json={"game": "gin", "seats": ["person", "hard"], "pace": 0}).json()
        key, token = made["id"], made["token"]
        c.post(f"/api/tables/{key}/ready", json={"token": token, "ready": True})
        deadline = time.monotonic() + 60
        while True:
            mine = c.get(f"/api/tables/{key}", params={"token": token}).json()["table"]
            if mine["over"]:
                break
            assert time.monotonic() < deadline
            if mine["moves"]:
                c.post(f"/api/tables/{key}/move", json={"token": token, "action": mine["moves"][0]["id"]})
            else:
                time.sleep(0.02)
        points = mine["score"]["points"]
        (row,) = c.get("/api/players").json()["players"]
        assert (row["name"], row["game"], row["games"], row["hands"]) == ("Ann", "gin", 1, 1)
        assert (row["won"], row["drawn"], row["points"]) == (points[0] > points[1], points[0] == points[1], points[0])



def test_an_account_replays_its_own_ended_games_and_no_one_else_s(tmp_path, monkeypatch):
    with TestClient(app_with_accounts(tmp_path), base_url=BASE) as c:
        error(c.get("/api/account/games"), 401, "log in first")
        sign_up(c, "Ann")
        ann = c.cookies[COOKIE]
        made = c.post("/api/tables", json={"game": "basic", "players": 3, "seats": ["person", "easy", "hard"],
                                           "pace": 0}).json()
        key, token = made["id"], made["token"]
        error(c.post("/api/account/replays", json={"game": key}), 404, "no ended game")  # not over yet
        c.post(f"/api/tables/{key}/ready", json={"token": token, "ready": True})
        deadline = time.monotonic() + 60
        while not (mine := c.get(f"/api/tables/{key}", params={"token": token}).json()["table"])["over"]:
            assert time.monotonic() < deadline
            if mine["moves"]:
                c.post(f"/api/tables/{key}/move", json={"token": token, "action": mine["moves"][-1]["id"]})
            else:
                time.sleep(0.02)
        (listed,) = c.get("/api/account/games").json()["games"]
        assert (listed["id"], listed["game"], listed["seat"], listed["names"]) == (key, "basic", 0, ["Ann", "easy", "hard"])
        replay = c.post("/api/account/replays", json={"game": key}).json()
        shown = c.get(f"/api/games/{replay['id']}").json()
        assert shown["kind"] == "replay" and all(n in shown["names"][k] for k, n in enumerate(["Ann", "easy", "hard"]))
        moves = sum(len(h["actions"]) for h in c.app.state.lobby.get(key).hand_records())
        assert c.post(f"/api/games/{replay['id']}/seek", json={"move": moves}).json()["over"]
        c.cookies.clear()
        sign_up(c, "Bob")
        error(c.post("/api/account/replays", json={"game": key}), 404, "no ended game")  # Bob did not sit there
        assert c.get("/api/account/games").json()["games"] == []
        c.cookies.set(COOKIE, ann)
        error(c.post("/api/account/replays", json={"game": ["x"]}), 400, "game must be the id")


PLAY_TO_THE_END = """async () => {
  const made = await api("POST", "/api/tables", {game: "gin", seats: ["person", "hard"], pace: 0});
  await api("POST", `/api/tables/${made.id}/ready`, {token: made.token, ready: true});
  for (let i = 0; i < 2000; i++) {
    const mine = (await api("GET", `/api/tables/${made.id}?token=${made.token}`)).table;
    if (mine.over) return made.id;
    if (mine.moves.length) await api("POST", `/api/tables/${made.id}/move`, {token: made.token, action: mine.moves[0].id});
    else await new Promise((done) => setTimeout(done, 20));
  }
  return null;
}"""


def test_the_players_page_lists_your_games_and_replays_one_in_a_browser(browser_ready, tmp_path, monkeypatch):
    from rummy_env.web import players

    monkeypatch.setattr(players, "CACHE_SECONDS", 0.0)
    app = app_with_accounts(tmp_path)
    with running_server(app) as url, chromium_pages(1) as (ann,):
        ann.goto(url + "/lobby")
        ann.wait_for_selector("#account:not([hidden])")
        ann.fill("#account-user", "Ann")
        ann.fill("#account-password", "correct horse")
        ann.click("#account-signup")
        wait_until(ann, "document.getElementById('account-name').textContent === 'Ann'")
        key = ann.evaluate(PLAY_TO_THE_END)
        assert key is not None
        ann.click("header.top a[href='/players']")
        ann.wait_for_selector(f"#my-games tr[data-id='{key}']")
        assert "Ann (you)" in ann.locator(f"#my-games tr[data-id='{key}']").text_content()
        assert ann.locator("#players tbody tr").first.text_content().startswith("Anngin")
        ann.click(f"#my-games tr[data-id='{key}'] button.replay")
        ann.wait_for_url(f"{url}/table/*")
        ann.wait_for_selector("#table[data-version]")
        assert "replay" in ann.title()
