"""The one trainer (``rummy train --game ...``) makes the weights the two trainers before it made.

``tests/data/train_reference.npz`` holds the final weights of the four tiny runs of ``CASES``
made by the trainers of release 0.2, before they were folded into one: Gin Rummy's
(``rummy_env.train.ppo.Trainer`` with ``rummy_env.train.config.load_config(None, {**case,
"runs_dir": DIR})``) and Basic Rummy's (``rummy_env.train.basic_ppo.Trainer`` with
``rummy_env.train.basic_config.load_config``, the same settings without ``game``, a field
neither had), each run's ``trainer.net.state_dict()`` saved under ``CASE/NAME`` with
``numpy.savez_compressed``, in a checkout of commit 9be1746 (run twice: identical).

Gin Rummy's weights are equal to the bit on the machine that made them (an Intel Xeon);
Basic Rummy's within float rounding: its old trainer used Adam's plain kernel, the one
trainer the fused one (1e-8 apart after two updates). On another CPU torch's vectorised
kernels add in another order: on an AMD EPYC Gin Rummy's came out up to 2.2e-6 apart, so
every case is held within 1e-5 (a changed draw, deal or loss moves them by far more than
the tolerance).

``basic_mix`` plays Basic Rummy's ``random``, whose draws changed on 2026-12-06 (the
counter-based draws of ``rummy_env.agents.draws``, so that its array version picks the
same): its weights were made again then, by the one trainer (twice: identical), and pin
that trainer's weights since; the other three cases still hold 0.2's trainers' weights
(``basic`` with ``rollouts: hands``: the in-process hands 0.2 played). On 2026-12-06
Basic Rummy's rollouts moved to its vector engine (``rummy_env.train.engine_rollouts``:
the opponents' draws keyed per hand and seat), so ``basic_mix``, which plays there by
default, was made again by the one trainer (``python tests/train/test_train_reference.py
basic_mix``, run twice: identical): it pins the engine rollouts, ``basic`` the in-process ones.
Later that day the warm start's teacher hands moved to batches of 8 hands, each dealt
from its own generator and kept in the run folder (``rummy_env.train.teacher_moves``, so
that a slow teacher's collection resumes), which changes the imitated moves of both Basic
Rummy cases: both were made again by the one trainer (``python
tests/train/test_train_reference.py basic basic_mix``, run twice: identical); the Gin
Rummy cases, whose teachers play on the vector engine, were not touched and still pass.
"""

from pathlib import Path

import numpy as np
import pytest

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "train_reference.npz"
GIN = {"num_envs": 8, "rollout_steps": 16, "total_updates": 2, "minibatch_size": 32, "hidden": [16], "card_hidden": 8,
       "opponents": {"simple": 0.4, "pool": 0.2, "heuristic": 0.2, "random": 0.1, "self": 0.1}, "snapshot_every": 1,
       "eval_every": 0, "checkpoint_every": 1, "torch_threads": 1, "progress": False, "update_epochs": 2}
BASIC = {"game": "basic", "hands_per_update": 6, "total_updates": 2, "minibatch_size": 32, "hidden": [16],
         "card_hidden": 8, "eval_every": 0, "progress": False, "snapshot_every": 1, "checkpoint_every": 1,
         "torch_threads": 1, "imitation_samples": 200, "imitation_epochs": 1, "update_epochs": 2}
CASES = {"gin": GIN, "gin_oracle": {**GIN, "critic": "oracle", "advice": True},
         # the shipped config's opponents, its hands in-process as 0.2's trainer played them
         "basic": {**BASIC, "opponents": {"heuristic": 0.8, "pool": 0.2}, "rollouts": "hands"},
         "basic_mix": {**BASIC, "opponents": {"heuristic": 0.4, "pool": 0.3, "random": 0.3}, "players": {2: 1, 4: 1}}}
TOLERANCE = {"gin": 1e-5, "gin_oracle": 1e-5, "basic": 1e-5, "basic_mix": 1e-5}  # (module docstring)


def train(case: str, runs_dir: str) -> dict:
    """The final weights of ``CASES[case]`` trained by the one trainer."""
    from rummy_env.train.config import load_config
    from rummy_env.train.ppo import Trainer

    trainer = Trainer.start(load_config(None, {**CASES[case], "runs_dir": runs_dir}))
    trainer.train()
    trainer.close()
    return {k: v.numpy() for k, v in trainer.net.state_dict().items()}


@pytest.mark.parametrize("case", list(CASES))
def test_the_one_trainer_gives_the_weights_of_the_trainers_before_it(case, tmp_path):
    pytest.importorskip("torch")
    reference = np.load(REFERENCE)
    weights = train(case, str(tmp_path))
    assert {f"{case}/{k}" for k in weights} == {k for k in reference.files if k.startswith(case + "/")}
    worst = max(float(np.abs(v - reference[f"{case}/{k}"]).max()) for k, v in weights.items())
    assert worst <= TOLERANCE[case], f"{case}: weights differ by up to {worst}"


if __name__ == "__main__":  # remake the named cases' weights in the reference file, the others kept
    import sys
    import tempfile

    import torch

    torch.set_num_threads(1)
    kept = dict(np.load(REFERENCE))
    for case in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as tmp:
            kept = {k: v for k, v in kept.items() if not k.startswith(case + "/")}
            kept.update({f"{case}/{k}": v for k, v in train(case, tmp).items()})
    np.savez_compressed(REFERENCE, **kept)
