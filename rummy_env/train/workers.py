"""Rollout workers of any game, in the trainer's process (backend ``local``), and what every backend shares.

A worker (the game's, from its training adapter: Gin Rummy's vector engine,
``rummy_env.train.games.gin``, the hands of any other game played on its vector engine,
``rummy_env.train.engine_rollouts``, or in-process, ``rummy_env.train.hands``) owns
its share of an update's games (``split_games``), its own deals and draws, and returns
its rollout as a batch; the learner concatenates the workers' batches in worker order
(``merge_batches``) and learns from them. The same workers run inside Ray actors
(``rummy_env.train.ray_rollouts``), so a batch is the same whichever process played it.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

# the arrays of a batch, one row per learner move (concatenated across workers)
BATCH_ARRAYS = ("obs", "mask", "act", "logp", "val", "adv", "ret", "priv")


def split_games(num_envs: int, workers: int) -> list[int]:
    """How many of ``num_envs`` games each of ``workers`` plays (as even as can be, the first ones one more)."""
    if workers < 1 or num_envs < workers:
        raise ValueError(f"cannot split {num_envs} games over {workers} rollout workers: need 1 <= workers <= num_envs")
    return [len(part) for part in np.array_split(np.arange(num_envs), workers)]


def merge_batches(batches: list[dict[str, Any]]) -> dict[str, Any]:
    """One update's batch from the workers' batches, in worker order."""
    if len(batches) == 1:
        return batches[0]
    out: dict[str, Any] = {k: np.concatenate([b[k] for b in batches]) for k in BATCH_ARRAYS}
    keys = dict.fromkeys(k for b in batches for k in b["returns"])
    out["returns"] = {k: [r for b in batches for r in b["returns"].get(k, [])] for k in keys}
    out["outcomes"] = np.sum([b["outcomes"] for b in batches], axis=0)
    out["episodes"] = sum(b["episodes"] for b in batches)
    if all("steps" in b for b in batches):
        out["steps"] = sum(b["steps"] for b in batches)
    out["seconds"] = max(b["seconds"] for b in batches)  # side by side (the backend may say otherwise)
    return out


class LocalRollouts:
    """Backend ``local``: the workers in the trainer's process, one after the other.

    They share the learner's modules (no weights to send); with one worker it also samples
    from the learner's generator, as the single-process trainer did.
    """

    def __init__(self, config: Any, adapter: Any, net: Any, critic: Optional[Any], generator: Any) -> None:
        sizes = split_games(adapter.work(config), config.rollout_workers)
        shared = generator if len(sizes) == 1 else None
        self.workers = [adapter.make_worker(config, i, n, net, critic, shared) for i, n in enumerate(sizes)]
        self.restarts = 0  # no actor to die

    def collect(self) -> dict[str, Any]:
        """One update's batch: every worker's rollout, in worker order."""
        batches = [w.rollout() for w in self.workers]
        batch = merge_batches(batches)
        batch["seconds"] = sum(b["seconds"] for b in batches)  # one after the other
        return batch

    def set_pool(self, pool: list[dict[str, Any]]) -> None:
        for w in self.workers:
            w.set_pool(pool)

    def reassign(self) -> None:
        for w in self.workers:
            w.reassign()

    def states(self) -> list[dict[str, Any]]:
        return [w.state() for w in self.workers]

    def restore(self, states: list[dict[str, Any]]) -> None:
        check_states(states, len(self.workers))
        for w, s in zip(self.workers, states):
            w.restore(s)

    def close(self) -> None:
        """Nothing to release: the workers live in this process and go with it. Here so
        the trainer closes any backend the same way (``RayRollouts.close`` stops actors)."""


def state_from_checkpoint(state: dict[str, Any]) -> dict[str, Any]:
    """A worker's ``state()`` as a checkpoint gives it back (its arrays as tensors) in the
    form ``state()`` makes it (NumPy arrays): what travels to a Ray actor (torch cannot
    pickle a uint64 tensor for it) and what ``restore`` reads."""
    out = dict(state)
    env = state.get("env")
    if isinstance(env, dict) and "arrays" in env:
        out["env"] = {**env, "arrays": {k: np.asarray(v) for k, v in env["arrays"].items()}}
    for k in ("kind", "pool_index", "learner_seat"):
        if k in state:
            out[k] = np.asarray(state[k])
    return out


def check_states(states: list[dict[str, Any]], workers: int) -> None:
    """A checkpoint's worker states must be one per rollout worker."""
    if len(states) != workers:
        raise ValueError(f"the checkpoint holds the games of {len(states)} rollout worker(s); this run has {workers} "
                         "(rollout_workers cannot change when resuming)")
