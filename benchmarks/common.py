"""Helpers shared by the benchmark scripts: machine description and peer subprocesses.

Peers run in their own virtualenv (``benchmarks/setup_peers.sh`` makes ``.peers/venv``)
because they pin packages our project does not use; each peer script prints one JSON
line, which we read back here, in the same run as our own measurement.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Optional

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PEER_PYTHON = ROOT / ".peers" / "venv" / "bin" / "python"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    info = Path("/proc/cpuinfo")
    if info.exists():  # Linux: the model name is more telling than the architecture
        names = [line.split(":", 1)[1].strip() for line in info.read_text().splitlines() if line.startswith("model name")]
        cpu = names[0] if names else cpu
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"


def peer_python(arg: Optional[str]) -> Optional[Path]:
    path = Path(arg) if arg else DEFAULT_PEER_PYTHON
    return path if path.exists() else None


def run_peer(python: Path, script: str, *args: str) -> Optional[dict]:
    """Run ``benchmarks/peers/<script>`` under the peer interpreter; its JSON line, or None."""
    cmd = [str(python), str(ROOT / "benchmarks" / "peers" / script), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"  peer {script} failed: {proc.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """n random hands of ``size`` cards (the same draw as the peer scripts for one seed)."""
    idx = np.argsort(rng.random((n, 52)), axis=1)[:, :size]
    return idx
