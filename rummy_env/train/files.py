"""Run files: checkpoints written whole or not at all (a training run killed mid-write keeps
its last complete checkpoint under the real name, so ``--resume`` always finds a usable
one), and the checked read of the policy a new run starts from (``init_policy``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Union


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, synced, then renamed over it."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def init_weights(path: Union[str, Path], load: Callable[[Union[str, Path]], tuple[Any, Any]],
                 shape: Callable[[Any], dict[str, Any]], want: dict[str, Any]) -> dict[str, Any]:
    """The weights of the policy file or checkpoint ``path`` (read by the game's ``load``),
    checked to have the run's network shape: ``shape(net)`` must equal ``want``.

    Why a run may start from them: to train a finished network further under other
    settings (another reward, learning rate or opponent mix) as a new run, where
    ``--resume`` may only continue the same one. Errors name ``init_policy`` and the file.
    """
    try:
        net, _ = load(path)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"init_policy: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"init_policy: {exc}") from None
    have = shape(net)
    if have != want:
        raise ValueError(f"init_policy {str(path)!r} holds a network with {have}; this run's config asks for {want}")
    return net.state_dict()
