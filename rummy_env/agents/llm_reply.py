"""Reading a language model's reply as one legal move (the ``llm`` agent, docs/llm.md).

Why exact rules rather than a best guess: a move read wrongly is a move the model did not
choose, and it would be counted as the model's. So the parser takes a move only when the
reply names one legal move and nothing contradicts it; anything else is a ``ReplyError``
whose message the agent sends back to the model when it asks again.

The rules, in order:

1. ``<think>...</think>`` blocks are dropped (a reply cut off inside one has no answer).
2. The answer is the text after the last ``Answer:`` (any case) on its line, or the next
   line that is not blank if that line has nothing after it; a reply without ``Answer:`` is
   its own answer, all of it.
3. Markdown emphasis and quotes (``* _ ` " “ ” ~``) are dropped, letters lowered,
   runs of white space made one space.
4. Every way the answer names a move is collected:

   - ``action N``, ``action id N``, ``action_id: N``, ``id N``: the action id N;
   - ``#N``, ``number N``, ``no. N``, ``option N``, ``choice N``: the N-th move of the
     list (numbered from 1);
   - an answer that is nothing but a number (``5``, ``5.``, ``(5)``), or that starts with
     one followed by ``-``, ``:``, ``,`` or ``(`` (``5 - discard 3C``): the action id;
   - a move's name, as whole words: its label as listed (``knock, discard 3C: deadwood 7``),
     its label without the mover's details (``knock, discard 3C face down``) or its
     ``action_name`` (``knock 3C``). A name found inside a longer name found counts only as
     the longer one. A name that is also part of another legal move's name (``discard 3C``
     and ``knock, discard 3C: deadwood 7``; ``meld 5S 6S 7S`` and ``meld 5S 6S 7S 8S``)
     names its move only when it is the whole answer: inside a longer answer it could be
     either, and the answer is refused, asking for the action id.

5. The answer is taken when all of that names exactly one move and it is legal; an action
   id that is not legal, a move number outside the list, two different moves, or none,
   is a ``ReplyError`` saying which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_OPEN_THINK = re.compile(r"<think>.*\Z", re.S | re.I)
_MARKER = re.compile(r"\banswer\s*[:：]", re.I)
_MARKUP = re.compile("[*_`\"“”~]")
_SPACE = re.compile(r"\s+")
_ACTION = re.compile(r"\baction(?:[\s_-]*id)?\s*[:#=]?\s*(\d+)\b|\bid\s*[:#=]?\s*(\d+)\b")
_NUMBER = re.compile(r"(?:#\s*|\b(?:number|no\.|option|choice)\s*[:#=]?\s*)(\d+)\b")
_BARE = re.compile(r"[\s(\[]*(\d+)[\s.!)\]]*")
_LEADING = re.compile(r"\s*(\d+)\s*[-–—:,(]")
_TRAILING = " .!;,"


class ReplyError(ValueError):
    """A reply that is not one legal move; the message says why, for the model to read."""


@dataclass(frozen=True)
class Choice:
    """A legal move as the prompt lists it: its number (from 1), its action id, and its names
    (the label as listed first)."""

    number: int
    action: int
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        return self.names[0]


def normal(text: str) -> str:
    """``text`` as the parser compares it: markdown emphasis and quotes dropped, lower case,
    one space for each run of white space."""
    return _SPACE.sub(" ", _MARKUP.sub("", text)).strip().lower()


def answer_of(reply: str) -> str:
    """The part of ``reply`` that holds the answer (rules 1 and 2 of the module docstring), as written."""
    text = _OPEN_THINK.sub("", _THINK.sub("", reply))
    marks = list(_MARKER.finditer(text))
    if not marks:
        return text.strip()
    lines = text[marks[-1].end():].split("\n")
    return next((line for line in lines if line.strip()), "").strip()


def _words(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)")


def _described(action: int, choices: Sequence[Choice]) -> str:
    for c in choices:
        if c.action == action:
            return f"action {action} ({c.label})"
    return f"action {action}"


def _named(answer: str, choices: Sequence[Choice]) -> tuple[set[int], list[str]]:
    """The moves ``answer`` names by name (rule 4's last point), and why a name found could mean
    two moves."""
    whole = answer.strip(_TRAILING)
    exact = {c.action for c in choices if whole in {normal(n) for n in c.names}}
    if exact:
        return exact, []
    found: list[tuple[int, int, Choice, str]] = []
    for c in choices:
        for name in dict.fromkeys(normal(n) for n in c.names):
            found += [(m.start(), m.end(), c, name) for m in _words(name).finditer(answer)]
    kept = [f for f in found if not any(g[0] <= f[0] and f[1] <= g[1] and g[1] - g[0] > f[1] - f[0] for g in found)]
    moves = {c.action for _, _, c, _ in kept}
    problems = []
    for _, _, c, name in kept:
        pattern = _words(name)
        wider = next((o for o in choices if o.action not in moves and any(pattern.search(normal(n)) for n in o.names)),
                     None)
        if wider is not None:
            problems.append(f"{name!r} is also part of the move {wider.label!r} (action {wider.action}), "
                            "so it could mean either")
    return moves, problems


def read_move(reply: str, choices: Sequence[Choice]) -> int:
    """The action id of the one legal move (``choices``) that ``reply`` names, by the rules of
    the module docstring; else a ``ReplyError`` saying what is wrong."""
    if not choices:
        raise ValueError("read_move needs the legal moves")
    if not reply or not reply.strip():
        raise ReplyError("the reply was empty")
    answer = normal(answer_of(reply))
    if not answer:
        raise ReplyError("the reply holds no answer (nothing after its thinking, or after 'Answer:')")
    legal = {c.action for c in choices}
    ids = {int(a or b) for a, b in _ACTION.findall(answer)}
    bare = _BARE.fullmatch(answer) or _LEADING.match(answer)
    if bare:
        ids.add(int(bare.group(1)))
    numbers = {int(n) for n in _NUMBER.findall(_ACTION.sub(" ", answer))}  # "action #5" is an id, not a number
    moves = ids & legal
    problems = [f"action {a} is not a legal move now" for a in sorted(ids - legal)]
    for n in sorted(numbers):
        if 1 <= n <= len(choices):
            moves.add(choices[n - 1].action)
        else:
            problems.append(f"there is no move number {n} (the moves are numbered 1 to {len(choices)})")
    named, ambiguous = _named(answer, choices)
    moves |= named
    if len(moves) > 1:
        named_moves = ", ".join(_described(a, choices) for a in sorted(moves))
        problems.insert(0, f"the answer names more than one move: {named_moves}")
    elif ambiguous and not (ids or numbers):  # an id or number said which move was meant
        problems += ambiguous
    if problems:
        raise ReplyError("; ".join(problems))
    if not moves:
        raise ReplyError("the answer names no legal move")
    return moves.pop()
