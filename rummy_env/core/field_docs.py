"""What a settings dataclass says about its own fields: each field's attribute docstring
(the string literal written right after it) and a value written as in a YAML file.

One source for every place that describes a config: the command line's ``--help``
(``rummy train``'s one option per field) and the generated config tables of the docs
(``docs/hooks.py``) read the same docstrings, so the two cannot say different things.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any


def attribute_docs(cls: type) -> dict[str, str]:
    """Each field's description: its attribute docstring, on one line (fields without one are absent).

    Read from the class's source (``inspect.getsource``): Python keeps no attribute
    docstrings at run time."""
    node = next(n for n in ast.parse(textwrap.dedent(inspect.getsource(cls))).body if isinstance(n, ast.ClassDef))
    out: dict[str, str] = {}
    for stmt, nxt in zip(node.body, node.body[1:]):
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)):
            out[stmt.target.id] = " ".join(inspect.cleandoc(nxt.value.value).split())
    return out


def yaml_text(value: Any) -> str:
    """A value as it is written in a YAML file or on the command line (``null``, ``true``, ``[256, 256]``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(yaml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {yaml_text(v)}" for k, v in value.items()) + "}"
    return str(value)
