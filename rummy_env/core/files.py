"""Files written whole or not at all: the one atomic write every writer of the library uses
(policy files and checkpoints, label files, a tournament's results header).

Why: a run killed mid-write must never leave half a file under the real name, since the
next run resumes from what it finds there. The bytes go to a hidden temporary file beside
the target (named for this process, so parallel writers never share one), are synced to
disk, then renamed over the target in one step.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union


def write_atomically(path: Union[str, Path], data: bytes) -> None:
    """Write ``data`` to ``path`` through a synced temporary file renamed over it (the folder
    is made if need be)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
