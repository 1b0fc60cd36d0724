"""Folders of label files filled by long collections (``train.distill``, ``train.knock_labels``).

Why one module: both collections run for hours, so both need the same guarantees. A file
is written whole or not at all. A rerun plays only what is missing. ``labels.json``
says how the folder's labels were made, and a rerun with other settings is refused
rather than mixed in. Jobs run on spawned worker processes with one torch thread each.
"""

from __future__ import annotations

import io
import json
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from rummy_env.core.files import write_atomically

MANIFEST = "labels.json"


def open_folder(folder: Path, manifest: dict[str, Any], has_files: bool, kind: str,
                ignore: Iterable[str] = ()) -> None:
    """Make ``folder`` ready for a collection with settings ``manifest``: write
    ``labels.json`` for a new folder, or check that the one there agrees (keys in
    ``ignore`` may differ); remove the temporary files of a write cut short. ``has_files``:
    the folder already holds label files (refused without a ``labels.json``); ``kind``
    names them in that error."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MANIFEST
    skip = set(ignore)
    if path.is_file():
        held = json.loads(path.read_text())
        changed = sorted(k for k in manifest if k not in skip and held.get(k) != manifest[k])
        if changed:
            raise ValueError(f"{str(folder)!r} holds labels made with other settings ("
                             + ", ".join(f"{k}: {held.get(k)!r} there, {manifest[k]!r} now" for k in changed)
                             + "); collect into another folder")
    elif has_files:
        raise ValueError(f"{str(folder)!r} holds {kind} files but no labels.json saying how they were made; "
                         "collect into another folder")
    else:
        write_atomically(path, (json.dumps(manifest, indent=1) + "\n").encode())  # whole or absent
    for stale in folder.glob(".*.tmp"):  # left by a collection stopped mid-write
        stale.unlink()


def write_npz(path: Path, data: dict[str, np.ndarray]) -> None:
    """Write ``data`` to ``path`` (compressed ``.npz``) whole or not at all: a crash never
    leaves half a file under the real name."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **data)
    write_atomically(path, buffer.getvalue())


def _one_thread() -> None:
    import torch

    torch.set_num_threads(1)  # one process per core: torch's own threads would only compete


def run_jobs(work: Callable[[Any], Any], jobs: Sequence[Any], workers: int) -> Iterator[Any]:
    """``work(job)`` for each job, in this process or on ``workers`` spawned processes
    (results in the order they finish)."""
    if workers == 1 or len(jobs) <= 1:
        yield from map(work, jobs)
        return
    with get_context("spawn").Pool(workers, initializer=_one_thread) as pool:  # spawn: forking after torch loads can hang
        yield from pool.imap_unordered(work, jobs, chunksize=1)
