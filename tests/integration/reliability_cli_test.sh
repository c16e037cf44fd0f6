#!/usr/bin/env bash
# CLI reliability contract, end to end: every case exits 2 (never 1, an internal error, or 134, an
# abort) with one line naming the file or flag, and leaves special files as they were.
#  - output paths: a FIFO, a directory and /dev/full are refused, not replaced; a symbolic link is
#    followed (the link stays, its target gets the file);
#  - a sweep whose rows cannot be written (a file-size limit stands in for a full disk) stops
#    with the path and the fix, in CSV and JSON Lines, and --resume repairs the torn last row;
#  - an existing sweep output is refused without --resume or --force;
#  - reproduce exits 2 when its figure script fails (here a FIFO where a PNG goes);
#  - thread counts and integers out of range, stray arguments, duplicate JSON keys, numbers beyond
#    a double, a GEMM beyond the model, "gpus" unset, too few CUs, --out naming a file.
set -euo pipefail
t3sim=${1:?usage: reliability_cli_test.sh PATH_TO_T3SIM}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

fail() { echo "FAIL: $*"; cat "$tmp/err" 2>/dev/null; exit 1; }

# expect CODE TEXT CMD...: exit status CODE and, for CODE 2, one stderr line containing TEXT.
expect() {
  local want=$1 text=$2
  shift 2
  local got=0
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || got=$?
  [[ $got -eq $want ]] || fail "'$*' exited $got, expected $want"
  [[ $want -ne 2 ]] && return 0
  grep -qF -- "$text" "$tmp/err" || fail "'$*': message lacks '$text'"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "'$*': error is not one line"
}

tiny=$root/configs/sweeps/tiny.json
sub=(sublayer --system t3-ring-8 --model mega-gpt2 --sublayer fc2 --mode sequential --tokens 1024)

# ---- output paths --------------------------------------------------------------------------------
mkfifo fifo
mkdir folder real
expect 2 "fifo: /: is a FIFO" "$t3sim" trace gen --model t-nlg --tp 8 -o fifo
expect 2 "is a FIFO" "$t3sim" trace import-kineto "$root/traces/samples/kineto_tp_sublayer.json" \
  -o fifo
expect 2 "is a FIFO" "$t3sim" "${sub[@]}" --trace fifo
expect 2 "folder: /: is a directory" "$t3sim" sweep "$tiny" --out folder
[[ -p fifo && -d folder ]] || fail "a special file was replaced"
if [[ -c /dev/full ]]; then
  expect 2 "/dev/full: /: is a character device" "$t3sim" sweep "$tiny" --out /dev/full
  [[ -c /dev/full ]] || fail "/dev/full replaced"
fi
ln -s real/trace.json link.json
expect 0 "" "$t3sim" trace gen --model t-nlg --tp 8 -o link.json
[[ -L link.json && -s real/trace.json ]] || fail "the link was replaced instead of followed"
[[ -z $(find . -name '*.tmp.*') ]] || fail "temporary file left"

# ---- a row that cannot be written ------------------------------------------------------------------
long=$(printf 'x%.0s' {1..3000})
cat >wide.json <<EOF
{"kind": "sweep", "name": "wide",
 "base": {"system": "t3-ring-8", "model": "mega-gpt2", "sublayer": "fc2", "mode": "sequential",
          "tokens": 1024},
 "axes": [{"path": "description", "values": ["$long"]}]}
EOF
# Files may grow to 2 KiB: the header fits, the first 3 KB row does not (EFBIG, as ENOSPC would):
# the write stops part-way, leaving a torn last row. Exit 2 (no abort), in CSV and JSON Lines; a
# --resume once there is room repairs the file to exactly what an undisturbed run writes.
for ext in csv jsonl; do
  expect 2 "wide.$ext: /: cannot append the row of point 0" \
    bash -c 'trap "" XFSZ; ulimit -f 2; exec "$0" sweep wide.json --out "$1" --jobs 1' "$t3sim" \
    "wide.$ext"
  grep -qF -- "--resume" "$tmp/err" || fail "the message does not say how to go on ($ext)"
  [[ -n $(tail -c 1 "wide.$ext") ]] || fail "no torn last row to repair ($ext)"
  expect 0 "" "$t3sim" sweep wide.json --out "wide.$ext" --jobs 1 --resume
  expect 0 "" "$t3sim" sweep wide.json --out "fresh.$ext" --jobs 1
  cmp -s "wide.$ext" "fresh.$ext" || fail "--resume after a full disk differs from a fresh run ($ext)"
done

# An existing result file is neither continued nor replaced unless asked: exit 2, file untouched.
echo keep >old.csv
expect 2 "--out: 'old.csv' exists; rerun with --resume to continue that sweep, --force to replace" \
  "$t3sim" sweep "$tiny" --out old.csv
[[ $(cat old.csv) == keep ]] || fail "sweep overwrote an existing --out"
expect 2 "--resume keeps the rows of --out and --force replaces them" \
  "$t3sim" sweep "$tiny" --out old.csv --resume --force
expect 0 "" "$t3sim" sweep wide.json --out fresh.csv --jobs 1 --force
cmp -s wide.csv fresh.csv || fail "--force did not replace the file with the sweep's rows"

# ---- thread counts, integers, stray words ----------------------------------------------------------
expect 2 "'-1' for option '--jobs' is invalid: give an integer in [0, 256]" \
  "$t3sim" sweep "$tiny" --out s.csv --jobs -1
expect 2 "'100000' for option '--jobs'" "$t3sim" sweep "$tiny" --out s.csv --jobs 100000
expect 2 "'100000' for option '--jobs'" "$t3sim" reproduce --jobs 100000
expect 2 "'100000' for option '--threads' is invalid: give an integer in [1, 256]" \
  "$t3sim" validate --threads 100000
"$t3sim" sweep --help | grep -qF "1..256" || fail "sweep --help does not state the --jobs range"
"$t3sim" validate --help | grep -qF "1..256" || fail "validate --help does not state the range"
expect 2 "'-8' for option '--tp'" "$t3sim" "${sub[@]}" --tp -8
expect 2 "'8x' for option '--tp'" "$t3sim" "${sub[@]}" --tp 8x
expect 2 "unexpected argument 'extra'" "$t3sim" "${sub[@]}" extra
expect 2 "unexpected argument 'extra'" "$t3sim" sweep "$tiny" extra --out s.csv
[[ ! -e s.csv ]] || fail "partial output left"

# ---- bad input ---------------------------------------------------------------------------------------
echo '{"kind": "system", "name": "d", "gpus": 8, "gpus": 16}' >dup.json
expect 2 'dup.json: /gpus: duplicate key "gpus"' "$t3sim" check dup.json
grep -qF "remove the duplicate" "$tmp/err" || fail "no fix in the duplicate-key message"
echo '{"kind": "system", "name": "b", "gpus": 1e400}' >big.json
expect 2 "big.json: /gpus: number 1e400" "$t3sim" check big.json
cat >gemm.json <<'EOF'
{"version": 1, "metadata": {},
 "ops": [{"id": "g", "kind": "gemm", "shape": {"m": 549755813888, "n": 4096, "k": 4096},
          "dtype": "fp16", "stream": 0}]}
EOF
expect 2 "gemm.json: /ops/0/shape: a GEMM of M x N x K = 549755813888 x 4096 x 4096 is beyond" \
  "$t3sim" replay --trace gemm.json --system t3-ring-8 --mode sequential
expect 2 "/gpus" "$t3sim" "${sub[@]}" --set gpus=
expect 2 "/collectives/channels: collectives.channels is 16 but gpu.cus is 8" \
  "$t3sim" "${sub[@]}" --set gpu.cus=8
expect 2 "/collectives/executor" "$t3sim" "${sub[@]}" --set collectives.executor=dma
echo keep >afile
expect 2 "--out: 'afile' exists and is not a folder" "$t3sim" reproduce --out afile
[[ $(cat afile) == keep ]] || fail "--out file changed"
# ---- reproduce: a figure that cannot be written is an error, not exit 0 ------------------------------
# (plot_t3.py runs as a child; its own messages come first, t3sim's one line last.)
if /usr/bin/python3 -c 'import matplotlib, numpy' 2>/dev/null; then
  cat >exp.json <<'EOF'
{"kind": "experiment", "name": "tiny-repro", "system": "t3-ring-{tp}",
 "fig16": {"models": ["mega-gpt2"], "tp": [8], "sublayers": ["fc2", "op"],
           "modes": ["sequential", "ideal", "ideal-nmc", "t3", "t3-mca"]},
 "large_models": {"models": ["mega-gpt2"], "tp": [8], "sublayers": ["fc2"],
                  "modes": ["sequential", "t3", "t3-mca"]},
 "fig6": {"ar_cus": [8, 16]}, "fig17": {"model": "mega-gpt2", "tp": 8, "sublayer": "fc2"},
 "e2e": {"non_sliced_share": 0.42},
 "paper": {"fig16": {"t3": {"geomean": 20, "max": 39}},
           "data_movement": {"geomean_reduction_pct": 22}}}
EOF
  mkdir repro
  mkfifo repro/fig16.png
  got=0
  timeout 300 "$t3sim" reproduce --experiment exp.json --out repro --jobs 2 >"$tmp/out" \
    2>"$tmp/err" </dev/null || got=$?
  [[ $got -eq 2 ]] || fail "reproduce with a failing figure exited $got, expected 2"
  tail -n 1 "$tmp/err" | grep -qF "repro: /: figures not drawn: tools/plot_t3.py exited with status 1" ||
    fail "reproduce: no line naming the failed figures"
  [[ -p repro/fig16.png ]] || fail "reproduce replaced the FIFO fig16.png"
  [[ -s repro/summary.json && -s repro/run.json ]] || fail "reproduce: tables not written"
fi
echo "reliability_cli_test: ok"
