"""Files an attacker would hand over: a ``.pt`` whose unpickling runs a command (it creates a
marker file), for the tests that every reader of policy files, and the web app, refuse it
without running it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable


class MarkerPayload:
    """An object whose unpickling runs a command: it creates ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def hostile_policy(folder: Path, name: str = "evil.pt",
                   wrap: Callable[[Any], Any] = lambda payload: payload) -> tuple[Path, Path]:
    """A ``.pt`` file holding ``wrap(payload)``, which creates a marker file when fully
    unpickled: (the file, the marker)."""
    import torch

    marker = folder / f"{name}.marker"
    path = folder / name
    torch.save(wrap(MarkerPayload(marker)), path)
    return path, marker
