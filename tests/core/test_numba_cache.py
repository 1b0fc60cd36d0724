"""numba's cache and the files its kernels read (``rummy_env.core.compiled.refresh_cache``):
after an edit to a module a kernels module imports from (an observation layout), the
kernels compile afresh instead of numba handing back code built from the old numbers.
Each run is a fresh interpreter, as a user's next process would be."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("numba")

KERNELS = '''
import numba
from {package}.consts import SIZE
from rummy_env.core.compiled import refresh_cache


@numba.njit(cache=True)
def size():
    return SIZE

{refresh}
'''


def make_package(root: Path, package: str, refresh: bool) -> None:
    (root / package).mkdir()
    (root / package / "__init__.py").write_text("")
    (root / package / "consts.py").write_text("SIZE = 3\n")
    (root / package / "kernels.py").write_text(
        KERNELS.format(package=package, refresh="refresh_cache(__name__)" if refresh else ""))


def run(root: Path, package: str) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *sys.path])}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", f"import {package}.kernels as k; print(k.size())"], env=env,
                         capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def edit(path: Path, text: str) -> None:
    before = path.stat().st_mtime_ns
    path.write_text(text)
    while path.stat().st_mtime_ns == before:  # a coarse clock: make the edit visible by its time too
        time.sleep(0.01)
        path.write_text(text)


def test_an_edited_import_recompiles_the_kernels(tmp_path):
    make_package(tmp_path, "stale_demo", refresh=False)
    make_package(tmp_path, "fresh_demo", refresh=True)
    assert run(tmp_path, "stale_demo") == 3 and run(tmp_path, "fresh_demo") == 3
    for package in ("stale_demo", "fresh_demo"):
        edit(tmp_path / package / "consts.py", "SIZE = 5\n")
    assert run(tmp_path, "stale_demo") == 3, "numba alone hands back the stale kernel (what this guards against)"
    assert run(tmp_path, "fresh_demo") == 5
    assert run(tmp_path, "fresh_demo") == 5  # and caches the new one
    stamp = tmp_path / "fresh_demo" / "__pycache__" / "kernels.sources.json"
    assert stamp.exists()


def test_every_kernels_module_refreshes_its_cache():
    """Every module of the package that caches numba kernels calls ``refresh_cache`` at its end."""
    root = Path(__file__).resolve().parents[2] / "rummy_env"
    missing = [str(p.relative_to(root)) for p in root.rglob("*.py")
               if "cache=True" in p.read_text() and "refresh_cache(__name__)" not in p.read_text()]
    assert not missing, f"kernels modules without refresh_cache(__name__): {missing}"
