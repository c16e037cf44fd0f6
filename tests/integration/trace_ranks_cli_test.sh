#!/usr/bin/env bash
# CLI check of multi-rank replay and the streamed trace readers. ASTRA-sim's 8-rank 1 MiB
# all-reduce (traces/samples/chakra/) imported one trace per rank (`import-chakra --per-rank`)
# replays as one run across dgx-a100's 8 GPUs in the single-program replay's time, with no rank
# waiting; a rank that starts 50 us late makes every other rank wait exactly 50 us; ranks whose
# collectives differ exit 2 with one line and write no timeline. --rank names a recorded rank;
# Kineto profiles of 4 ranks with TP and DP groups replay the same from the traces
# `import-kineto -o` saved (process groups kept). `check` streams a timeline t3sim
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

# --rank names a recorded rank (the per-rank import's metadata.rank), in whatever order the files
# come; a rank not in the set is one line listing the ranks found.
one=$("$T3SIM" replay "$WORK"/r.{7,6,5,4,3,2,1,0}.json --rank 5 --system dgx-a100 --mode sequential \
  --json | /usr/bin/python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["total_us"])')
[[ $one == "$single" ]] || fail "--rank 5 of the reversed set: $one us, want $single"
rc=0
"$T3SIM" replay "${RANKS[@]}" --rank 9 --system dgx-a100 --mode sequential >/dev/null \
  2>"$WORK/err" || rc=$?
[[ $rc -ne 0 && $(wc -l <"$WORK/err") -eq 1 ]] || fail "--rank 9: exit $rc, $(cat "$WORK/err")"
grep -q 'no rank 9 among the 8 trace(s) given; ranks found: 0, 1, 2, 3, 4, 5, 6, 7' "$WORK/err" ||
  fail "--rank 9 lists no ranks: $(cat "$WORK/err")"

# Kineto profiles of 4 ranks (TP groups [0, 1], [2, 3] and a DP group [0, 2] / [1, 3]): replayed
# directly (given out of order) and as the traces `import-kineto -o` saved, the summary is the
# same; --rank picks a profile by its distributedInfo.rank.
/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
for rank in range(4):
    events, eid = [], 1
    def comm(ts, ranks):
        global eid
        args = {"Collective name": "allreduce", "Group size": len(ranks), "External id": eid,
                "Process Group Ranks": str(ranks), "In msg nelems": 65536,
                "Out msg nelems": 65536, "dtype": "Float"}
        events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1,
                       "tid": 1, "ts": ts, "dur": 1.0, "args": args})
        events.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                       "pid": 0, "tid": 20, "ts": ts, "dur": 20.0,
                       "args": {"External id": eid, "stream": 20}})
        eid += 1
    comm(0, [rank // 2 * 2, rank // 2 * 2 + 1])
    comm(100, [rank % 2, rank % 2 + 2])
    json.dump({"distributedInfo": {"rank": rank, "world_size": 4}, "traceEvents": events},
              open(f"{sys.argv[1]}/k{rank}.pt.trace.json", "w"))
PY
for r in 0 1 2 3; do
  "$T3SIM" trace import-kineto "$WORK/k$r.pt.trace.json" -o "$WORK/k$r.json" >/dev/null
done
"$T3SIM" replay "$WORK"/k{2,0,3,1}.pt.trace.json --system dgx-a100 --set gpus=4 \
  --mode sequential >"$WORK/k_profiles.out"
"$T3SIM" replay "$WORK"/k{3,1,0,2}.json --system dgx-a100 --set gpus=4 --mode sequential \
  >"$WORK/k_saved.out"
grep -q '4 collectives matched' "$WORK/k_profiles.out" || fail "profiles: $(cat "$WORK/k_profiles.out")"
diff <(sed 's/| [0-9.]* s$//' "$WORK/k_profiles.out") <(sed 's/| [0-9.]* s$//' "$WORK/k_saved.out") \
  >/dev/null || fail "saved traces replay differently: $(cat "$WORK/k_saved.out")"
rc=0
"$T3SIM" replay "$WORK"/k{0,1,2,3}.pt.trace.json --rank 4 --system dgx-a100 --set gpus=4 \
  --mode sequential >/dev/null 2>"$WORK/err" || rc=$?
[[ $rc -ne 0 ]] && grep -q 'ranks found: 0, 1, 2, 3' "$WORK/err" || fail "--rank 4: $(cat "$WORK/err")"

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
