#!/usr/bin/env bash
# An output path that names an input of the same command is refused before any work: exit 2, one
# line naming the flag, and the input byte for byte as it was (trace gen/import-kineto/
# import-chakra -o and --summary-json, replay/sublayer/run/nccl-tests --trace-out, run --out,
# sweep --out even with --force, reproduce --out, calibrate -o/--hbm-out), also through "./", a
# symbolic or hard link, or a preset the system "extends". nccl-tests prints each distinct size
# once, refuses over 1000 of them, and refuses -b/-e that leave no size of a whole unit.
# Usage: tests/integration/output_input_test.sh PATH/TO/t3sim
set -euo pipefail
t3sim=${1:?usage: output_input_test.sh PATH_TO_T3SIM}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

fail() { echo "output_input_test: FAIL: $*" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }

# refused INPUT TEXT CMD...: exit 2, one stderr line containing TEXT, INPUT unchanged.
refused() {
  local input=$1 text=$2
  shift 2
  local before rc=0
  before=$(sha256sum <"$input")
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc, expected 2"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "'$*': error is not one line"
  grep -qF -- "$text" "$tmp/err" || fail "'$*': message lacks '$text'"
  [[ $(sha256sum <"$input") == "$before" ]] || fail "'$*' changed $input"
  [[ -z $(find . -name '*.tmp.*') ]] || fail "'$*' left a temporary file"
}

ok() { timeout 300 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || fail "'$*' failed"; }

msg="is an input"
cp -r "$root/configs" cfg
cp "$root/traces/samples/kineto_tp_sublayer.json" P.json
cp cfg/systems/t3-ring-8.json S.json
sub=(sublayer --model mega-gpt2 --sublayer fc2 --mode sequential --tokens 1024)

# ---- trace -------------------------------------------------------------------------------------
refused P.json "--output: 'P.json' is an input (the Kineto profile)" \
  "$t3sim" trace import-kineto P.json -o P.json
refused P.json "$msg" "$t3sim" trace import-kineto P.json -o ./P.json
refused P.json "--summary-json: 'P.json' $msg" \
  "$t3sim" trace import-kineto P.json -o new.json --summary-json P.json
[[ ! -e new.json ]] || fail "import-kineto wrote -o although --summary-json was refused"
refused P.json "--output and --summary-json name the same file" \
  "$t3sim" trace import-kineto P.json -o same.json --summary-json same.json
ln -s P.json sym.json
ln P.json hard.json
refused P.json "$msg" "$t3sim" trace import-kineto P.json -o sym.json
refused P.json "$msg" "$t3sim" trace import-kineto P.json -o hard.json
ok "$t3sim" trace import-kineto P.json -o T.json  # a distinct output still works
refused cfg/models/mega-gpt2.json "$msg (model 'mega-gpt2')" \
  env T3SIM_CONFIGS=cfg "$t3sim" trace gen --model mega-gpt2 --tp 8 -o cfg/models/mega-gpt2.json
if "$t3sim" trace import-chakra "$root/traces/samples/chakra/all_reduce_8npus_1MB/all_reduce" \
  -o chakra.json >/dev/null 2>&1; then
  cp "$root"/traces/samples/chakra/all_reduce_8npus_1MB/all_reduce.*.et .
  refused all_reduce.0.et "--output: 'all_reduce.0.et' $msg (a Chakra rank file)" \
    "$t3sim" trace import-chakra all_reduce.0.et -o all_reduce.0.et --ranks 8
  refused all_reduce.3.et "$msg" "$t3sim" trace import-chakra all_reduce -o all_reduce.3.et
  refused all_reduce.5.et "--summary-json: 'all_reduce.5.et' $msg" \
    "$t3sim" trace import-chakra all_reduce -o c.json --summary-json all_reduce.5.et
fi

# ---- simulating commands: --trace-out ----------------------------------------------------------
refused T.json "--trace-out: 'T.json' $msg (the trace to replay)" \
  "$t3sim" replay T.json --system t3-ring-8 --mode sequential --trace-out T.json
refused S.json "--trace-out: 'S.json' $msg (a file of --system)" \
  "$t3sim" "${sub[@]}" --system S.json --trace-out S.json
refused S.json "--trace: 'S.json' $msg" "$t3sim" "${sub[@]}" --system S.json --trace S.json
refused cfg/presets/gpus/a100-sxm.json "$msg (a file of --system)" env T3SIM_CONFIGS=cfg \
  "$t3sim" "${sub[@]}" --system dgx-a100 --trace-out cfg/presets/gpus/a100-sxm.json
refused cfg/models/mega-gpt2.json "$msg (model 'mega-gpt2')" env T3SIM_CONFIGS=cfg \
  "$t3sim" "${sub[@]}" --system t3-ring-8 --trace-out cfg/models/mega-gpt2.json
cat >run.json <<EOF
{"kind": "run", "system": "S.json", "model": "mega-gpt2", "sublayer": "fc2",
 "mode": "sequential", "tokens": 1024}
EOF
refused run.json "--trace-out: 'run.json' $msg" "$t3sim" run run.json --trace-out run.json
refused S.json "--trace-out: 'S.json' $msg" "$t3sim" run run.json --trace-out S.json
mkdir rd
cp run.json rd/stats.json
refused rd/stats.json "--out: 'rd/stats.json' $msg (the run document)" \
  "$t3sim" run rd/stats.json --out rd
refused S.json "--trace-out: 'S.json' $msg (a file of --system)" \
  "$t3sim" nccl-tests all_reduce_perf --system S.json -b 1M -e 1M --trace-out S.json
cp "$root/validation/collectives/a100_8gpu_allreduce.csv" C.csv
refused C.csv "--trace-out: 'C.csv' $msg (the --compare CSV)" \
  "$t3sim" nccl-tests all_reduce_perf --system dgx-a100 -b 1M -e 1M --compare C.csv \
  --trace-out C.csv

# ---- sweep, reproduce, calibrate -----------------------------------------------------------------
cp "$root/configs/sweeps/tiny.json" spec.json
refused spec.json "--out: 'spec.json' $msg (the sweep spec)" "$t3sim" sweep spec.json --out spec.json
refused spec.json "$msg" "$t3sim" sweep spec.json --out spec.json --force
refused spec.json "$msg" "$t3sim" sweep spec.json --out spec.json --resume
cp "$root/configs/experiments/t3-paper.json" exp.json
refused exp.json "--out: 'exp.json' $msg (the experiment file)" \
  "$t3sim" reproduce --experiment exp.json --out exp.json
cp "$root/configs/presets/gpus/h100-sxm.json" G.json
cp "$root/validation/gemm/h100_xla_bf16.csv" g.csv
refused g.csv "--out: 'g.csv' $msg (the --gemm CSV)" \
  "$t3sim" calibrate --preset G.json --gemm g.csv -o g.csv
refused G.json "--out: 'G.json' $msg (a file of --preset)" \
  "$t3sim" calibrate --preset G.json --gemm g.csv -o G.json
refused g.csv "--hbm-out: 'g.csv' $msg" \
  "$t3sim" calibrate --preset G.json --gemm g.csv -o new.json --hbm g.csv --hbm-out g.csv

# ---- nccl-tests sizes ----------------------------------------------------------------------------
# -f a hair above 1: each size that survives the rounding to whole elements is printed once.
ok "$t3sim" nccl-tests all_reduce_perf --system dgx-a100 -b 1K -e 2K -f 1.0000001
grep -v '^#' "$tmp/out" | awk '{print $1}' >sizes
[[ $(wc -l <sizes) -eq 257 ]] || fail "-b 1K -e 2K -f 1.0000001: $(wc -l <sizes) rows, want 257"
[[ -z $(sort sizes | uniq -d) ]] || fail "-f 1.0000001 printed a size twice"
sort -n -c sizes || fail "sizes out of order"
ok "$t3sim" nccl-tests reduce_scatter_perf --system dgx-a100 -b 1 -e 100 -i 7
[[ $(grep -v '^#' "$tmp/out" | awk '{printf "%s ", $1}') == "32 64 96 " ]] ||
  fail "-i 7 on reduce_scatter: $(grep -v '^#' "$tmp/out" | awk '{printf "%s ", $1}')"
expect2() {
  local text=$1 rc=0
  shift
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc, expected 2"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "'$*': error is not one line"
  grep -qF -- "$text" "$tmp/err" || fail "'$*': message lacks '$text'"
  [[ ! -s $tmp/out ]] || fail "'$*' printed a table"
}
expect2 "-f: over 1000 distinct sizes" \
  "$t3sim" nccl-tests all_reduce_perf --system dgx-a100 -b 1M -e 1G -f 1.0000001
expect2 "give a larger -f" \
  "$t3sim" nccl-tests all_reduce_perf --system dgx-a100 -b 1 -e 64 -f 1.0000000000000002
expect2 "-i: over 1000 distinct sizes" \
  "$t3sim" nccl-tests all_reduce_perf --system dgx-a100 -b 1 -e 1G -i 1
expect2 "-b/-e: every size from 1 to 4 B is under one 32 B unit" \
  "$t3sim" nccl-tests reduce_scatter_perf --system dgx-a100 -b 1 -e 4
grep -qF "the smallest size that runs is 32 B" "$tmp/err" || fail "no smallest size named"
expect2 "the smallest size that runs is 4 B" \
  "$t3sim" nccl-tests all_reduce_perf --system dgx-a100 -b 1 -e 3
echo "output_input_test: OK"
