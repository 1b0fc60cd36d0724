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
        theirs = header["header"]
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
        for number, raw in enumerate(data.decode().splitlines(), start=1):
            try:
                record = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ResultsFileError(f"{self.path} line {number} is not valid JSON ({exc.msg}); "
                                       "the file is damaged: repair or move it, nothing was overwritten") from None
            if number > 1 and "key" not in record:
                raise ResultsFileError(f"{self.path} line {number} is not a game record")
            yield record

    def append(self, record: dict[str, Any]) -> None:
        """One finished game. Flushed to the OS at once, so a killed process loses nothing;
        a power cut may lose the last lines, which a rerun simply plays again."""
        with self.path.open("a") as f:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")
