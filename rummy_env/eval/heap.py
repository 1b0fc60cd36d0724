"""Long-lived objects kept out of the garbage collector's full passes while a tournament runs.

Why: a process that has imported torch and numba and loaded a model holds hundreds of
thousands of objects that live as long as it does (modules, functions, tables, caches).
CPython's oldest-generation collection walks every one of them, and the records of a
long tournament trigger several such passes: a noticeable share of a batched run
(docs/benchmarks.md, "Tournament throughput", has the figures). ``gc.freeze`` moves
the objects alive now out of the collector's view; objects made afterwards are collected
as usual, and ``gc.unfreeze`` at the end puts the frozen ones back. Nothing is lost: the
frozen objects were alive anyway, and garbage among them waits until the unfreeze.
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def long_lived_frozen() -> Iterator[None]:
    """Freeze the objects alive now for the duration of the block (``gc.freeze``), unless
    some caller has frozen objects already: then that caller's freeze stands and is left
    for it to undo."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
