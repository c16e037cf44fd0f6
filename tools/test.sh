#!/usr/bin/env bash
# Builds every target (the test suites included) and runs all tests: the README's test command.
# Configures build/ (Release) when it has not been configured yet; an existing configuration keeps
# its options (CI configures it with -DT3SIM_WERROR=ON first). Extra arguments go to ctest
# (e.g. `-L regression`, `-R Tracker`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
jobs=$(nproc)
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs" "$@"
