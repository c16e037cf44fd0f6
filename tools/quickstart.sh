#!/usr/bin/env bash
# One command from a fresh clone to the T3 reproduction: installs the Debian packages
# (tools/bootstrap.sh), configures build/ (Release) and builds only the t3sim CLI (the tests are
# built by tools/test.sh), then runs the main job, `t3sim reproduce`, which writes
# results/t3-paper/ (summary.json, report.md, CSV, PNG), and prints the fidelity check.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/bootstrap.sh
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build -j"$(nproc)" --target t3sim
build/tools/t3sim reproduce "$@"
/usr/bin/python3 validation/t3-paper/check.py results/t3-paper/summary.json || true
