#!/usr/bin/env bash
# Why: the benchmarks compare us against two peer implementations, OpenSpiel's
# gin_rummy (C++ via pybind11) and PettingZoo 1.24.3's gin_rummy_v4 (rlcard).
# Their packages stay out of the project's own environment: they go into one
# virtualenv under .peers/ (git-ignored).  One venv is enough: pettingzoo[classic]
# pulls shimmy[openspiel] -> open-spiel anyway, and rlcard 1.0.5's gin rummy runs
# fine on numpy 2 (no numpy pin needed).  Nothing here installs torch.
# Idempotent: a venv whose imports already work is left alone.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.peers/venv"
PY="${PYTHON:-python3.11}"
CHECK='import pyspiel; pyspiel.load_game("gin_rummy"); from pettingzoo.classic import gin_rummy_v4'

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "$CHECK" >/dev/null 2>&1; then
  echo "[setup_peers] $VENV: already installed" >&2
else
  t0=$SECONDS
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  # open-spiel: latest with a cp311 x86_64 wheel.  rlcard 1.0.5 and chess 1.9.4
  # exist only as sdists (pure Python), so only the compiled ones are wheel-only.
  "$VENV/bin/python" -m pip install -q --prefer-binary \
      --only-binary=numpy,scipy,open-spiel,pygame \
      "open-spiel==2.0.2" "pettingzoo[classic]==1.24.3" 2>&1 \
    | grep -v '^WARNING: Location' >&2 || true
  "$VENV/bin/python" -c "$CHECK"
  echo "[setup_peers] installed in $((SECONDS - t0))s" >&2
fi

echo "OPENSPIEL_PYTHON=$VENV/bin/python        # benchmarks/peers/opsp_solver.py, opsp_env.py"
echo "PZ_GIN_RUMMY_V4_PYTHON=$VENV/bin/python  # benchmarks/peers/pz_gin_rummy_v4.py"
