"""First-use compile time of every compiled part: the seconds a fresh install spends in numba
before the first hand, and the seconds a later process spends loading numba's cache.

Why: each compiled part (``rummy_env.core.compiled.Compiled``: a game's solver, legal mask,
observation writer, vector engine, a scripted agent's kernels) compiles on its first use
and is checked against the Python code; numba then caches the machine code, so only the
first process of a checkout pays. What that first use costs is what a user meets after
``pip install``, and what every fresh test run (CI) meets twice over (each test worker
compiles what it uses). This runs the parts' first use in a process of its own with an
empty numba cache (``NUMBA_CACHE_DIR``, a temporary folder), in ``PARTS`` order (a later
part reuses what an earlier one compiled: Rommé's vector engine calls its legal mask),
then again in a second process that finds the cache.

    python benchmarks/bench_compile.py [--parts gin.vector,romme.legal]

Nothing is compiled when numba is missing or switched off (``RUMMY_ENV_NO_NUMBA=1``):
every part then reports the Python code in use.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine  # noqa: E402

# (name, module, attribute): every ``Compiled`` of the package, in an order where what a
# part calls comes first (tests/test_benchmarks.py checks that none is missing)
PARTS = (
    ("core.melds", "rummy_env.core.melds", "KERNELS"),
    ("gin.encoding", "rummy_env.gin.encoding", "_encode_flat"),
    ("gin.vector", "rummy_env.gin.vector", "COMPILED_ENGINE"),
    ("gin.heuristic", "rummy_env.agents.gin.heuristic_terms", "KERNELS"),
    ("basic.encoding", "rummy_env.basic.encoding", "_encode_flat"),
    ("basic.vector", "rummy_env.basic.vector", "COMPILED_ENGINE"),
    ("basic.heuristic", "rummy_env.agents.basic.heuristic_vector", "KERNELS"),
    ("romme.melds", "rummy_env.romme.melds", "KERNELS"),
    ("romme.legal", "rummy_env.romme.game", "LEGAL_KERNEL"),
    ("romme.encoding", "rummy_env.romme.encoding", "_flat"),
    ("romme.vector", "rummy_env.romme.vector", "COMPILED_ENGINE"),
    ("romme.heuristic", "rummy_env.agents.romme.heuristic_vector", "HEURISTIC_KERNEL"),
)

# run in each process: every part's first use, timed, as JSON lines (name, seconds, compiled or not)
CHILD = """
import importlib, importlib.util, json, sys, time
import rummy_env  # the imports are not timed (the package, numba where installed)
if importlib.util.find_spec("numba"):
    import numba
for name, module, attribute in json.loads(sys.argv[1]):
    start = time.perf_counter()
    got = getattr(importlib.import_module(module), attribute).get()
    print(json.dumps([name, time.perf_counter() - start, got is not None]), flush=True)
"""


def first_uses(parts: list[tuple[str, str, str]], cache: str) -> list[tuple[str, float, bool]]:
    """Each part's first use in a fresh process whose numba cache is ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(parts)], env=env, capture_output=True, text=True,
                         timeout=1800)
    if out.returncode != 0:
        sys.exit(f"the parts' first use failed:\n{out.stderr[-3000:]}")
    return [tuple(json.loads(line)) for line in out.stdout.splitlines() if line.startswith("[")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--parts", default="", help="comma-separated names of PARTS (default: all), run in PARTS order")
    args = ap.parse_args()
    names = [name for name, _, _ in PARTS]
    wanted = [x for x in args.parts.split(",") if x]
    unknown = [x for x in wanted if x not in names]
    if unknown:
        sys.exit(f"--parts: unknown part(s) {', '.join(unknown)}; the parts are {', '.join(names)}")
    parts = [p for p in PARTS if not wanted or p[0] in wanted]
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as cache:
        cold = first_uses(parts, cache)
        warm = first_uses(parts, cache)
    print(f"{'part':16} {'first use, s':>13} {'cached, s':>10}")
    for (name, first, compiled), (_, again, _) in zip(cold, warm):
        print(f"{name:16} {first:13.1f} {again:10.1f}" + ("" if compiled else "  (the Python code: not compiled)"))
    print(f"{'all':16} {sum(x[1] for x in cold):13.1f} {sum(x[1] for x in warm):10.1f}")


if __name__ == "__main__":
    main()
