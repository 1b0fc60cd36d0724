"""Every game plays the same hands on several threads at once as one after another (a
server moves its tables in a pool of threads): ``tests/threads_check.py``, in a process of
its own, since the failure this guards against (two threads sharing a compiled kernel's
scratch) corrupted memory and killed the process."""

import subprocess
import sys
from pathlib import Path

from rummy_env.core.game import games

CHECK = Path(__file__).resolve().parent.parent / "threads_check.py"


def test_hands_on_several_threads_at_once_are_the_hands_played_alone():
    hands = 3
    out = subprocess.run([sys.executable, str(CHECK), str(hands)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"the check died (return code {out.returncode}): {out.stderr[-2000:]}"
    played = 4 * hands * len(games())
    assert f"{played} hands on 4 threads of {hands * len(games())}; unlike alone: []; errors: []" in out.stdout, out.stdout
