#!/usr/bin/env bash
# A sweep killed mid-run (SIGKILL: no chance to clean up; SIGINT/SIGTERM: its handlers) and then
# resumed must end byte-identical to an uninterrupted run: nothing already written is lost, no
# row is torn or duplicated. Where the kill lands varies from run to run; the assertion does not
# depend on it (a kill after the last point just means the resume has nothing left to do).
# Usage: tests/integration/sweep_kill_test.sh PATH/TO/t3sim
set -euo pipefail

T3SIM=${1:?usage: sweep_kill_test.sh PATH/TO/t3sim}
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "sweep_kill_test: FAIL: $*" >&2
  exit 1
}

# 72 points of about 20-50 ms each: long enough to be interrupted part-way.
cat >"$WORK/spec.json" <<JSON
{
  "kind": "sweep",
  "name": "kill-test",
  "description": "sweep_kill_test.sh: MT-NLG on t3-ring-8, 72 points",
  "base": {"system": "$SRC_DIR/configs/systems/t3-ring-8.json", "model": "mt-nlg",
           "sublayer": "fc2", "mode": "sequential", "tokens": 2048},
  "axes": [
    {"path": "hbm.bandwidth", "values": ["1 TB/s", "2 TB/s", "3.35 TB/s"]},
    {"path": "fabric.link.bandwidth", "values": ["75 GB/s", "150 GB/s", "225 GB/s", "450 GB/s"]},
    {"path": "sublayer", "values": ["fc2", "op"]},
    {"path": "mode", "values": ["sequential", "t3", "t3-mca"]}
  ]
}
JSON

for ext in csv jsonl; do
  "$T3SIM" sweep "$WORK/spec.json" --out "$WORK/ref.$ext" --jobs 2 >/dev/null 2>&1 ||
    fail "reference sweep failed ($ext)"
done
[[ $(wc -l <"$WORK/ref.csv") -eq 73 ]] || fail "reference has $(wc -l <"$WORK/ref.csv") lines, not 73"

for sig in KILL INT TERM; do
  for ext in csv jsonl; do
    out="$WORK/cut_$sig.$ext"
    (timeout -s "$sig" 0.6 "$T3SIM" sweep "$WORK/spec.json" --out "$out" --jobs 2 \
      >/dev/null 2>&1 || true) 2>/dev/null
    rows=0
    if [[ -f $out ]]; then
      rows=$(wc -l <"$out")
      # Every line that is there is whole (ends with a newline) - no torn row after SIGKILL too.
      [[ -z $(tail -c 1 "$out") ]] || fail "SIG$sig left a torn last line in $out"
    fi
    "$T3SIM" sweep "$WORK/spec.json" --out "$out" --jobs 1 --resume >/dev/null 2>&1 ||
      fail "resume after SIG$sig failed ($ext)"
    cmp -s "$out" "$WORK/ref.$ext" ||
      fail "resume after SIG$sig ($ext, $rows lines kept) differs from the uninterrupted run"
    echo "sweep_kill_test: SIG$sig $ext: $rows lines survived the kill; resume matches"
  done
done
echo "sweep_kill_test: OK"
