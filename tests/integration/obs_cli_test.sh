#!/usr/bin/env bash
# CLI check of what researchers look at: `--trace-out` timelines from sublayer, run, replay and
# nccl-tests pass `t3sim check` (the structural timeline check), a composed mode refuses one and a
# broken timeline fails the check; `t3sim modes`, `describe systems`, `describe SYSTEM` and
# `describe run --json` (the run format's JSON Schema); `check` on workload traces and Kineto
# profiles; --set adding a declared key; a sweep axis that changes nothing is warned about, naming
# the NVSwitch port; no progress line when stderr is not a terminal.
# Usage: tests/integration/obs_cli_test.sh PATH/TO/t3sim
set -euo pipefail
t3sim=${1:?usage: obs_cli_test.sh PATH_TO_T3SIM}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "obs_cli_test: FAIL: $*" >&2; exit 1; }
expect_exit() {  # expect_exit CODE CMD...
  local want=$1; shift
  set +e
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  set -e
  [[ $got -eq $want ]] || { cat "$tmp/err" >&2; fail "'$*' exited $got, expected $want"; }
}
small=(--system t3-ring-8 --model mega-gpt2 --sublayer fc2 --tokens 1024)

# Timelines: written, structurally sound, named tracks.
expect_exit 0 "$t3sim" sublayer "${small[@]}" --mode t3-mca --trace-out "$tmp/t.json"
expect_exit 0 "$t3sim" check "$tmp/t.json"
for n in '"DMA engine 0"' '"tracker"' '"CUs 0-15"' '"HBM rs_update GB/s"' '"flow_in":true'; do
  grep -q "$n" "$tmp/t.json" || fail "timeline lacks $n"
done
expect_exit 0 "$t3sim" sublayer "${small[@]}" --mode t3 --trace "$tmp/old.json"
grep -q "deprecated" "$tmp/err" || fail "--trace gives no deprecation note"
[[ -s $tmp/old.json ]] || fail "--trace wrote nothing"
expect_exit 2 "$t3sim" sublayer "${small[@]}" --mode ideal --trace-out "$tmp/ideal.json"
grep -q "composed" "$tmp/err" || fail "composed-mode refusal does not say why"
[[ ! -e $tmp/ideal.json ]] || fail "a refused timeline was written"
expect_exit 2 "$t3sim" sublayer "${small[@]}" --mode t3 --trace-out "$tmp/x.json" --trace-bin "5 ps"

# A broken timeline fails the check with one line naming the pointer.
/usr/bin/python3 - "$tmp/t.json" "$tmp/bad.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
x = next(e for e in t["traceEvents"] if e["ph"] == "X" and e["dur"] >= 0.01)
y = dict(x, ts=x["ts"] + x["dur"] / 2, dur=x["dur"] * 2 + 1)
t["traceEvents"].append(y)
json.dump(t, open(sys.argv[2], "w"))
PY
expect_exit 2 "$t3sim" check "$tmp/bad.json"
grep -q "/traceEvents: timeline: .*partially overlaps" "$tmp/err" || fail "bad: $(cat "$tmp/err")"

# replay, run and nccl-tests timelines.
expect_exit 0 "$t3sim" replay "$root/traces/samples/tiny.json" --system t3-ring-8 --mode t3 \
  --trace-out "$tmp/replay.json"
expect_exit 0 "$t3sim" check "$tmp/replay.json"
grep -q '"stream 0"' "$tmp/replay.json" || fail "replay timeline has no stream track"
[[ ! -s $tmp/err ]] || fail "progress or noise on a non-terminal stderr: $(cat "$tmp/err")"
cat >"$tmp/run.json" <<'JSON'
{"kind": "run", "system": "t3-ring-8", "model": "mega-gpt2", "sublayer": "fc2", "mode": "t3",
 "tokens": 1024}
JSON
expect_exit 0 "$t3sim" check "$tmp/run.json"
expect_exit 0 "$t3sim" run "$tmp/run.json" --out "$tmp" --trace-out "$tmp/run_t.json"
expect_exit 0 "$t3sim" check "$tmp/run_t.json"
expect_exit 0 "$t3sim" nccl-tests all_reduce_perf --system dgx-a100 -b 1M -e 4M -f 2 \
  --trace-out "$tmp/nccl.json"
expect_exit 0 "$t3sim" check "$tmp/nccl.json"
grep -q '"AG step' "$tmp/nccl.json" || fail "nccl-tests timeline has no all-gather steps"

# check on workload traces and Kineto profiles.
expect_exit 0 "$t3sim" check "$root/traces/samples/tiny.json" \
  "$root/traces/samples/kineto_tp_sublayer.json"

# Self-description.
expect_exit 0 "$t3sim" modes
for m in sequential ideal ideal-nmc t3 t3-mca cu-split decomposed t3-direct; do
  grep -q "^$m (" "$tmp/out" || fail "modes does not explain $m"
done
grep -q "can finish before ideal" "$tmp/out" || fail "modes does not say why t3 can beat ideal"
expect_exit 2 "$t3sim" modes no-such-mode
expect_exit 0 "$t3sim" describe systems
grep -q "^dgx-h100 " "$tmp/out" || fail "describe systems does not list dgx-h100"
expect_exit 0 "$t3sim" describe dgx-h100
grep -q "switch port caps" "$tmp/out" || fail "describe dgx-h100 does not show the port cap"
grep -q "^hbm: " "$tmp/out" || fail "describe dgx-h100 shows no HBM"
expect_exit 0 "$t3sim" describe run --json
/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["type"]=="object"; assert set(s["required"])=={"kind","system","model","sublayer","mode"}, s["required"]; assert s["additionalProperties"] is False' "$tmp/out" \
  || fail "describe run --json is not the run format's schema"

# --set adds a key the models declare; an undeclared one is refused.
expect_exit 0 "$t3sim" sublayer "${small[@]}" --mode sequential --set 'fabric.local_latency=5 ns'
expect_exit 2 "$t3sim" sublayer "${small[@]}" --mode sequential --set 'fabric.local_latncy=5 ns'
grep -q "no such key 'local_latncy'" "$tmp/err" || fail "bad --set error: $(cat "$tmp/err")"

# A sweep axis that changes nothing: dgx-h100's NVSwitch port caps its links at 450 GB/s.
cat >"$tmp/inert.json" <<'JSON'
{"kind": "sweep", "name": "inert",
 "base": {"system": "dgx-h100", "model": "mega-gpt2", "sublayer": "fc2", "mode": "sequential",
          "tokens": 1024},
 "axes": [{"path": "fabric.link.bandwidth", "values": ["450 GB/s", "900 GB/s"]}]}
JSON
expect_exit 0 "$t3sim" sweep "$tmp/inert.json" --out "$tmp/inert.csv" --jobs 1
grep -q "axis 'fabric.link.bandwidth' changes no result" "$tmp/err" || fail "no inert-axis warning"
grep -q "fabric.switch.port_bandwidth = 450 GB/s" "$tmp/err" || fail "warning names no limit"
! grep -q '\[sweep\]' "$tmp/err" || fail "progress line on a non-terminal stderr"

echo "obs_cli_test: OK"
