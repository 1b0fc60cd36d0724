"""Reading the YAML files users write (rules, training and tournament configs) and the YAML
values they type on the command line, with errors that say where the mistake is.

Why one reader: PyYAML's own errors are tracebacks that name ``<unicode string>`` rather
than the file, and a file that is not text fails in the UTF-8 decoder naming no file.
Every loader of the library reads through here, so a user's mistake in any of these files
is one line naming the file, the line and column, and what PyYAML expected there, raised
as ``ValueError`` (or ``FileNotFoundError``) for the CLI to print as it prints the others.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

import yaml

PathLike = Union[str, "os.PathLike[str]"]


def read_yaml(path: PathLike, what: str) -> Any:
    """The data in the YAML file ``path`` (None for an empty file). ``what`` names the kind
    of file in errors ("rules file", "training config"): a missing file, a file that is not
    UTF-8 text, or a YAML syntax error (with its line and column) are one line each."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{what} {str(p)!r} not found" if not p.exists() else f"{what} {str(p)!r} is not a file")
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} {p} is not a text file (UTF-8): byte {exc.start} cannot be read as text") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{what} {p} {_problem(exc, text)}") from None


def read_mapping(path: PathLike, what: str, keys: str = "settings") -> dict[str, Any]:
    """The mapping in the YAML file ``path`` ({} for an empty file), refused naming the file
    when it holds something else (a list, a number) or a key that is not text. ``keys``
    names what the keys are in that error ("settings", "rule options")."""
    data = read_yaml(path, what)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{what} {Path(path)} must be a YAML mapping of {keys} (one `name: value` a line), "
                         f"got {_kind(data)}")
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise ValueError(f"{what} {Path(path)}: {keys} are named by text, got {bad[0]!r}")
    return data


def parse_value(text: str, name: str) -> Any:
    """A value typed on the command line (``--set rounds=6``, ``--hidden [64,64]``), read as
    YAML so that ``[64, 64]`` is a list and ``true`` a bool; a syntax error names ``name``."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{name} {text!r} {_problem(exc, text, where=False)}") from None


def _kind(data: Any) -> str:
    return {list: "a list", str: "text"}.get(type(data), f"a {type(data).__name__}")


def _problem(exc: yaml.YAMLError, text: str, where: bool = True) -> str:
    """What is wrong (and, ``where``, on which line and column), from PyYAML's error: its
    problem, context and their marks (0-based)."""
    if isinstance(exc, yaml.reader.ReaderError):  # a control character: not text a person wrote
        line = text.count("\n", 0, exc.position) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return f"is not text: it holds the control character #x{code:04x}" + (f" on line {line}" if where else "")
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None and where else ""
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and start is not None and where:
        problem += f" ({context} that starts on line {start.line + 1})"
    elif context:
        problem += f" ({context})"
    return f"is not valid YAML: {at}{problem}"
