"""Policy files and training checkpoints: written as plain data, read without unpickling objects.

Why: a ``.pt`` file is a pickle, and unpickling can run any code the file's author chose.
A policy file passed to ``ppo:PATH`` or ``--init-policy``, a checkpoint a run resumes from
or a network someone shared must never be able to do that. So every file this library
writes holds only tensors and plain Python data (dicts, lists, strings, numbers, booleans,
None), and every file it reads is read with ``torch.load(..., weights_only=True)``, which
refuses anything else.

A file written by an older version, or by other code, that holds other objects is refused
with a message naming the file and the one command that rewrites it as plain data where it
can (NumPy values, paths, a 0.2 Gin checkpoint's games), itself running nothing the file
names: ``rummy convert-policy FILE`` (``rummy_env.train.convert``).
"""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path
from typing import Any, Union

import numpy as np

from rummy_env.core.files import write_atomically

CONVERT = "rummy convert-policy"  # the command that rewrites an old file as plain data


class UnsafeFileError(ValueError):
    """A torch file that holds pickled Python objects besides tensors and plain data."""


def convert_hint(path: Union[str, Path]) -> str:
    """What to do about a file that needs full unpickling: the command, and what it converts."""
    return (f"if it holds NumPy values, paths or the games of a rummy-env 0.2 Gin checkpoint, rewrite it once as "
            f"plain data (nothing in the file is run): {CONVERT} {str(path)!r}")


def load(path: Union[str, Path], what: str = "policy file") -> Any:
    """The contents of the torch file ``path``, read with ``weights_only=True``.

    ``FileNotFoundError`` when there is no such file; ``UnsafeFileError`` (a ``ValueError``)
    naming the file and the converting command when it holds other objects; ``ValueError``
    naming the file when it is not a torch file at all (truncated, another format).
    """
    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} {str(path)!r} not found")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        if "unsupported global" in str(exc).lower():  # a pickled object (a class or function to call): not plain data
            raise UnsafeFileError(f"{what} {str(path)!r} holds pickled Python objects, which rummy-env does not "
                                  f"load; {convert_hint(path)}") from None
        raise ValueError(f"{str(path)!r} is not a readable {what} (not a torch file of tensors and plain data)") from None
    except Exception as exc:  # truncated, not a torch file, ...
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise ValueError(f"{str(path)!r} is not a readable {what} ({type(exc).__name__}: {first})") from None


def policy_payload(path: Union[str, Path]) -> Any:
    """What a policy file holds (``load``), or the policy a training checkpoint holds (its
    ``policy`` entry): the payload a game's ``load_policy`` checks and builds from."""
    payload = load(path)
    if isinstance(payload, dict) and isinstance(payload.get("policy"), dict):
        payload = payload["policy"]
    return payload


def plain(value: Any, where: str = "value") -> Any:
    """``value`` as what ``load`` reads back: tensors and plain Python data. NumPy arrays
    become tensors, NumPy scalars Python numbers, paths strings; anything
    else is a ``TypeError`` naming where it sits, so a file never holds an object that
    only full unpickling could read."""
    import torch

    if isinstance(value, np.generic):  # before the Python types: np.float64 is a float
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value).copy())
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, (str, int)):
                raise TypeError(f"{where}: key {key!r} is a {type(key).__name__}; keys must be text or integers")
            out[key] = plain(item, f"{where}[{key!r}]")
        return out
    if isinstance(value, (list, tuple)):
        items = [plain(item, f"{where}[{k}]") for k, item in enumerate(value)]
        return tuple(items) if isinstance(value, tuple) else items
    raise TypeError(f"{where} is of type {type(value).__name__}: a policy or checkpoint file holds only tensors, arrays "
                    "and plain data (dicts, lists, text, numbers)")


def to_bytes(value: Any, where: str = "file") -> bytes:
    """``plain(value)`` as the bytes of a torch file (write them atomically)."""
    import torch

    buffer = io.BytesIO()
    torch.save(plain(value, where), buffer)
    return buffer.getvalue()


def save(value: Any, path: Union[str, Path]) -> None:
    """Write ``plain(value)`` to ``path``, whole or not at all (``core.files.write_atomically``)."""
    write_atomically(path, to_bytes(value, Path(path).name))
