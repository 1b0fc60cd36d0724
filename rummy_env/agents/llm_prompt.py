"""What the ``llm`` agent tells a language model: a system prompt per game and rules, the
text view of the mover's information set, and the note sent back after a reply that
could not be played (docs/llm.md shows them).

Why built from the game alone: the rules come from the game's own package
(``Game.rules_summary``, each game's ``text.RULES_SUMMARY``) and the options in play from
its rules object (each option's value and the docstring its dataclass gives it, as the
docs' tables and ``--help`` read them), and the position is the game's ``text`` view
(``rummy_env.core.textview``), which shows one seat's information set and nothing else.
No line here names a game, so a game added later is prompted the same way.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional, Sequence

from rummy_env.core.field_docs import attribute_docs, yaml_text
from rummy_env.core.game import Game
from rummy_env.core.textview import text_of

ANSWER = "Answer: <action id>"
INSTRUCTION = (
    "Each turn you are shown the game as your seat sees it: your hand grouped into melds, the table, the discard "
    "pile, each player's number of cards and what is known of them, the moves since your last move, and your legal "
    "moves, numbered, each with its action id (the number after 'action' on its line). Choose one of the legal moves. "
    f"You may reason briefly first; then end your reply with one line: {ANSWER}"
)
REMINDER = f"Your move. End your reply with the line: {ANSWER}"


def rule_options(rules: Any) -> list[str]:
    """The rule options in play, one line each: ``- name: value (what it means)``; the
    meaning from the rules dataclass's field docstrings where its source can be read."""
    if not dataclasses.is_dataclass(rules):
        return []
    try:
        docs = attribute_docs(type(rules))
    except (OSError, TypeError, StopIteration):  # no source to read (a frozen build): values only
        docs = {}
    lines = []
    for field in dataclasses.fields(rules):
        meaning = docs.get(field.name)
        lines.append(f"- {field.name}: {yaml_text(getattr(rules, field.name))}" + (f" ({meaning})" if meaning else ""))
    return lines


def system_prompt(game: Game, rules: Any) -> str:
    """The system message for a player of ``game`` under ``rules``: who it is, the rules in
    brief, the options in play, what it is shown and how to answer."""
    parts = [f"You are a player in a game of {game.title}."]
    if game.rules_summary:
        parts.append(game.rules_summary)
    options = rule_options(rules)
    if options:
        parts.append("The rule options in play:\n" + "\n".join(options))
    parts.append(INSTRUCTION)
    return "\n\n".join(parts)


def position_prompt(view: dict[str, Any]) -> str:
    """The user message of a decision: the text view (``TextEncoding.data``'s dict laid out
    by ``text_of``) and the reminder of how to answer."""
    return f"{text_of(view)}\n\n{REMINDER}"


def retry_prompt(problem: str) -> str:
    """The user message after a reply that could not be played, saying why."""
    return (f"That answer cannot be played: {problem}. Choose one of the legal moves listed above and end your reply "
            f"with the line: {ANSWER}")


def messages(system: str, position: str, exchanges: Sequence[tuple[str, str]] = (),
             ) -> list[dict[str, str]]:
    """The chat messages of a request: the system prompt, the position, then each earlier
    (reply, retry note) exchange of the same decision."""
    out = [{"role": "system", "content": system}, {"role": "user", "content": position}]
    for reply, note in exchanges:
        out += [{"role": "assistant", "content": reply}, {"role": "user", "content": note}]
    return out


def scores_from(info: dict[str, Any], known: Optional[tuple[int, ...]]) -> Optional[tuple[int, ...]]:
    """The match points a text view shows: those the env last reported to this seat
    (``info["match_points"]``, after each scored hand of a match), else ``known``."""
    points = info.get("match_points") if isinstance(info, dict) else None
    return tuple(int(p) for p in points) if points is not None else known
