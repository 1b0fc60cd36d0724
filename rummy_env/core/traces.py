"""The file format of game traces: one decision a line of JSON (docs/traces.md), written by
``rummy export`` (``rummy_env.eval.export``) and read by the trainer's warm start
(``rummy_env.train.imitation``).

Why in core: the two sides sit in layers that may not import each other (tournaments and
training), and the fields of a line must be named once for both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Union

# the fields of a line, in the order they are written (docs/traces.md says what each holds)
FIELDS = ("game", "rules", "mode", "key", "num_players", "hand", "step", "agent", "seat", "view", "observation",
          "legal", "action", "reward", "won", "outcome")


def read_decisions(path: Union[str, Path]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The lines of an export as (line number, dict); a line that is not a decision of
    ``rummy export`` is a ValueError naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: expected a file written by rummy export")
    with path.open(encoding="utf-8") as f:
        for number, raw in enumerate(f, start=1):
            try:
                line = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path} line {number} is not valid JSON ({exc.msg}); expected a line of rummy export") from None
            missing = [name for name in FIELDS if not isinstance(line, dict) or name not in line]
            if missing:
                raise ValueError(f"{path} line {number} is not a decision of rummy export (it lacks {', '.join(missing)})")
            yield number, line

