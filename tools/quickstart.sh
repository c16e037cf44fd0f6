#!/usr/bin/env bash
# One command from a fresh clone to the T3 reproduction: installs the Debian packages
# (tools/bootstrap.sh), configures and builds t3sim (Release), then runs the main job,
# `t3sim reproduce`, which writes results/t3-paper/ (summary.json, report.md, CSV, PNG).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/bootstrap.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
build/tools/t3sim reproduce "$@"
/usr/bin/python3 validation/t3-paper/check.py results/t3-paper/summary.json || true
