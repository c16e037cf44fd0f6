#!/usr/bin/env bash
# Refreshes the golden values of the regression suite (tests/regression/golden.json) from what the
# shipped configs give now, and prints each value that changed (old, new, change in %). Run it after
# recalibrating a preset or changing a model on purpose, read the diff, and commit golden.json with
# the change. Builds only the suite's target.
# Usage: tools/update_regression.sh [BUILD_DIR]   (default: build; a configured CMake build folder)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
golden=$root/tests/regression/golden.json

if [[ ! -f $build/CMakeCache.txt ]]; then
  echo "update_regression: $build is not a configured build folder (cmake -S . -B $build)" >&2
  exit 2
fi
cmake --build "$build" --target t3sim_regression_tests -- -j2 >/dev/null

measured=$(mktemp)
trap 'rm -f "$measured"' EXIT
# The golden test fails when a value moved; it still writes what it measured.
T3SIM_REGRESSION_OUT=$measured "$build/tests/regression/t3sim_regression_tests" \
  --gtest_filter='Regression.GoldenValuesOfTheShippedConfigs' >/dev/null || true
if [[ ! -s $measured ]]; then
  echo "update_regression: the suite measured nothing (did it crash? run it by hand)" >&2
  exit 1
fi

python3 - "$golden" "$measured" <<'EOF'
import json
import pathlib
import sys

golden_path, measured_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
golden = json.loads(golden_path.read_text(encoding="utf-8")) if golden_path.exists() else {}
old = golden.get("values", {})
new = json.loads(measured_path.read_text(encoding="utf-8"))

rows = []
for name in sorted(set(old) | set(new)):
    a, b = old.get(name), new.get(name)
    if a is not None and b is not None and abs(b - a) <= 1e-6 * abs(a):
        continue
    change = f"{(b / a - 1) * 100:+.3f} %" if a and b is not None else ""
    rows.append((name, "-" if a is None else f"{a:.6g}", "-" if b is None else f"{b:.6g}", change))

if not rows:
    print(f"update_regression: {len(new)} golden values, none changed")
    sys.exit(0)
width = max(len(r[0]) for r in rows)
print(f"{'value':<{width}}  {'old':>12}  {'new':>12}  change")
for name, a, b, change in rows:
    print(f"{name:<{width}}  {a:>12}  {b:>12}  {change}")
golden.setdefault("description", "")
golden["values"] = {k: new[k] for k in sorted(new)}
golden_path.write_text(json.dumps(golden, indent=2) + "\n", encoding="utf-8")
print(f"update_regression: {len(rows)} changed; wrote {golden_path}")
EOF
