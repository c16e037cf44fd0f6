#!/usr/bin/env bash
# One command from a fresh clone to the T3 reproduction: installs the Debian packages
# (tools/bootstrap.sh), configures build/ (Release) and builds only the t3sim CLI (the tests are
# built by tools/test.sh), then runs the main job, `t3sim reproduce`, which writes
# results/t3-paper/ (summary.json, report.md, CSV, PNG), and prints the fidelity check.
# The libraries compile as unity batches (16 sources per compiler run: about 3x less CPU on 2
# cores, byte-identical results) and without the profile-guided hot path (tools/hot_path.cmake),
# which would compile its files twice more and run a training step; CI builds this configuration
# too, so a name clash between two sources of a library fails there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/bootstrap.sh
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 -DT3SIM_HOT_PATH=OFF >/dev/null
fi
cmake --build build -j"$(nproc)" --target t3sim
build/tools/t3sim reproduce "$@"
/usr/bin/python3 validation/t3-paper/check.py results/t3-paper/summary.json || true
