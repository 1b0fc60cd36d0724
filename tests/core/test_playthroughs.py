"""Every registered game's recorded playthroughs (tests/data/playthroughs/, written by
tests/data/make_playthroughs.py) equal what the game plays now, line by line.

Why: a playthrough is one hand in words (each step's state, the mover's view, the legal
moves, the mover's observation, the move), so an unintended change of rules, text,
encoding or agent shows as the first line that differs, and a game registered without
its playthrough fails here, naming the command that writes it. Each file is regenerated
in memory from the seed its header records.
"""

from __future__ import annotations

import pytest

from data.make_playthroughs import FOLDER, command, path_of, playthrough, recorded_seed, tables
from rummy_env.core.game import games, get_game

TABLES = [(name, players) for name in sorted(games()) for players in tables(get_game(name))]


def first_difference(recorded: list[str], played: list[str]) -> str:
    """Where two texts first differ, in words ('' if they are equal)."""
    for number, (old, new) in enumerate(zip(recorded, played), start=1):
        if old != new:
            return f"line {number} differs:\n  recorded: {old!r}\n  now:      {new!r}"
    if len(recorded) != len(played):
        number = min(len(recorded), len(played)) + 1
        longer = "recorded" if len(recorded) > len(played) else "now"
        extra = (recorded if longer == "recorded" else played)[number - 1]
        return f"line {number} is only {longer}: {extra!r} ({len(recorded)} lines recorded, {len(played)} now)"
    return ""


@pytest.mark.parametrize("name, players", TABLES, ids=[f"{n}-{p}p" for n, p in TABLES])
def test_playthrough_matches_the_game(name: str, players: int) -> None:
    game = get_game(name)
    path = path_of(game, players)
    where = path.relative_to(FOLDER.parents[2])
    if not path.exists():
        pytest.fail(f"{name} has no playthrough at {players} players ({where}): run {command([name])}")
    recorded = path.read_text(encoding="utf-8")
    seed = recorded_seed(recorded)
    if seed is None:
        pytest.fail(f"{where} has no 'seed: N' line in its header: run {command([name])}")
    played, _ = playthrough(game, players, seed)
    difference = first_difference(recorded.splitlines(), played.splitlines())
    if difference:
        pytest.fail(f"{where}: {difference}\nif the change is intended, run {command([name])} and read the diff")


def test_every_playthrough_file_is_a_registered_table() -> None:
    """No file is left over from a game or table no longer recorded."""
    expected = {path_of(get_game(name), players).name for name, players in TABLES}
    stray = sorted(p.name for p in FOLDER.glob("*.txt") if p.name not in expected)
    assert not stray, f"tests/data/playthroughs/ holds files of no registered game's table: {stray}"


def test_first_difference_names_the_line() -> None:
    assert first_difference(["a", "b"], ["a", "b"]) == ""
    assert first_difference(["a", "b"], ["a", "c"]).startswith("line 2 differs")
    assert first_difference(["a"], ["a", "c"]) == "line 2 is only now: 'c' (1 lines recorded, 2 now)"
    assert first_difference(["a", "b"], ["a"]) == "line 2 is only recorded: 'b' (2 lines recorded, 1 now)"
