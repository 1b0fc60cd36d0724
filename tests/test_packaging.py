"""What ``pip install rummy-env`` installs: the wheel holds the one package ``rummy_env``
(no top-level ``agents``, ``train`` or ``eval`` to clash with a user's own modules) and
every file of the package folder, so that ``rummy demo`` works from the wheel far from any
checkout. The wheel is built here from a copy of the package, without the network; CI
(.ci/run) also installs it into a fresh virtual environment and runs ``rummy demo``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import rummy_env

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this tree (its files that git tracks or would), built by pip with this
    environment's setuptools (no build isolation, no index)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("builds the wheel from the files git tracks: needs a git checkout")
    src = tmp_path_factory.mktemp("src")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):  # the tree as a fresh clone has it (links kept as links)
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name, follow_symlinks=False)
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                            "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    (path,) = out.glob("rummy_env-*.whl")
    return path


def test_the_wheel_holds_the_package_and_every_file_of_it_and_nothing_else(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    info = f"rummy_env-{rummy_env.__version__}.dist-info"
    assert {name.split("/")[0] for name in names} == {"rummy_env", info}
    package = {path.relative_to(ROOT).as_posix() for path in (ROOT / "rummy_env").rglob("*")
               if path.is_file() and "__pycache__" not in path.parts}
    assert package - names == set(), "files of the package the wheel leaves out"
    assert {"rummy_env/cli/data/ppo_demo.yaml", "rummy_env/cli/data/tournament_demo.yaml"} <= names


def test_the_demo_runs_from_the_wheel_outside_the_repository(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)  # what pip install puts in site-packages
    work = tmp_path / "elsewhere"
    work.mkdir()
    code = (f"import sys; sys.path.insert(0, {str(site)!r}); import rummy_env\n"
            f"assert rummy_env.__file__.startswith({str(site)!r}), rummy_env.__file__\n"
            "from rummy_env.cli import main\n"
            "sys.exit(main(['demo', '--total-updates', '1', '--deals', '1', '--quiet', '--out', 'runs']))\n")
    env = {**os.environ, "RUMMY_ENV_NO_NUMBA": "1"}  # numba would compile the copy's kernels afresh
    out = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert "training 'ppo_demo' for 1 updates" in out.stdout and "1 duplicate deals per pair" in out.stdout
    (policy,) = work.glob("runs/demo-*/ppo_demo__0__*/policy.pt")
    assert f"ppo:{policy.relative_to(work)}" in out.stdout
