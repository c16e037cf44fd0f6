#!/usr/bin/env bash
# CLI check of multi-rank replay and the streamed trace readers. ASTRA-sim's 8-rank 1 MiB
# all-reduce (traces/samples/chakra/) imported one trace per rank (`import-chakra --per-rank`)
# replays as one run across dgx-a100's 8 GPUs in the single-program replay's time, with no rank
# waiting; a rank that starts 50 us late makes every other rank wait exactly 50 us; ranks whose
# collectives differ exit 2 with one line and write no timeline. `check` streams a timeline t3sim
# wrote and refuses one whose out-of-order slices partially overlap (simulated time: exact).
# Usage: tests/integration/trace_ranks_cli_test.sh PATH/TO/t3sim
set -euo pipefail

T3SIM=${1:?usage: trace_ranks_cli_test.sh PATH/TO/t3sim}
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ET="$SRC_DIR/traces/samples/chakra/all_reduce_8npus_1MB/all_reduce"

fail() {
  echo "trace_ranks_cli_test: FAIL: $*" >&2
  exit 1
}

"$T3SIM" trace import-chakra "$ET" -o "$WORK/ar.json" >/dev/null
"$T3SIM" trace import-chakra "$ET" --per-rank -o "$WORK/r.json" >"$WORK/import.out"
grep -q '^wrote 8 rank traces' "$WORK/import.out" || fail "no per-rank import: $(cat "$WORK/import.out")"
RANKS=()
for r in 0 1 2 3 4 5 6 7; do RANKS+=("$WORK/r.$r.json"); done

single=$("$T3SIM" replay "$WORK/ar.json" --system dgx-a100 --mode sequential --json |
  /usr/bin/python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["total_us"])')
"$T3SIM" replay "${RANKS[@]}" --system dgx-a100 --mode sequential --json \
  --trace-out "$WORK/ranks_timeline.json" >"$WORK/ranks.json"
/usr/bin/python3 - "$WORK/ranks.json" "$single" <<'PY' || fail "multi-rank replay"
import json, sys
m = json.load(open(sys.argv[1]))
single = float(sys.argv[2])
assert len(m["ranks"]) == 8 and m["collectives"] == 1, m
for k in m["ranks"]:
    assert abs(k["total_us"] - single) < 1e-3, (k["total_us"], single)
    assert k["wait_us"] == 0, k
PY
"$T3SIM" check "$WORK/ranks_timeline.json" >/dev/null || fail "check of the multi-rank timeline"

# --rank R: that rank's trace alone, as the single-program replay.
one=$("$T3SIM" replay "${RANKS[@]}" --rank 5 --system dgx-a100 --mode sequential --json |
  /usr/bin/python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["total_us"])')
[[ $one == "$single" ]] || fail "--rank 5: $one us, want $single"

# Rank 2 computes 50 us before the all-reduce: every other rank waits 50 us in it.
for r in 0 1 2 3 4 5 6 7; do
  us=$([[ $r -eq 2 ]] && echo 50 || echo 0)
  cat >"$WORK/s.$r.json" <<JSON
{"version": 1, "metadata": {"tp": 8}, "ops": [
 {"id": "c", "kind": "fixed", "duration_us": $us, "stream": 0},
 {"id": "ar", "kind": "all_reduce", "bytes": 1048576, "dtype": "fp32", "stream": 1, "deps": ["c"]}]}
JSON
done
"$T3SIM" replay "$WORK"/s.{0..7}.json --system dgx-a100 --mode sequential >"$WORK/s.out"
grep -q '(slowest: rank 2)' "$WORK/s.out" || fail "no straggler: $(cat "$WORK/s.out")"
grep -Eq '^0 +[0-9.]+ +0\.0 +[0-9.]+ +50\.0 ' "$WORK/s.out" || fail "rank 0 waits: $(cat "$WORK/s.out")"

# Ranks whose collectives differ: exit 2, one line, no timeline.
sed 's/all_reduce/all_gather/' "$WORK/s.0.json" >"$WORK/s.3.json"
rc=0
"$T3SIM" replay "$WORK"/s.{0..7}.json --system dgx-a100 --mode sequential \
  --trace-out "$WORK/bad_timeline.json" >/dev/null 2>"$WORK/err" || rc=$?
[[ $rc -eq 2 ]] || fail "mismatched collectives: exit $rc"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "not one line: $(cat "$WORK/err")"
grep -q 's.3.json: /ops/1: rank 3: op' "$WORK/err" || fail "error names no rank: $(cat "$WORK/err")"
[[ ! -e $WORK/bad_timeline.json ]] || fail "partial timeline left behind"

# check streams timelines: one with overlapping slices out of order is refused in one line.
rc=0
"$T3SIM" check "$SRC_DIR/tests/fixtures/traces/timeline_unsorted_overlap.json" >/dev/null \
  2>"$WORK/err" || rc=$?
[[ $rc -eq 2 ]] || fail "overlap: exit $rc"
grep -q "/traceEvents: timeline: pid 0 tid 1: slice 'b' partially overlaps 'a'" "$WORK/err" ||
  fail "overlap message: $(cat "$WORK/err")"
echo "trace_ranks_cli_test: ok"
