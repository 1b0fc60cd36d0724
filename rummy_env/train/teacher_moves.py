"""The warm start's teacher hands for the games trained in-process, kept in the run's folder.

Why files: a cheap teacher (a scripted heuristic) plays its hands in seconds, but a strong
one is slow: Rommé's ``search`` thinks about 0.1 s a move, so the tens of thousands of
moves a warm start wants take hours on one core. Such a collection must survive a crash
and use every core, as the label collections of ``rummy distill`` do
(``rummy_env.train.label_files``): the teacher's hands are played in batches of
``BATCH`` hands, each batch dealt from its own generator (``[seed, 5, k]`` for batch
``k``) and written whole as ``imitation/teacher-0000k.npz`` in the run's folder as it
ends, on ``rollout_workers`` processes. A run stopped during the collection is continued
by ``rummy train --resume``: the batches on disk are read back, only the missing ones are
played, and ``imitation/labels.json`` refuses a folder made with other settings.

The data are the first batches in order that hold ``imitation_samples`` moves, cut to
exactly that many, so they do not depend on where a collection was stopped or how many
workers played it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from rummy_env.train.label_files import open_folder, run_jobs, write_npz
from rummy_env.train.rewards import hand_reward

BATCH = 8  # hands of one teacher file
FOLDER = "imitation"  # in the run's folder
KEYS = ("obs", "mask", "act", "ret")


def _batch_file(folder: Path, k: int) -> Path:
    return folder / f"teacher-{k:05d}.npz"


def play_batch(job: tuple[Any, Any, int]) -> tuple[int, dict[str, np.ndarray]]:
    """Batch ``k`` of the teacher's hands for the config and training adapter of ``job``
    (a worker's job: both are pickled to it): every decision with more than one legal
    move, with its network input, legal mask, the teacher's move and its seat's hand
    reward (the value's target)."""
    from rummy_env import agents
    from rummy_env.train.hands import Dealer, Seat, play_hands

    c, adapter, k = job
    rng = np.random.default_rng([c.seed, 5, k])
    teacher = agents.make(c.imitation_teacher, seed=int(rng.integers(2**31)), game=adapter.game.name)
    dealer = Dealer(c, adapter)
    states = [dealer.deal(rng)[0] for _ in range(BATCH)]
    seats = [[Seat(agent=teacher, record=True) for _ in range(s.num_players)] for s in states]
    played = play_hands(states, seats, [], adapter, dealer.rules, rng)
    return k, {
        "obs": np.array(played.obs, dtype=np.float32),
        "mask": np.array(played.mask, dtype=bool),
        "act": np.array(played.act, dtype=np.int64),
        "ret": np.array([hand_reward(played.results[g].rewards[p], c.reward, c.win_bonus) for g, p in played.hand],
                        dtype=np.float32),
    }


def _manifest(c: Any, adapter: Any) -> dict[str, Any]:
    """What the files depend on: a rerun with any of these changed is refused."""
    return {"kind": "teacher moves", "game": adapter.game.name, "rules": adapter.game.load_rules(c.rules).to_dict(),
            "teacher": c.imitation_teacher, "players": {str(k): v for k, v in sorted(c.table_sizes.items())},
            "seed": c.seed, "reward": c.reward, "win_bonus": c.win_bonus, "advice": c.advice, "batch": BATCH}


def teacher_moves(config: Any, adapter: Any, progress: Optional[Callable[[int], None]] = None,
                  folder: Optional[Path] = None) -> dict[str, np.ndarray]:
    """The warm start's data: ``imitation_teacher`` plays every seat of hands at the
    ``players`` mix until ``imitation_samples`` decisions are recorded (module docstring);
    with ``folder``, every batch is kept there and the batches already there are reused."""
    c = config
    batches: dict[int, dict[str, np.ndarray]] = {}
    if folder is not None:
        folder = Path(folder)
        held = sorted(folder.glob("teacher-*.npz")) if folder.is_dir() else []
        open_folder(folder, _manifest(c, adapter), bool(held), "teacher")
        for path in held:
            with np.load(path) as data:
                batches[int(path.stem.split("-")[1])] = {key: data[key] for key in KEYS}

    def enough() -> int:
        """How many batches, in order from the first, hold ``imitation_samples`` moves (0: not yet)."""
        total = 0
        for k in range(len(batches) + 1):
            if k not in batches:
                return 0
            total += len(batches[k]["act"])
            if total >= c.imitation_samples:
                return k + 1
        return 0

    workers = max(1, c.rollout_workers)
    while not enough():
        # the batches that should hold enough moves, going by those held (a first one alone if none)
        want = math.ceil(c.imitation_samples / np.mean([len(b["act"]) for b in batches.values()])) if batches else 1
        missing = [k for k in range(want) if k not in batches]
        if not missing:  # the estimate fell short: as many more as there are workers
            missing = [k for k in range(want, want + len(batches) + workers) if k not in batches][:workers]
        for k, data in run_jobs(play_batch, [(c, adapter, k) for k in missing], workers):
            if folder is not None:
                write_npz(_batch_file(folder, k), data)
            batches[k] = data
            if progress is not None:
                progress(sum(len(b["act"]) for b in batches.values()))
    used = [batches[k] for k in range(enough())]
    return {key: np.concatenate([b[key] for b in used])[: c.imitation_samples] for key in KEYS}
