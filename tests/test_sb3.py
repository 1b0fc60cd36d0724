"""Stable-Baselines3 on the Gymnasium view: ``make_vec_env`` (which asks for
``render_mode="rgb_array"``) builds the env, and the shipped MaskablePPO example trains
briefly and beats ``random``."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

import rummy_env  # noqa: E402, F401

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sb3_maskable_ppo.py"


def test_make_vec_env_builds_the_env_with_its_default_render_mode():
    venv = make_vec_env("rummy_env/GinRummy-v0", n_envs=2, seed=0, env_kwargs={"opponent": "simple"})
    assert venv.render_mode == "rgb_array"
    obs = venv.reset()
    assert obs.shape == (2, 479)
    masks = venv.env_method("action_masks")
    assert all(m.any() for m in masks)
    frame = venv.env_method("render")[0]
    assert frame.ndim == 3 and frame.shape[2] == 3


def test_the_maskable_ppo_example_trains_briefly_and_beats_random():
    out = subprocess.run([sys.executable, str(EXAMPLE), "--steps", "40000", "--hands", "200"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    found = re.search(r"vs random: ([+-][\d.]+) \+- ([\d.]+) points a hand", out.stdout)
    assert found, out.stdout
    mean, ci = float(found.group(1)), float(found.group(2))
    assert mean - ci > 5.0, out.stdout  # random against random scores about 0
