"""A griffe extension for the API pages: lists in docstrings render as lists.

The docstrings of ``rummy_env`` are written to read well as plain text, where a list may
start right after a line of text ("Rewards (zero-sum):" then "- points: ..."). Markdown
wants a blank line there, or it runs the items into the paragraph. This extension adds
that blank line, and one after a list that a paragraph follows, when mkdocstrings loads
the docstrings; nothing else changes and the code is not touched.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ITEM = re.compile(r"([-*+]|\d+[.)]) ")


def blank_lines_around_lists(text: str) -> str:
    out: list[str] = []
    in_list = in_fence = False
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        top = not in_fence and line == stripped  # not indented
        if top and ITEM.match(stripped):
            if out and out[-1].strip() and not in_list:
                out.append("")
            in_list = True
        elif in_list and top and stripped:  # a paragraph right after the list
            out.append("")
            in_list = False
        elif not stripped:
            in_list = False
        out.append(line)
    return "\n".join(out)


class ListsInDocstrings(griffe.Extension):
    """Blank lines around the top-level lists of every docstring."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = blank_lines_around_lists(obj.docstring.value)
