"""Writes tests/data/playthroughs/<game>.txt: one readable recorded hand of every registered
game, in the spirit of OpenSpiel's playthroughs, made through the game interface alone
(``rummy_env.core.game``), so a game registered later gets its own by running this script.

Why: the golden records (golden_game.json, rummy_golden_game.json) catch a change as one
hash; a playthrough shows where and what changed, line by line, in words a reader checks:
each step's full state, the mover's view, the legal moves by name, the mover's observation
in the env's default encoding (every non-zero entry, exactly, and a SHA-256 of the float32
bytes) and the move played. tests/core/test_playthroughs.py regenerates each file in
memory and compares. Rerun only after an intended change of rules, text or encoding:

    python tests/data/make_playthroughs.py [GAME ...]

Each game is played at its fewest players (``<game>.txt``) and at its largest table up to
``MAX_TABLE`` players where that differs (``<game>-<n>p.txt``; larger tables make files
too long to read), under its default preset, every seat played by the game's ``heuristic``
agent (``random`` for a game without one) seeded ``seed + seat``. The seed is the first from ``FIRST_SEED`` whose hand ends
with a winner and whose file stays under ``MAX_BYTES``; the file's header records it.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from rummy_env.agents import available, make
from rummy_env.core.game import Game, HandResult, games, get_game

FOLDER = Path(__file__).resolve().with_name("playthroughs")
SCRIPT = "tests/data/make_playthroughs.py"
AGENTS = ("heuristic", "random")  # the first of these the game has plays every seat
FIRST_SEED = 1
SEEDS_TRIED = 200  # seeds looked at before giving up on a hand with a winner
MAX_TABLE = 4  # the largest table recorded (Rommé seats 6: its files would be long)
MAX_BYTES = 150_000  # a file's largest size, to stay readable
WIDTH = 100  # packed lines (legal moves, observation entries) wrap at this width
SEED_LINE = re.compile(r"^seed: (\d+)$", re.M)


def tables(game: Game) -> list[int]:
    """The player counts recorded for ``game``: its fewest, and its largest up to ``MAX_TABLE``."""
    return sorted({game.min_players, max(game.min_players, min(game.max_players, MAX_TABLE))})


def path_of(game: Game, players: int) -> Path:
    """The playthrough file of ``game`` at ``players``: ``<game>.txt`` at its fewest, else ``<game>-<n>p.txt``."""
    return FOLDER / (f"{game.name}.txt" if players == game.min_players else f"{game.name}-{players}p.txt")


def command(names: Sequence[str]) -> str:
    """The command that rewrites the playthroughs of the games ``names``."""
    return " ".join(["python", SCRIPT, *names])


def default_encoding(game: Game, players: int) -> str:
    """The name of the encoding the game's env observes with when none is asked for."""
    encoding = game.raw_env(num_players=players).encoding
    return encoding if isinstance(encoding, str) else encoding.name


def agent_of(game: Game) -> str:
    """The agent that plays the playthroughs of ``game``: its ``heuristic``, which plays
    hands out with melds and lay-offs, else the generic ``random`` (a game without one)."""
    names = available(game.name, levels=False)
    return next(name for name in AGENTS if name in names)


def _pack(items: Sequence[str], sep: str, indent: str = "  ") -> list[str]:
    """``items`` joined by ``sep`` into lines of at most ``WIDTH`` characters (an item is never split)."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and len(indent) + len(line) + len(sep) + len(item) > WIDTH:
            lines.append(indent + line)
            line = item
        else:
            line = f"{line}{sep}{item}" if line else item
    if line:
        lines.append(indent + line)
    return lines


def _indented(text: str) -> list[str]:
    return ["  " + line for line in text.splitlines()]


def _number(value: np.float32) -> str:
    """A float32 as its shortest exact decimal (it reads back to the same float32)."""
    return np.format_float_positional(value, unique=True, trim="-")


def observation_lines(obs: np.ndarray, encoding: str) -> list[str]:
    """The observation exactly and compactly: its shape, SHA-256 of its float32 bytes and
    every non-zero entry as ``index:value`` (flat index)."""
    flat = np.ascontiguousarray(obs, dtype=np.float32).ravel()
    nonzero = np.flatnonzero(flat)
    digest = hashlib.sha256(flat.tobytes()).hexdigest()
    shape = "x".join(str(n) for n in obs.shape)
    head = f"observation ({encoding}, {shape}, {nonzero.size} non-zero, sha256 {digest}):"
    return [head, *_pack([f"{i}:{_number(flat[i])}" for i in nonzero], " ")]


def playthrough(game: Game, players: int, seed: int) -> tuple[str, HandResult]:
    """The text of one hand of ``game`` at ``players`` dealt with ``seed``, and its result."""
    rules = game.load_rules(game.default_preset)
    encoding = default_encoding(game, players)
    encoder = game.encodings[encoding]
    state = game.deal(rules, players, seed=seed)
    agent = agent_of(game)
    agents = [make(agent, seed=seed + seat, game=game.name) for seat in range(players)]
    names = [f"player_{seat}" for seat in range(players)]
    lines = [
        f"game: {game.name}",
        f"title: {game.title}",
        f"rules: {game.default_preset}",
        f"players: {players}",
        f"seed: {seed}",
        f"dealer: {names[state.dealer]}",
        f"agent: {agent} at every seat, seeded seed + seat",
        f"regenerate: {command([game.name])}",
    ]
    step = 0
    while not state.is_over:
        mover = state.current_player
        info = state.information_set(mover)
        legal = state.legal_actions()
        action = int(agents[mover].act({"action_mask": state.legal_mask()},
                                        {"information_set": info, "rules": state.rules}))
        lines += [
            "",
            f"--- step {step}: {names[mover]} to move",
            "state:",
            *_indented(state.render(perspective=None)),
            f"{names[mover]} sees:",
            *_indented(state.render(perspective=mover)),
            f"legal moves ({len(legal)}):",
            *_pack([f"{a} {game.action_name(a, rules)}" for a in legal], " | "),
            *observation_lines(encoder.encode(info, rules), encoding),
            f"move: {action} {game.action_name(action, rules)} (others see: {game.describe_move(action, rules)})",
        ]
        state.step(action)
        step += 1
    result = state.result
    assert result is not None
    record = result.to_dict()
    lines += ["", f"--- end after {step} steps", "state:", *_indented(state.render(perspective=None)),
              "result:", *_indented(game.explain(record, names)), "result record:",
              *(f"  {key}: {json.dumps(value)}" for key, value in record.items())]
    return "\n".join(lines) + "\n", result


def recorded_seed(text: str) -> Optional[int]:
    """The seed a playthrough's header records (None: no ``seed:`` line)."""
    found = SEED_LINE.search(text)
    return int(found.group(1)) if found else None


def choose(game: Game, players: int) -> str:
    """The playthrough of the first seed whose hand ends with a winner and fits ``MAX_BYTES``."""
    for seed in range(FIRST_SEED, FIRST_SEED + SEEDS_TRIED):
        text, result = playthrough(game, players, seed)
        if result.winner is not None and len(text.encode("utf-8")) <= MAX_BYTES:
            return text
    raise ValueError(f"no hand of {game.name} at {players} players, seeds {FIRST_SEED}..{FIRST_SEED + SEEDS_TRIED - 1}, "
                     f"ends with a winner in under {MAX_BYTES} bytes of text")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Write the playthroughs of the games named in ``argv`` (default: every registered game)."""
    names = list(sys.argv[1:] if argv is None else argv) or games()
    try:
        chosen = [get_game(name) for name in names]
    except ValueError as exc:
        print(f"make_playthroughs: {exc}", file=sys.stderr)
        return 2
    FOLDER.mkdir(exist_ok=True)
    for game in chosen:
        for players in tables(game):
            path = path_of(game, players)
            path.write_text(choose(game, players), encoding="utf-8", newline="\n")
            print(f"wrote {path.relative_to(FOLDER.parents[2])} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
