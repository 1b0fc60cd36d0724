"""Checks every game's trainer must pass, shared by the games' training tests
(test_train.py: Gin, test_basic_ppo.py: Basic Rummy, test_train_romme.py: Rommé), each
calling them with its own tiny run configuration."""

from pathlib import Path
from typing import Any, Callable

import pytest
import torch

from rummy_env.train.ppo import Trainer


def check_start_from_another_runs_policy(tiny: Callable[..., Any], tmp_path: Any, **fresh: Any) -> str:
    """A run started from another run's ``policy.pt`` (``init_policy``) starts with that
    network and trains on; one of other widths, or a missing file, is refused before a run
    folder is made. ``tiny(tmp_path, **options)`` is the game's small config; ``fresh``
    the options a started run adds (Basic Rummy's: no imitation warm start). Returns the
    policy file, for the game's own checks."""
    first = Trainer.start(tiny(tmp_path, total_updates=2), tmp_path / "first")
    first.train()
    first.close()
    policy = str(tmp_path / "first" / "policy.pt")
    t = Trainer.start(tiny(tmp_path, total_updates=1, init_policy=policy, lr=1e-3, **fresh), tmp_path / "second")
    for name, value in first.net.state_dict().items():  # the new run's network starts as the old one ended
        torch.testing.assert_close(t.net.state_dict()[name], value)
    t.train()
    t.close()
    assert any(not torch.equal(t.net.state_dict()[k], v) for k, v in first.net.state_dict().items())  # and trains on
    with pytest.raises(ValueError, match="holds a network with .*'hidden': \\[32\\].*asks for .*'hidden': \\[16\\]"):
        Trainer.start(tiny(tmp_path, init_policy=policy, hidden=[16], **fresh), tmp_path / "third")
    with pytest.raises(FileNotFoundError, match="init_policy: policy file .*nowhere.pt"):
        Trainer.start(tiny(tmp_path, init_policy=str(tmp_path / "nowhere.pt"), **fresh), tmp_path / "fourth")
    assert not (tmp_path / "third").exists() and not (tmp_path / "fourth").exists()  # no half-made run folders
    assert tiny(tmp_path, init_policy="null").init_policy is None
    return policy


def check_a_killed_run_resumes_to_the_straight_runs_weights(tiny: Callable[..., Any], tmp_path: Any) -> Path:
    """``tiny(tmp_path)`` (4 updates, a checkpoint every 2) run straight, and again killed
    after update 3 and resumed from the checkpoint of update 2: the same final weights.
    Returns the straight run's folder."""

    class Killed(Exception):
        pass

    def kill_after_update_3(trainer: Trainer) -> None:  # the checkpoint of update 2 is the last one
        if trainer.update == 3:
            raise Killed

    straight = Trainer.start(tiny(tmp_path), tmp_path / "straight")
    straight.train()
    straight.close()
    first = Trainer.start(tiny(tmp_path), tmp_path / "split")
    with pytest.raises(Killed):
        first.train(on_update=kill_after_update_3)
    first.close()
    resumed = Trainer.resume(tmp_path / "split")
    resumed.train()
    resumed.close()
    a = torch.load(tmp_path / "straight" / "policy.pt", weights_only=True)["state_dict"]
    b = torch.load(tmp_path / "split" / "policy.pt", weights_only=True)["state_dict"]
    assert straight.update == resumed.update == 4 and all(torch.equal(a[k], b[k]) for k in a)
    return tmp_path / "straight"
