"""Before/after in one run: a benchmark script of this checkout against the same script
at an earlier commit, run alternately, with the ratio of every rate they print.

Why: this machine's speed drifts by tens of percent between minutes, so a figure from
an earlier day says little about a change; two versions measured in alternating rounds
of the same run do. The earlier commit is checked out into a temporary git worktree
(removed afterwards) and run with its own code on ``PYTHONPATH``; both versions must
print lines with a rate (``12,345 steps/s``, ``env steps/s``, ``hands/s``, ``moves/s`` or ``encodes/s``), which are
matched by the text before the rate.

    python benchmarks/compare.py --base ea712cd [--rounds 2] bench_rummy.py --seconds 2 --repeats 1

Each rate is the best of its rounds, for both versions alike.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine  # noqa: E402

RATE = re.compile(r"^(?P<label>.*?)\s+(?P<value>[\d,]+(?:\.\d+)?)\s+(?P<unit>(?:env )?steps/s|hands/s|moves/s|encodes/s)")


def rates(output: str) -> dict[str, tuple[float, str]]:
    """{label: (rate, unit)} of every line of ``output`` that prints a rate."""
    out = {}
    for line in output.splitlines():
        m = RATE.match(line.strip())
        if m:
            out[m["label"].strip()] = (float(m["value"].replace(",", "")), m["unit"])
    return out


def run(tree: Path, script: str, args: list[str]) -> str:
    """The output of ``benchmarks/<script>`` of ``tree``, run with ``tree``'s code."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, str(tree / "benchmarks" / script), *args], cwd=tree, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{script} failed in {tree}:\n{proc.stderr.strip()}")
    return proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="the earlier commit (any git revision)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds; each rate is the best of its rounds")
    ap.add_argument("script", help="a script of benchmarks/, e.g. bench_env.py")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    a = ap.parse_args()
    if not (ROOT / "benchmarks" / a.script).is_file():
        raise SystemExit(f"no benchmark script benchmarks/{a.script}")
    if a.rounds < 1:
        raise SystemExit(f"--rounds must be at least 1, got {a.rounds}")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", a.base], capture_output=True, text=True)
    if commit.returncode != 0:
        raise SystemExit(f"--base {a.base!r} is not a commit of this repository")
    print(f"machine: {machine()}")
    print(f"{a.script} {' '.join(a.args)}: {commit.stdout.strip()} (before) against this checkout (after), "
          f"{a.rounds} alternating round(s)")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), a.base], check=True)
        try:
            best: dict[str, dict[str, tuple[float, str]]] = {"before": {}, "after": {}}
            for _ in range(a.rounds):
                for name, tree in (("before", base), ("after", ROOT)):
                    for label, (value, unit) in rates(run(tree, a.script, a.args)).items():
                        if value > best[name].get(label, (-1.0, unit))[0]:
                            best[name][label] = (value, unit)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    width = max(map(len, best["after"] | best["before"]), default=10)
    print(f"{'':{width}}  {'before':>12}  {'after':>12}  after/before")
    for label in best["after"] | best["before"]:
        before, after = best["before"].get(label), best["after"].get(label)
        unit = (after or before)[1]
        ratio = f"{after[0] / before[0]:.2f}x" if before and after and before[0] else "-"
        fmt = lambda v: f"{v[0]:>12,.0f}" if v else f"{'-':>12}"  # noqa: E731
        print(f"{label:{width}}  {fmt(before)}  {fmt(after)}  {ratio}  ({unit})")


if __name__ == "__main__":
    main()
