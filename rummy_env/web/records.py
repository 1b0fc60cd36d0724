"""Tournament folders on the web: the folders under the records root, a tournament's
leaderboard (its ``summary.json``) and any of its recorded games replayed move by move.

Why a root: the page names a folder by its path under the root the server was started
with (``rummy serve --records DIR``), never by a path of the machine, so a request cannot
read files elsewhere; the folders are listed by what they hold (``results.jsonl``,
``summary.json``) as ``rummy tournament`` writes them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Optional

from rummy_env.core.game import get_game
from rummy_env.eval.config import DEFAULT_GAME
from rummy_env.eval.games import replay_hand
from rummy_env.eval.store import ResultsFileError, read_results
from rummy_env.web.sessions import ReplayTable, WebError

MAX_DEPTH = 4  # how deep under the root tournament folders are looked for
PLOTS = ("crosstable.png", "ratings.png")


class Records:
    """The tournament folders under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()

    def folders(self) -> list[dict[str, Any]]:
        """Every folder under the root (``MAX_DEPTH`` levels at most) holding a
        ``results.jsonl`` or a ``summary.json``: its path under the root and what it holds."""
        if not self.root.is_dir():
            return []
        found = []
        for depth in range(MAX_DEPTH + 1):
            for folder in sorted(self.root.glob("/".join(["*"] * depth)) if depth else [self.root]):
                has = [name for name in ("results.jsonl", "summary.json") if (folder / name).is_file()]
                if folder.is_dir() and has:
                    found.append({"folder": folder.relative_to(self.root).as_posix() or ".", "files": has})
        return found

    def folder(self, name: Any) -> Path:
        """The folder ``name`` (a path under the root), or a 404 saying what is allowed."""
        if (not isinstance(name, str) or not name or len(name) > 500 or "\\" in name or name.startswith("/")
                or not name.isprintable()):
            raise WebError(400, f"folder must be a path under the records folder, such as 'tournament', got {name!r}")
        path = (self.root / name).resolve()
        if not path.is_relative_to(self.root) or not path.is_dir():
            raise WebError(404, f"no tournament folder {name!r} under the records folder (see GET /api/records)")
        return path

    def summary(self, name: Any) -> dict[str, Any]:
        """A tournament's ``summary.json`` (its ratings, agents and pairs) and which plots it has."""
        path = self.folder(name) / "summary.json"
        if not path.is_file():
            raise WebError(404, f"{name!r} has no summary.json: rummy tournament writes it when its games are done")
        try:
            summary = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise WebError(422, f"{name}/summary.json cannot be read: {exc}") from None
        if not isinstance(summary, dict) or "config" not in summary:
            raise WebError(422, f"{name}/summary.json is not a tournament summary (no config)")
        summary["plots"] = [p for p in PLOTS if (path.parent / p).is_file()]
        return _finite(summary)

    def plot(self, name: Any, plot: Any) -> Path:
        """The path of one of a tournament's plots (``PLOTS``)."""
        if plot not in PLOTS:
            raise WebError(400, f"plot must be one of {', '.join(PLOTS)}, got {plot!r}")
        path = self.folder(name) / plot
        if not path.is_file():
            raise WebError(404, f"{name!r} has no {plot}")
        return path

    def _results(self, name: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        try:
            return read_results(self.folder(name), live=True)  # a running tournament may be writing a line
        except ResultsFileError as exc:
            raise WebError(404 if "not found" in str(exc) else 422, str(exc)) from None

    def games(self, name: Any) -> dict[str, Any]:
        """A tournament's recorded games: key, players, winner, hands and whether each can be
        replayed (games recorded with their moves)."""
        header, records = self._results(name)
        game = get_game(header.get("game", DEFAULT_GAME))
        rows = [{"key": r["key"], "players": r["players"], "winner": r.get("winner"), "hands": len(r["hands"]),
                 "replayable": all("actions" in h for h in r["hands"])} for r in records]
        return {"game": game.name, "title": game.title, "rules": header.get("rules"), "games": rows}

    def replay(self, name: Any, key: Any) -> ReplayTable:
        """A table replaying the game ``key`` of a tournament, checked to reproduce its record."""
        header, records = self._results(name)
        found = [r for r in records if r["key"] == key]
        if not found:
            example = f"; keys look like {records[0]['key']!r}" if records else ""
            raise WebError(404, f"no game {key!r} in {name}/results.jsonl{example}")
        record = found[0]
        game = get_game(header.get("game", DEFAULT_GAME))
        try:
            rules = game.load_rules(header["rules"])
            for hand in record["hands"]:
                replay_hand(hand, header["rules"], game.name, len(record["players"]))
        except (ValueError, TypeError, OSError) as exc:
            raise WebError(422, f"game {key!r} of {name} cannot be replayed: {exc}") from None
        return ReplayTable(game, rules, str(header["rules"]), list(record["players"]), record["hands"],
                           _final(record), "match" if "match" in record else "hand")


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite number as None: JSON has none (a tournament of one
    deal has no interval, written NaN in its summary.json), and the page shows None as such."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _final(record: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The recorded outcome to show once the replay is over: a table's points per seat, a
    pair's hand rewards (zero-sum: the margin and its opposite) or a match's grand totals."""
    if "points" in record:
        return {"title": "final points (recorded)", "points": list(record["points"])}
    totals = record.get("match", {}).get("grand_total")
    if totals is not None:
        return {"title": "match over: final scores (recorded)", "points": list(totals)}
    if "margin" in record:
        return {"title": "points this hand (recorded)", "points": [record["margin"], -record["margin"]]}
    return None
