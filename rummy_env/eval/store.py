"""results.jsonl: the tournament's results, appended one game per line as games finish.

The first line is a header with the settings that decide the games; a rerun with other
settings is refused with the difference named. On a rerun the games already in the file
are skipped, so a crash or Ctrl-C loses nothing and counts nothing twice. A last line
cut off by a crash (no newline at the end) is the one thing repaired: it is dropped and
that game played again. Anything else unreadable is an error, never overwritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from rummy_env.core.game import get_game

FORMAT_VERSION = 1


class ResultsFileError(ValueError):
    """results.jsonl does not belong to this tournament or cannot be read."""


class ResultsStore:
    def __init__(self, path: Path, identity: dict[str, Any]) -> None:
        self.path = path
        self.identity = identity

    def open(self) -> dict[str, dict[str, Any]]:
        """Create the file, or check and load it: returns the finished games by key."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists() or self.path.stat().st_size == 0:
            with self.path.open("w") as f:
                f.write(json.dumps({"header": {"results_format": FORMAT_VERSION, **self.identity}}) + "\n")
            return {}
        lines = self._lines()
        header = next(lines, None)
        if not header or "header" not in header:
            raise ResultsFileError(f"{self.path} does not start with a tournament header; move it away or choose another --out")
        theirs = _canonical(header["header"])
        diff = {k: (theirs.get(k), v) for k, v in self.identity.items() if theirs.get(k) != v}
        if theirs.get("results_format") != FORMAT_VERSION or diff:
            detail = ", ".join(f"{k}: file has {a!r}, this run {b!r}" for k, (a, b) in diff.items())
            raise ResultsFileError(f"{self.path} belongs to another tournament ({detail or 'format version'}); "
                                   "rerun with the same settings or choose another --out")
        done = {}
        for record in lines:
            done[record["key"]] = record
        return done

    def _lines(self) -> Iterator[dict[str, Any]]:
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


def _records(path: Path, data: bytes) -> Iterator[dict[str, Any]]:
    """The lines of a results file as dicts, or ``ResultsFileError`` naming the file and line."""
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
        if not isinstance(record, dict) or (number > 1 and "key" not in record):
            raise ResultsFileError(f"{path} line {number} is not a game record; expected {EXPECTED}")
        yield record


def read_results(path: "str | Path") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and game records of a tournament's results, read-only (a line cut off by a
    crash is left for the tournament's rerun to repair and is not returned). ``path`` is the
    file or the tournament's folder holding it. Errors name the file and what was expected."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.jsonl"
    if not path.is_file():
        raise ResultsFileError(f"{path} not found: expected {EXPECTED}, or the tournament folder holding it")
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    lines = list(_records(path, complete))
    if not lines or "header" not in lines[0]:
        raise ResultsFileError(f"{path} does not start with a tournament header: expected {EXPECTED}")
    return lines[0]["header"], lines[1:]
