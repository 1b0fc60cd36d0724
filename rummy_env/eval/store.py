"""results.jsonl: the tournament's results, appended one game per line as games finish.

The first line is a header with the settings that decide the games; a rerun with other
settings is refused with the difference named, but for more deals: a finished (or
unfinished) tournament is grown by rerunning it with a larger ``deals``, which keeps its
games and plays the new deals (each game's outcome depends only on its own deal, so the
result is the same as a run with that many deals from the start). On a rerun the games
already in the file are skipped, so a crash or Ctrl-C loses nothing and counts nothing
twice; each is checked first (its fields, and that its key is a game of this tournament,
once), so a damaged line is named rather than counted. A last line cut off by a crash
(no newline at the end) is the one thing repaired: it is dropped and that game played
again. Anything else unreadable is an error, never overwritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional

from rummy_env.core.files import write_atomically
from rummy_env.core.game import get_game
from rummy_env.eval.config import DEFAULT_GAME
from rummy_env.eval.games import AnyGame, PairGame, record_problem

FORMAT_VERSION = 1
GROWS = "deals"  # the one setting a rerun may change in the file: more deals add games, keep the others


class ResultsFileError(ValueError):
    """results.jsonl does not belong to this tournament or cannot be read."""


class ResultsStore:
    """The results file ``path`` of the tournament whose settings are ``identity`` and whose
    scheduled games are ``games`` (by key)."""

    def __init__(self, path: Path, identity: dict[str, Any], games: Mapping[str, AnyGame]) -> None:
        self.path = path
        self.identity = identity
        self.games = games
        self.grown_from: Optional[int] = None  # the deals of the file before ``open`` grew it

    def open(self) -> dict[str, dict[str, Any]]:
        """Create the file, or check and load it: returns the finished games by key. A file
        of the same tournament with fewer deals is grown: its games are kept and its header
        says the new number (``GROWS``); every other difference is refused."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists() or self.path.stat().st_size == 0:
            with self.path.open("w") as f:
                f.write(self._header())
            return {}
        lines = self._lines()
        _, header = next(lines, (0, None))
        if not header or not isinstance(header.get("header"), dict):
            raise ResultsFileError(f"{self.path} does not start with a tournament header; move it away or choose another --out")
        grows = self._compare(_canonical(header["header"]))
        done: dict[str, dict[str, Any]] = {}
        where: dict[str, int] = {}
        example = next(iter(self.games), "")
        for number, record in lines:
            key = record["key"]
            game = self.games.get(key)
            if key in where:
                problem: Optional[str] = f"is recorded twice (line {where[key]} holds it too)"
            elif game is None:
                problem = f"is not one of this tournament's games (keys such as {example!r})"
            else:
                problem = record_problem(record, isinstance(game, PairGame), game)
            if problem:
                raise ResultsFileError(f"{self.path} line {number}: game {key!r} {problem}; the file was left as it "
                                       "is: repair or remove that line, or choose another --out")
            done[key] = record
            where[key] = number
        if grows:
            self._rewrite_header()
        return done

    def _header(self) -> str:
        return json.dumps({"header": {"results_format": FORMAT_VERSION, **self.identity}}) + "\n"

    def _compare(self, theirs: dict[str, Any]) -> bool:
        """Refuse a file of another tournament, naming each difference; True when this run
        grows it (more deals, nothing else changed)."""
        diff = {k: (theirs.get(k), v) for k, v in self.identity.items() if theirs.get(k) != v}
        held = theirs.get(GROWS)
        whole = isinstance(held, int) and not isinstance(held, bool)
        if theirs.get("results_format") != FORMAT_VERSION or set(diff) - {GROWS} or not whole:
            detail = ", ".join(f"{k}: file has {a!r}, this run {b!r}" for k, (a, b) in diff.items())
            raise ResultsFileError(f"{self.path} belongs to another tournament ({detail or 'format version'}); "
                                   "rerun with the same settings or choose another --out")
        if not diff:
            return False
        wanted = self.identity[GROWS]
        if held > wanted:
            raise ResultsFileError(f"{self.path} holds a tournament of {held} {GROWS}; this run asks for {wanted}: a "
                                   f"tournament can be grown (more {GROWS}) but not shrunk; rerun with --{GROWS} {held} "
                                   "or more, or choose another --out")
        self.grown_from = held
        return True

    def _rewrite_header(self) -> None:
        """The same file with this run's header, replaced whole (a crash leaves the old one)."""
        data = self.path.read_bytes()
        write_atomically(self.path, self._header().encode() + data[data.index(b"\n") + 1 :])

    def _lines(self) -> Iterator[tuple[int, dict[str, Any]]]:
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):  # a write cut off by a crash: drop the partial line
            cut = data.rfind(b"\n") + 1
            with self.path.open("r+b") as f:
                f.truncate(cut)
            data = data[:cut]
        return _records(self.path, data)

    def append(self, record: dict[str, Any]) -> None:
        """One finished game. Flushed to the OS at once, so a killed process loses nothing;
        a power cut may lose the last lines, which a rerun simply plays again."""
        self.append_many([record])

    def append_many(self, records: list[dict[str, Any]]) -> None:
        """Finished games, in one write (the batched path finishes many at once). A crash in
        the middle leaves whole lines and at most one cut-off line, which ``open`` drops."""
        if records:
            with self.path.open("a") as f:
                f.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))


def _canonical(header: dict[str, Any]) -> dict[str, Any]:
    """A header with its game under its registry name (0.1 wrote ``rummy`` for Basic Rummy)."""
    if "game" not in header:
        return header
    try:
        return {**header, "game": get_game(header["game"]).name}
    except ValueError:  # a game not installed here: the comparison names it
        return header


EXPECTED = "a results.jsonl written by rummy tournament (a JSON header line, then one JSON game record per line)"


def _records(path: Path, data: bytes) -> Iterator[tuple[int, dict[str, Any]]]:
    """The lines of a results file as (line number, dict), or ``ResultsFileError`` naming the
    file and line."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise ResultsFileError(f"{path} is not text, so not {EXPECTED}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ResultsFileError(f"{path} line {number} is not valid JSON ({exc.msg}); expected {EXPECTED}; "
                                   "the file was left as it is") from None
        if not isinstance(record, dict) or (number > 1 and not isinstance(record.get("key"), str)):
            raise ResultsFileError(f"{path} line {number} is not a game record; expected {EXPECTED}")
        yield number, record


def read_results(path: "str | Path", live: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and game records of a tournament's results, read-only. ``path`` is the
    file or the tournament's folder holding it. A last line without its newline is a write
    that did not finish: an error naming it (the tournament's rerun repairs it), or with
    ``live`` (the file of a tournament that may be running) a line not there yet. Errors
    name the file, the line and what was expected."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.jsonl"
    if not path.is_file():
        raise ResultsFileError(f"{path} not found: expected {EXPECTED}, or the tournament folder holding it")
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) < len(data) and not live:
        cut = complete.count(b"\n") + 1
        raise ResultsFileError(f"{path} line {cut} is cut off (no newline at its end: a write that "
                               "did not finish, as when a run is killed); rerun the tournament to repair it (it plays "
                               "that game again)")
    lines = list(_records(path, complete))
    if not lines or not isinstance(lines[0][1].get("header"), dict):
        raise ResultsFileError(f"{path} does not start with a tournament header: expected {EXPECTED}")
    header = lines[0][1]["header"]
    try:
        pairs: Optional[bool] = get_game(header.get("game", DEFAULT_GAME)).max_players == 2
    except ValueError:  # a game not installed here: the fields every record has
        pairs = None
    for number, record in lines[1:]:
        problem = record_problem(record, pairs)
        if problem:
            raise ResultsFileError(f"{path} line {number}: game {record['key']!r} {problem}; expected {EXPECTED}")
    return header, [record for _, record in lines[1:]]
