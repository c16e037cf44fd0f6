#!/usr/bin/env bash
# CLI check of `t3sim trace` and `t3sim replay`: a generated and an imported trace replay with
# per-op times (text and JSON); a gzip-compressed profile (.json.gz) imports like the plain one;
# bad input (unknown model, bad TP, malformed Kineto file, malformed trace, TP mismatch) exits 2
# and leaves no output file behind.
# Usage: tests/integration/trace_cli_test.sh PATH/TO/t3sim
set -euo pipefail

T3SIM=${1:?usage: trace_cli_test.sh PATH/TO/t3sim}
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "trace_cli_test: FAIL: $*" >&2
  exit 1
}

# expect_exit2 OUTPUT_FILE COMMAND...: the command exits 2 and OUTPUT_FILE does not exist.
expect_exit2() {
  local out=$1
  shift
  local rc=0
  "$@" >/dev/null 2>"$WORK/err" || rc=$?
  [[ $rc -eq 2 ]] || fail "exit $rc (want 2): $*"
  [[ ! -e $out ]] || fail "partial output $out left by: $*"
  compgen -G "$out.tmp.*" >/dev/null && fail "temp file left by: $*"
  return 0
}

"$T3SIM" trace gen --model mega-gpt2 --tp 8 --tokens 1024 -o "$WORK/layer.json" >/dev/null
"$T3SIM" replay "$WORK/layer.json" --system t3-ring-8 --mode t3-mca >"$WORK/table.txt"
grep -q '^L0.fwd.fc2.all_reduce .*fused' "$WORK/table.txt" || fail "no fused fc2 pair in the table"
grep -q '^total ' "$WORK/table.txt" || fail "no total line"

"$T3SIM" trace import-kineto "$SRC_DIR/traces/samples/kineto_tp_sublayer.json" \
  -o "$WORK/kineto.json" >/dev/null
"$T3SIM" replay "$WORK/kineto.json" --system t3-ring-8 --mode sequential --json >"$WORK/k.json"
python3 - "$WORK/k.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["ops"]) == 3 and r["mode"] == "sequential" and r["system"] == "t3-ring-8", r
# The residual add is a memory op simulated from its bytes, not its measured 71.8 us.
assert r["ops"][2]["duration_us"] > 0 and r["total_us"] > 0, r
PY

# A real profile excerpt with a CUDA-graph kernel and all-to-all kernels: lenient import warns on
# stderr about the graph kernel, simulates the all-to-alls and prints the summary; --strict exits 2
# and writes nothing.
fx="$SRC_DIR/tests/models/workload/kineto_data/hta_cuda_graph.json"
"$T3SIM" trace import-kineto "$fx" -o "$WORK/graph.json" >"$WORK/graph.out" 2>"$WORK/graph.err"
grep -q '^warning: .*CUDA graph' "$WORK/graph.err" || fail "no CUDA-graph warning: $(cat "$WORK/graph.err")"
grep -q 'simulated [1-9][0-9.]* %' "$WORK/graph.out" || fail "no import summary: $(cat "$WORK/graph.out")"
grep -q '"kind": *"all_to_all"' "$WORK/graph.json" || fail "all-to-all not imported"
gzip -c "$fx" >"$WORK/graph.json.gz"
"$T3SIM" trace import-kineto "$WORK/graph.json.gz" -o "$WORK/graph-gz.json" >/dev/null 2>&1
cmp -s <(grep -v '"description"' "$WORK/graph.json") <(grep -v '"description"' "$WORK/graph-gz.json") ||
  fail "the .json.gz import differs from the plain one"
head -c 200 "$WORK/graph.json.gz" >"$WORK/cut.json.gz"
expect_exit2 "$WORK/cut.json" "$T3SIM" trace import-kineto "$WORK/cut.json.gz" -o "$WORK/cut.json"
grep -q 'gzip' "$WORK/err" || fail "truncated gzip error: $(cat "$WORK/err")"
expect_exit2 "$WORK/graph-strict.json" "$T3SIM" trace import-kineto "$fx" -o "$WORK/graph-strict.json" --strict

expect_exit2 "$WORK/bad1.json" "$T3SIM" trace gen --model no-such-model --tp 8 -o "$WORK/bad1.json"
expect_exit2 "$WORK/bad2.json" "$T3SIM" trace gen --model mega-gpt2 --tp 7 -o "$WORK/bad2.json"
echo '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1}]}' >"$WORK/badk.json"
expect_exit2 "$WORK/bad3.json" "$T3SIM" trace import-kineto "$WORK/badk.json" -o "$WORK/bad3.json"
echo '{"version": 1, "ops": [{"id": "a", "kind": "gemm", "stream": 0}]}' >"$WORK/badtrace.json"
expect_exit2 "$WORK/none" "$T3SIM" replay "$WORK/badtrace.json" --system t3-ring-8 --mode t3
grep -q '/ops/0' "$WORK/err" || fail "malformed trace error names no op pointer: $(cat "$WORK/err")"
expect_exit2 "$WORK/none" "$T3SIM" replay "$WORK/layer.json" --system t3-ring-16 --mode t3
grep -q -- '--set gpus=8' "$WORK/err" || fail "TP mismatch does not suggest --set gpus=8"

echo "trace_cli_test: OK"
