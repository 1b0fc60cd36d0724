"""numba's cache and the files its kernels read (``rummy_env.core.compiled.refresh_cache``):
after an edit to a module a kernels module imports from (an observation layout), the
kernels compile afresh instead of numba handing back code built from the old numbers.
Each run is a fresh interpreter, as a user's next process would be. And the Rommé solver's
search is compiled once: no call passes it a constant (a type of its own to numba)."""

import ast
import os
import re
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


# The Rommé solver's search and the kernels that call it: large, so each extra compiled
# version of one costs a first use seconds to minutes (``melds_jit._i``)
SEARCHES = {"_can_end", "_plan_ends", "_solves", "_search", "_searched", "_hand", "_come_out", "_arrangement"}
MODULE_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")


def literal_arguments(path: Path) -> list[str]:
    """Calls, inside compiled functions of ``path``, to a function named in ``SEARCHES``
    that pass a constant (a number, a bool, a module's upper-case name): numba types such an
    argument as a literal of its own and compiles the function again for it."""
    tree = ast.parse(path.read_text())
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or not any("njit" in ast.unparse(d) for d in fn.decorator_list):
            continue
        for call in ast.walk(fn):
            if not isinstance(call, ast.Call):
                continue
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
            if name not in SEARCHES:
                continue
            for arg in call.args:
                bare = arg.operand if isinstance(arg, ast.UnaryOp) else arg
                if isinstance(bare, ast.Constant) or (isinstance(bare, ast.Name) and MODULE_CONSTANT.match(bare.id)):
                    found.append(f"{path.name}:{call.lineno} {name}(... {ast.unparse(arg)} ...)")
    return found


def test_the_solvers_search_is_called_with_no_constant_arguments():
    root = Path(__file__).resolve().parents[2] / "rummy_env"
    found = [hit for p in sorted(root.rglob("*_jit.py")) for hit in literal_arguments(p)]
    assert not found, f"constants passed to the solver's search (pass them through melds_jit._i / _b): {found}"


def test_the_check_finds_a_constant_argument(tmp_path):
    source = tmp_path / "demo_jit.py"
    source.write_text("import numba\n\n@numba.njit\ndef f(x):\n    return K._hand(x, 0, _i(1), LIMIT, -1, y)\n")
    assert [hit.split(" ", 1)[1] for hit in literal_arguments(source)] == [
        "_hand(... 0 ...)", "_hand(... LIMIT ...)", "_hand(... -1 ...)"]
