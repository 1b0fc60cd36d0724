"""Run files: checkpoints written whole or not at all, as plain data (a training run killed
mid-write keeps its last complete checkpoint under the real name, so ``--resume`` always
finds a usable one, and reading one never unpickles objects: ``rummy_env.agents.torch_files``),
and the checked read of the policy a new run starts from (``init_policy``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence, Union

from rummy_env.agents import torch_files


class CheckpointError(ValueError):
    """A checkpoint that cannot be used (missing, damaged, unsafe, or from another run format)."""


def read_checkpoint(path: Union[str, Path], format: str, needed: Sequence[str],
                    converted: Sequence[str] = ()) -> dict[str, Any]:
    """The checkpoint ``path`` of format ``format`` holding the keys ``needed``, read as plain
    data; ``CheckpointError`` naming the file otherwise. ``converted``: older formats of the
    same trainer that ``rummy convert-policy`` rewrites (the error says so)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {str(path)!r}: the run saved none yet (checkpoint_every updates)")
    try:
        state = torch_files.load(path, "checkpoint")
    except torch_files.UnsafeFileError as exc:
        raise CheckpointError(str(exc)) from None
    except ValueError as exc:
        raise CheckpointError(f"checkpoint {str(path)!r} is damaged or not a checkpoint ({exc})") from None
    found = state.get("format") if isinstance(state, dict) else None
    if found in converted:
        raise CheckpointError(f"checkpoint {str(path)!r} is in the older format {found}, which pickles the games in "
                              f"progress; {torch_files.convert_hint(path)}")
    if found != format or any(k not in state for k in needed):
        raise CheckpointError(f"{str(path)!r} is not a {format} checkpoint")
    return state


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
