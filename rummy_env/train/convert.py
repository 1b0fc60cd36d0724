"""``rummy convert-policy FILE``: rewrite a policy file or checkpoint of an older format as plain data.

Why it exists: rummy-env reads ``.pt`` files only as tensors and plain data
(``rummy_env.agents.torch_files``), so a file that holds other objects (a Gin training
checkpoint of version 0.2, which pickled its games in progress, or a file written by other
code with NumPy values or paths in it) is refused. This command reads such a file and
writes it again in the safe form, and still runs nothing the file names:

- the file itself is read with ``torch.load(..., weights_only=True)``, allowing beside
  tensors and plain data only the globals that build NumPy arrays, scalars and dtypes and
  paths (``data_globals``): what ``torch_files.plain`` turns into plain data. A file naming
  any other global is refused, the global named, before anything is written;
- a 0.2 checkpoint's games (a pickle of its own, inside the file) are read by
  ``_GamesUnpickler``: the NumPy globals build NumPy's arrays and generators, and every
  other global (the engines, their encoders, ``getattr``, anything) stands for an inert
  record (``Stored``) of what the pickle gave it. Gin's training code then reads the
  engine's arrays and generator from its record (``rummy_env.train.rollout.state_of_v1``):
  nothing of the file's own code is called.
"""

from __future__ import annotations

import io
import pathlib
import pickle
import re
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents import torch_files
from rummy_env.core.files import write_atomically

# (module, name) of the NumPy globals the pickle of arrays, scalars, dtypes and random
# generators names (numpy 2 and the numpy 1 spellings): each only builds NumPy data. A
# constructor here that is handed another global gets an inert record and fails.
_NUMPY_GLOBALS = frozenset({
    *((core, name) for core in ("numpy._core.multiarray", "numpy.core.multiarray") for name in ("_reconstruct", "scalar")),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.random._pickle", "__generator_ctor"), ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pcg64", "PCG64"), ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
})


def data_globals() -> list[Any]:
    """What ``torch.load(..., weights_only=True)`` may build here beside tensors and plain
    data: NumPy arrays, scalars and dtypes (under the numpy 2 and numpy 1 names) and paths,
    each of which only makes data when unpickled (``torch_files.plain`` then writes them as
    tensors, numbers and text)."""
    from numpy._core import multiarray

    found: list[Any] = [np.ndarray, np.dtype]
    for name in ("_reconstruct", "scalar"):
        fn = getattr(multiarray, name)
        found += [fn, (fn, f"numpy.core.multiarray.{name}")]
    found += [cls for cls in vars(np.dtypes).values() if isinstance(cls, type) and issubclass(cls, np.dtype)]
    found += [pathlib.PosixPath, pathlib.WindowsPath, pathlib.PurePosixPath, pathlib.PureWindowsPath]
    return found


class Stored:
    """What any global other than NumPy's, named in a 0.2 checkpoint's pickled games, is read
    as: never the global itself, so nothing it would run runs. A record of what the pickle
    gave it: ``args`` when called, ``state`` when its state is set; ``name`` the global's
    dotted name (a subclass per global, made by ``_GamesUnpickler.find_class``)."""

    name = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs

    def __setstate__(self, state: Any) -> None:
        self.state = state


class _GamesUnpickler(pickle.Unpickler):
    """The unpickler of a 0.2 checkpoint's games (``Stored``)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _NUMPY_GLOBALS:
            return super().find_class(module, name)
        if module == "numpy.dtypes":  # a dtype's class, nothing else the module holds
            found = getattr(np.dtypes, name, None)
            if isinstance(found, type) and issubclass(found, np.dtype):
                return found
        return type(name, (Stored,), {"name": f"{module}.{name}"})


def _worker_state(old: Any) -> dict[str, Any]:
    """A rollout worker as 0.2 pickled it (a dict holding its engine, read as a ``Stored``
    record, and its generator) as plain data: Gin's training code checks the record's class
    and takes the engine's snapshot from its state (``rollout.state_of_v1``)."""
    from rummy_env.train.rollout import state_of_v1

    if not isinstance(old, dict):
        raise ValueError("its games are not the Gin engines a 0.2 checkpoint holds")
    env = old.get("env")
    return state_of_v1(getattr(env, "name", ""), getattr(env, "state", None), old)


def upgrade(payload: Any) -> Any:
    """``payload`` in today's format: a Gin checkpoint of format v1 gets its pickled games
    as plain worker states (format v2; ``_GamesUnpickler``); anything else is returned as
    it is. ``ValueError`` when those games are not what 0.2 wrote."""
    from rummy_env.train.ppo import CHECKPOINT_FORMAT, OLD_FORMATS

    if isinstance(payload, dict) and payload.get("format") in OLD_FORMATS and isinstance(payload.get("games"), bytes):
        try:
            games = _GamesUnpickler(io.BytesIO(payload["games"])).load()
        except Exception as exc:
            raise ValueError(f"its games cannot be read ({type(exc).__name__}: {exc})") from None
        games = [games] if isinstance(games, dict) else games  # a dict: a checkpoint of before rollout workers
        if not isinstance(games, list):
            raise ValueError("its games are not the Gin engines a 0.2 checkpoint holds")
        try:
            workers = [_worker_state(g) for g in games]
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"its games are not the Gin engines a 0.2 checkpoint holds ({exc})") from None
        payload = {**payload, "format": CHECKPOINT_FORMAT, "games": workers}
    return payload


def _read(path: Path) -> Any:
    """The torch file ``path`` read the safe way, NumPy data and paths allowed
    (``data_globals``); ``ValueError`` naming a global it holds beyond those, or saying it
    is no torch file."""
    import torch

    try:
        with torch.serialization.safe_globals(data_globals()):
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        named = re.search(r"GLOBAL ([\w.]+)", str(exc))
        if named:
            raise ValueError(f"{str(path)!r} holds the global {named.group(1)}, which rummy convert-policy does not "
                             "read: it reads tensors, plain data, NumPy arrays, scalars and paths, and the games of a "
                             "0.2 Gin checkpoint") from None
        raise ValueError(f"{str(path)!r} is not a readable torch file (not a pickle of tensors and data)") from None
    except Exception as exc:  # truncated, not a torch file, ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ValueError(f"{str(path)!r} is not a readable torch file ({type(exc).__name__}: {first})") from None


def convert(path: Union[str, Path], out: Optional[Union[str, Path]] = None) -> Path:
    """Rewrite the torch file ``path`` as plain data, to ``out`` (default: in place, the
    original kept beside it as ``NAME.pickled``); returns the file written, checked to read
    back the safe way. ``ValueError`` naming what it holds beyond what can be converted,
    ``TypeError`` naming an entry that has no plain form; either way the file is left as
    it was and nothing is written."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{str(path)!r} not found")
    payload = _read(path)
    try:
        upgraded = upgrade(payload)
    except ValueError as exc:
        raise ValueError(f"{str(path)!r}: {exc}") from None
    data = torch_files.to_bytes(upgraded, path.name)  # fails before anything is written
    target = Path(out) if out is not None else path
    if out is None:
        path.replace(path.with_name(path.name + ".pickled"))
    write_atomically(target, data)
    torch_files.load(target, "converted file")
    return target
