"""``rummy convert-policy FILE``: rewrite a policy file or checkpoint that a user trusts as plain data.

Why it exists: rummy-env reads ``.pt`` files only as tensors and plain data
(``rummy_env.agents.torch_files``), so a file that holds pickled objects (a Gin training
checkpoint of version 0.2, which pickled its games in progress, or a file written by other
code) is refused. This is the one place that unpickles such a file, on the user's explicit
command, and writes it again in the safe form; everything else keeps refusing it.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents import torch_files
from rummy_env.core.files import write_atomically


def _worker_state(old: dict[str, Any]) -> dict[str, Any]:
    """A rollout worker's state as 0.2 pickled it (engine and generator objects) as plain data
    (``rummy_env.train.rollout.RolloutWorker.state``)."""
    rng = old["rng"]
    return {"env": old["env"].snapshot(), "rng": rng.bit_generator.state if isinstance(rng, np.random.Generator) else rng,
            "kind": old["kind"], "pool_index": old["pool_index"], "learner_seat": old["learner_seat"],
            "generator": old.get("generator")}


def upgrade(payload: Any) -> Any:
    """``payload`` in today's format: a Gin checkpoint of format v1 gets its pickled games
    as plain worker states (format v2); anything else is returned as it is."""
    from rummy_env.train.ppo import CHECKPOINT_FORMAT, OLD_FORMATS

    if isinstance(payload, dict) and payload.get("format") in OLD_FORMATS and isinstance(payload.get("games"), bytes):
        games = pickle.loads(payload["games"])  # the user vouched for this file
        games = [games] if isinstance(games, dict) else games  # a dict: a checkpoint of before rollout workers
        payload = {**payload, "format": CHECKPOINT_FORMAT, "games": [_worker_state(g) for g in games]}
    return payload


def convert(path: Union[str, Path], out: Optional[Union[str, Path]] = None) -> Path:
    """Rewrite the trusted torch file ``path`` as plain data, to ``out`` (default: in place,
    the original kept beside it as ``NAME.pickled``); returns the file written, checked to
    read back the safe way. ``TypeError`` naming the entry when the file holds an object
    that has no plain form (the file is then left as it was)."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{str(path)!r} not found")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=False)  # explicit trust: the user's command
    except Exception as exc:
        raise ValueError(f"{str(path)!r} is not a readable torch file ({type(exc).__name__}: {exc})") from None
    data = torch_files.to_bytes(upgrade(payload), path.name)  # fails before anything is written
    target = Path(out) if out is not None else path
    if out is None:
        path.replace(path.with_name(path.name + ".pickled"))
    write_atomically(target, data)
    torch_files.load(target, "converted file")
    return target
