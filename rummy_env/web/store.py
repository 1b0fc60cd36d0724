"""The people's tables' records: every game started at a table for people and every hand
finished there, in one SQLite file (``rummy serve --db PATH``).

Why SQLite, and why a row per hand written as the hand ends: the server may be stopped
any time (Ctrl-C, a crash, ``kill -9``), and a hand people played must not be lost with
it. Each hand is its own transaction, committed before the next move is played, in WAL
mode with full sync: a killed server leaves every finished hand in the file and the file
readable. The file is made when the first people's table starts (its folder too), so a
server that never seats people writes nothing.

Tables (``SCHEMA``): ``games`` (one row a table: its game, rules, length, seats, deal
number, when it started and ended, the final score) and ``hands`` (one row a finished
hand: its rewards, its record as ``rummy tournament`` writes hands, so that it can be
replayed, and who made each move, the person or the agent that stood in for them);
with accounts on (``rummy_env.web.accounts``), ``accounts`` (a name and its password's
argon2 hash) and ``logins`` (a digest of each logged-in browser's session token, never
the token). Times are UTC, ISO 8601. Anything reads it: ``sqlite3 FILE 'select * from
hands'``. A file of version 1 (before accounts) is brought to version 2 when opened.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional, Sequence

DB_NAME = "tables.sqlite3"  # the file's name in the records folder, by default
VERSION = 2  # the schema's version (PRAGMA user_version); 1 had no accounts and is upgraded
UPGRADABLE = (1,)  # versions brought to VERSION by adding the tables they lack
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,        -- the table's id (its page: /tables/ID)
    game TEXT NOT NULL,         -- gin, basic, romme
    rules TEXT NOT NULL,        -- the rules preset
    episode TEXT NOT NULL,      -- hand or match
    seats TEXT NOT NULL,        -- JSON: per seat {"person": name, "stand_in": spec} or {"agent": spec}
    deal INTEGER NOT NULL,      -- the deal number (the env's seed)
    started TEXT NOT NULL,
    ended TEXT,                 -- null while it is played (or if the server stopped first)
    score TEXT                  -- JSON: the final score {"title", "points"}
);
CREATE TABLE IF NOT EXISTS hands (
    game_id TEXT NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,    -- 1, 2, ... in the game
    ended TEXT NOT NULL,
    rewards TEXT NOT NULL,      -- JSON: points per seat
    record TEXT NOT NULL,       -- JSON: {"result", "length", "deck", "dealer", "actions"} (rummy_env.eval.games.hand_entry)
    moved_by TEXT NOT NULL,     -- JSON: per action, "person" or "agent" (an agent seat, or one standing in)
    PRIMARY KEY (game_id, number)
);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,      -- as its owner wrote it
    folded TEXT NOT NULL UNIQUE,  -- lower case: two names differ by more than case
    hash TEXT NOT NULL,         -- the password's argon2id hash (argon2-cffi)
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS logins (
    digest TEXT PRIMARY KEY,    -- SHA-256 of the session token (the token is in the browser's cookie only)
    name TEXT NOT NULL REFERENCES accounts(name),
    created TEXT NOT NULL,
    expires TEXT NOT NULL
);
"""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    """The records file at ``path``: checked now if it exists (a file that is not a SQLite
    database, or one of another program, stops the start with one line naming it), made
    when first written."""

    def __init__(self, path: "str | Path") -> None:
        self.path = Path(path)
        self._lock = threading.Lock()  # the agents' moves end hands in worker threads
        self._db: Optional[sqlite3.Connection] = None
        if self.path.exists():
            self._open()
        elif self.path.parent.exists() and not self.path.parent.is_dir():
            raise ValueError(f"--db {self.path}: {self.path.parent} is not a folder")

    def _open(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = db.execute("PRAGMA user_version").fetchone()[0]
        except (sqlite3.Error, OSError) as exc:
            raise ValueError(f"--db {self.path}: cannot be opened as a SQLite database ({exc})") from None
        if names and (not {"games", "hands"} <= names or version not in (VERSION, *UPGRADABLE)):
            db.close()
            raise ValueError(f"--db {self.path}: a SQLite database of another program (tables {sorted(names)}, "
                             f"version {version}); give a new file or one rummy serve wrote")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.executescript(SCHEMA)
        db.execute(f"PRAGMA user_version = {VERSION}")
        self._db = db
        return db

    def _write(self, sql: str, values: Sequence[Any]) -> None:
        with self._lock:
            db = self._open()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(sql, values)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def write(self, sql: str, values: Sequence[Any] = ()) -> None:
        """One statement in a transaction of its own (the accounts' changes)."""
        self._write(sql, values)

    def read(self, sql: str, values: Sequence[Any] = ()) -> list[tuple]:
        """The rows of a query (the file is made if it is not there yet)."""
        with self._lock:
            return self._open().execute(sql, values).fetchall()

    def game_started(self, key: str, game: str, rules: str, episode: str, seats: list[dict[str, Any]],
                     deal: int) -> None:
        self._write("INSERT INTO games (id, game, rules, episode, seats, deal, started) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (key, game, rules, episode, json.dumps(seats), deal, now()))

    def hand_ended(self, key: str, number: int, rewards: Sequence[int], record: dict[str, Any],
                   moved_by: list[str]) -> None:
        self._write("INSERT INTO hands (game_id, number, ended, rewards, record, moved_by) VALUES (?, ?, ?, ?, ?, ?)",
                    (key, number, now(), json.dumps([int(r) for r in rewards]), json.dumps(record),
                     json.dumps(moved_by)))

    def game_ended(self, key: str, score: Optional[dict[str, Any]]) -> None:
        self._write("UPDATE games SET ended = ?, score = ? WHERE id = ?", (now(), json.dumps(score), key))

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
