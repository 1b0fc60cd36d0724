"""Game traces: a tournament's recorded games as one decision a line (``rummy export``), for
imitation, fine-tuning and evaluating language models on the positions real agents met.

Why from the records: a tournament keeps every hand's deck order, dealer and moves
(``rummy_env.eval.games.hand_entry``), so each hand is replayed through the pure game
(``Game.deal`` and ``step``) and every decision is rebuilt exactly as it was: nothing is
invented, and a record whose replay does not reproduce its outcome is refused
(``replay_hand``). A folder played with ``--no-record`` holds no moves and is refused.

A line holds what the deciding seat knew at that decision (the view of its information
set: ``text`` or ``json``, the views of ``rummy_env.core.textview``, or the ``flat``
observation as a list; its legal moves) and the move its agent chose, plus the hand's
outcome for that seat, which only comes after the hand (the training target). The
view is built from the information set alone, so dealing the other seats' hidden cards
differently changes nothing in a line but the outcome (tests/eval/test_export.py checks
that). docs/traces.md lists the fields.

The export is written as it goes and resumes: the lines of each game are appended in
one write, then ``OUT.cursor`` (written atomically) records how many games, lines and
bytes the file holds. A rerun first cuts the file back to what the cursor vouches for
(a game half-written by a crash is dropped and exported again), then goes on from
there, so a crash loses nothing and a rerun duplicates nothing; a rerun after the
tournament grew exports its new games. The cursor also holds the export's settings: a
rerun with others is refused, naming the difference, rather than mixing two exports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np

from rummy_env.core.files import write_atomically
from rummy_env.core.game import DEFAULT_GAME, Game, GameState, get_game
from rummy_env.eval.games import replay_hand
from rummy_env.eval.store import GROWS, read_results

VIEWS = ("text", "json", "flat")  # the encodings a line's ``observation`` can hold
CURSOR_FORMAT = "rummy-env export cursor 1"
CURSOR_SUFFIX = ".cursor"


@dataclass(frozen=True)
class ExportSummary:
    """What an export run did: the file, its lines and games in all, and this run's share."""

    out: Path
    lines: int
    games: int
    new_lines: int
    complete: bool  # every game of the results is in the file (False: ``limit`` stopped it)


def observation_of(game: Game, rules: Any, info: Any, view: str, scores: Optional[Sequence[int]]) -> Any:
    """The ``view`` of an information set as JSON data: the text view (a string), the JSON
    view (an object) or the flat observation (a list of numbers, each the float32 value's
    shortest text, so it reads back exactly)."""
    encoded = game.encoding(view).encode(info, rules, scores)
    if view == "text":
        return str(encoded)
    if view == "json":
        return json.loads(encoded)
    return [float(str(value)) for value in np.asarray(encoded, dtype=np.float32).ravel()]


def decision_fields(game: Game, rules: Any, state: GameState, view: str,
                    scores: Optional[Sequence[int]] = None) -> dict[str, Any]:
    """What the seat to move knows at ``state``: its seat, the view of its information set and
    its legal moves (ids and names). ``scores``: the match points before the hand (None
    outside a match), which the env's observations show too."""
    seat = state.current_player
    legal = [int(a) for a in state.legal_actions()]
    return {"seat": int(seat),
            "observation": observation_of(game, rules, state.information_set(seat), view, scores),
            "legal": [{"id": a, "name": game.action_name(a, rules)} for a in legal]}


def game_lines(game: Game, rules: Any, header: dict[str, Any], record: dict[str, Any], view: str,
               agents: Optional[set[str]] = None, forced: bool = False) -> Iterator[dict[str, Any]]:
    """The lines of one recorded game (a line of results.jsonl): its decisions in order, hand
    by hand; only those of ``agents`` (None: all) and, unless ``forced``, only those with
    more than one legal move."""
    k = len(record["players"])
    mode = header.get("mode", "hands")
    match = game.new_match(rules, k, first_dealer=record["hands"][0]["dealer"]) if mode == "matches" else None
    common = {"game": game.name, "rules": rules.to_dict(), "mode": mode, "key": record["key"], "num_players": k}
    for number, hand in enumerate(record["hands"]):
        replay_hand(hand, rules, game.name, k)  # checks the record: its outcome comes out again
        scores = None
        if match is not None:
            points = match.points
            scores = points if isinstance(points, tuple) else tuple(points)
        result = hand["result"]
        state = game.deal(rules, k, deck=hand["deck"], dealer=hand["dealer"])
        for step, action in enumerate(hand["actions"]):
            seat = state.current_player
            agent = record["players"][seat]
            if (agents is None or agent in agents) and (forced or len(state.legal_actions()) > 1):
                fields = decision_fields(game, rules, state, view, scores)
                yield {**common, "hand": number, "step": step, "agent": agent, "seat": fields["seat"], "view": view,
                       **fields, "action": {"id": int(action), "name": game.action_name(action, rules)},
                       "reward": result["rewards"][seat], "won": result["winner"] == seat,
                       "outcome": result["outcome"]}
            state.step(action)
        if match is not None:
            match.record(state.result)


def default_out(source: Union[str, Path], view: str) -> Path:
    """Where an export goes without ``--out``: ``decisions_<view>.jsonl`` in the tournament's folder."""
    folder = Path(source)
    return (folder if folder.is_dir() else folder.parent) / f"decisions_{view}.jsonl"


def export(source: Union[str, Path], out: Optional[Union[str, Path]] = None, view: str = "text",
           agents: Optional[Sequence[str]] = None, forced: bool = False, limit: Optional[int] = None) -> ExportSummary:
    """Export the decisions of the tournament at ``source`` (its folder or results.jsonl) to
    ``out`` (JSONL, one decision a line; default ``default_out``), resuming an export
    there (module docstring). ``limit``: at most that many lines in the file (a rerun with
    a larger one goes on)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}: choose {', '.join(VIEWS)}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be a whole number >= 1, got {limit!r}")
    header, records = read_results(source)
    where = Path(source)
    if header.get("record") is False or any("actions" not in h for r in records for h in r["hands"]):
        raise ValueError(f"{where} was played with --no-record (record: false): its games hold no moves, so there "
                         "are no decisions to export; play the tournament again without --no-record")
    game = get_game(header.get("game", DEFAULT_GAME))
    rules = game.load_rules(header.get("rules"))
    chosen = None
    if agents:
        unknown = [a for a in agents if a not in header.get("agents", [])]
        if unknown:
            raise ValueError(f"--agents {' '.join(unknown)}: not an agent of this tournament; its agents are "
                             f"{', '.join(header.get('agents', []))}")
        chosen = set(agents)
    out = Path(out) if out is not None else default_out(source, view)
    tournament = {name: value for name, value in header.items() if name != GROWS}  # a grown tournament goes on
    settings = {"tournament": tournament, "view": view, "agents": sorted(chosen) if chosen else None, "forced": forced}
    cursor = _Cursor.open(out, settings)
    if cursor.games > len(records):
        raise ValueError(f"{cursor.path} says {cursor.games} games were exported, but {where} holds {len(records)}: "
                         "not the tournament this export was made from; choose another --out")
    start_lines = cursor.lines
    with out.open("ab") as f:
        while cursor.games < len(records) and (limit is None or cursor.lines < limit):
            lines = list(game_lines(game, rules, header, records[cursor.games], view, chosen, forced))[cursor.partial:]
            room = len(lines) if limit is None else min(len(lines), limit - cursor.lines)
            data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines[:room]).encode()
            f.write(data)
            f.flush()
            cursor.advance(room, len(data), whole=room == len(lines))
    return ExportSummary(out, cursor.lines, len(records), cursor.lines - start_lines, cursor.games == len(records))


@dataclass
class _Cursor:
    """How far the export in ``out`` got: ``games`` whole, ``partial`` lines of the next one
    (``limit`` stopped there), ``lines`` and ``bytes`` in all; saved in ``out.cursor``."""

    path: Path
    out: Path
    settings: dict[str, Any]
    games: int = 0
    partial: int = 0
    lines: int = 0
    bytes: int = 0

    @classmethod
    def open(cls, out: Path, settings: dict[str, Any]) -> "_Cursor":
        """The cursor of ``out`` (a new one if neither exists), the file cut back to its bytes."""
        path = out.with_name(out.name + CURSOR_SUFFIX)
        settings = json.loads(json.dumps(settings))  # as it reads back from the file
        if not path.exists():
            if out.exists() and out.stat().st_size:
                raise ValueError(f"{out} exists but is not an export in progress (no {path.name} beside it); "
                                 "choose another --out or move it away")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(b"")
            cursor = cls(path, out, settings)
            cursor.save()
            return cursor
        try:
            saved = json.loads(path.read_text())
            fields = {name: saved[name] for name in ("games", "partial", "lines", "bytes")}
            ok = saved["format"] == CURSOR_FORMAT and all(isinstance(v, int) and v >= 0 for v in fields.values())
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            raise ValueError(f"{path} is not an export cursor ({CURSOR_FORMAT}); move it and {out.name} away")
        if saved["settings"] != settings:
            diff = [name for name in settings if saved["settings"].get(name) != settings[name]]
            raise ValueError(f"{out} is an export with other settings ({', '.join(diff) or 'format'} differ: the "
                             "tournament, --view, --agents or --forced); rerun with the same ones or choose another --out")
        size = out.stat().st_size if out.exists() else 0
        if size < fields["bytes"]:
            raise ValueError(f"{out} is shorter than its cursor {path.name} says ({fields['bytes']} bytes): it was "
                             "changed since; move both away to export again")
        if size > fields["bytes"]:  # lines written after the cursor's last save: a crash, exported again
            with out.open("r+b") as f:
                f.truncate(fields["bytes"])
        return cls(path, out, settings, **fields)

    def advance(self, lines: int, size: int, whole: bool) -> None:
        """``lines`` more lines (``size`` bytes) of the current game written; ``whole``: all of it."""
        self.lines += lines
        self.bytes += size
        if whole:
            self.games, self.partial = self.games + 1, 0
        else:
            self.partial += lines
        self.save()

    def save(self) -> None:
        data = {"format": CURSOR_FORMAT, "games": self.games, "partial": self.partial, "lines": self.lines,
                "bytes": self.bytes, "settings": self.settings}
        write_atomically(self.path, (json.dumps(data) + "\n").encode())
