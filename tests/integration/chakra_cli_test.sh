#!/usr/bin/env bash
# CLI check of `t3sim trace import-chakra`: ASTRA-sim's 8-rank 1 MiB all-reduce microbenchmark
# (traces/samples/chakra/) imports to one all-reduce, and its replay on dgx-a100 and dgx-h100 takes
# the time `t3sim nccl-tests all_reduce_perf -b 1M -e 1M` gives on the same system, within 2 %
# (simulated time: deterministic). ASTRA-sim's all-to-all, all-gather and reduce-scatter
# microbenchmarks and its custom send/recv ring all-reduce replay with a communication time within
# 15 % of nccl-tests' for the same kind and size on dgx-a100. Bad input (a truncated ET, a missing
# prefix, --strict on an unmodelled node, a JSON file) exits 2 with one line and leaves no output
# file behind.
# Usage: tests/integration/chakra_cli_test.sh PATH/TO/t3sim
set -euo pipefail

T3SIM=${1:?usage: chakra_cli_test.sh PATH/TO/t3sim}
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ET="$SRC_DIR/traces/samples/chakra/all_reduce_8npus_1MB"

fail() {
  echo "chakra_cli_test: FAIL: $*" >&2
  exit 1
}

# expect_exit2 OUTPUT_FILE COMMAND...: the command exits 2 with one line on stderr, and OUTPUT_FILE
# does not exist.
expect_exit2() {
  local out=$1
  shift
  local rc=0
  "$@" >/dev/null 2>"$WORK/err" || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc (want 2): $*"
  [[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "not one line: $(cat "$WORK/err")"
  [[ ! -e $out ]] || fail "partial output $out left by: $*"
  return 0
}

"$T3SIM" trace import-chakra "$ET/all_reduce" -o "$WORK/ar.json" >"$WORK/import.out"
grep -q 'from rank 0 of 8; simulated 1 of them; every rank runs the same program' \
  "$WORK/import.out" || fail "no import summary: $(cat "$WORK/import.out")"

for system in dgx-a100 dgx-h100; do
  "$T3SIM" replay "$WORK/ar.json" --system "$system" --mode sequential --json >"$WORK/replay.json"
  "$T3SIM" nccl-tests all_reduce_perf --system "$system" -b 1M -e 1M >"$WORK/nccl.txt"
  python3 - "$WORK/replay.json" "$WORK/nccl.txt" "$system" <<'PY'
import json, sys
replay = json.load(open(sys.argv[1]))
assert len(replay["ops"]) == 1 and replay["ops"][0]["kind"] == "all_reduce", replay
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert len(rows) == 1 and rows[0][0] == "1048576" and rows[0][2] == "float", rows
replayed, nccl = replay["total_us"], float(rows[0][5])
err = (replayed - nccl) / nccl
print(f"chakra_cli_test: {sys.argv[3]}: replayed {replayed:.2f} us, nccl-tests {nccl:.2f} us, "
      f"{100 * err:+.2f} %")
assert abs(err) <= 0.02, f"{sys.argv[3]}: replay {replayed} us vs nccl-tests {nccl} us"
PY
done

SAMPLES="$SRC_DIR/traces/samples/chakra"
for case in all_to_all_8npus_1MB/all_to_all:alltoall_perf \
  all_gather_8npus_1MB/all_gather:all_gather_perf \
  reduce_scatter_8npus_1MB/reduce_scatter:reduce_scatter_perf \
  custom_ring_allreduce_8npus_1MB/custom_allreduce:all_reduce_perf; do
  prefix=${case%%:*}
  test=${case##*:}
  "$T3SIM" trace import-chakra "$SAMPLES/$prefix" -o "$WORK/mb.json" >/dev/null
  "$T3SIM" replay "$WORK/mb.json" --system dgx-a100 --mode sequential --json >"$WORK/mb.replay"
  "$T3SIM" nccl-tests "$test" --system dgx-a100 -b 1M -e 1M >"$WORK/mb.nccl"
  python3 - "$WORK/mb.replay" "$WORK/mb.nccl" "$prefix" <<'PY'
import json, sys
replay = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert len(rows) == 1 and rows[0][0] == "1048576", rows
comm, nccl = replay["comm_us"], float(rows[0][5])
assert comm > 0 and replay["unsimulated_comm_ops"] == 0, replay
err = (comm - nccl) / nccl
print(f"chakra_cli_test: {sys.argv[3]}: communication {comm:.2f} us, nccl-tests {nccl:.2f} us, "
      f"{100 * err:+.2f} %")
assert abs(err) <= 0.15, f"{sys.argv[3]}: {comm} us vs nccl-tests {nccl} us"
PY
done

head -c 60 "$ET/all_reduce.0.et" >"$WORK/cut.0.et"
expect_exit2 "$WORK/bad1.json" "$T3SIM" trace import-chakra "$WORK/cut.0.et" -o "$WORK/bad1.json"
grep -q 'cut.0.et: /records/1: record at byte 8 .*truncated' "$WORK/err" ||
  fail "truncated ET error: $(cat "$WORK/err")"
expect_exit2 "$WORK/bad2.json" "$T3SIM" trace import-chakra "$WORK/none" -o "$WORK/bad2.json"
# A gather is a collective NCCL (and the library) lacks: a warning and a counted summary line, or
# under --strict an error.
python3 - "$ET/all_reduce.0.et" "$WORK/ga.0.et" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b"comm_typeH") + len(b"comm_typeH")
data[at] = 3  # comm_type ALL_REDUCE (0) -> GATHER (3), same length
open(sys.argv[2], "wb").write(data)
PY
"$T3SIM" trace import-chakra "$WORK/ga.0.et" -o "$WORK/ga.json" >"$WORK/ga.out" 2>"$WORK/ga.err"
grep -q '^warning: .*GATHER' "$WORK/ga.err" || fail "no gather warning: $(cat "$WORK/ga.err")"
grep -q '^communication not simulated: 1 ops' "$WORK/ga.out" ||
  fail "no count of communication not simulated: $(cat "$WORK/ga.out")"
expect_exit2 "$WORK/bad3.json" "$T3SIM" trace import-chakra "$WORK/ga.0.et" -o "$WORK/bad3.json" \
  --strict
# A PyTorch host trace (JSON) is named as such, with what to run, not as a truncated record.
echo '{"schema": "1.0.1", "pid": 1, "nodes": []}' >"$WORK/host.0.et"
expect_exit2 "$WORK/bad4.json" "$T3SIM" trace import-chakra "$WORK/host.0.et" -o "$WORK/bad4.json"
grep -q 'chakra_trace_link' "$WORK/err" || fail "host ET not recognised: $(cat "$WORK/err")"

echo "chakra_cli_test: OK"
