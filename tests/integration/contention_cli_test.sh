#!/usr/bin/env bash
# CLI check of the contention twin and the GEMM co-runner options: `t3sim contention` writes
# contention_bench's columns (validation/cuda/contention_bench.cu) with one row per reduction size,
# the GEMM is no faster with the reduction than alone, and the reduction no faster with the GEMM;
# bad --red-blocks exits 2 and writes nothing; `t3sim gemm --corunner copy` reports the copy's
# bandwidth and, on a system with a power model, a clock that differs from the one without it.
# Usage: tests/integration/contention_cli_test.sh PATH/TO/t3sim
set -euo pipefail
t3sim=${1:?usage: contention_cli_test.sh PATH_TO_T3SIM}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "contention_cli_test: FAIL: $*" >&2; exit 1; }

"$t3sim" contention --system h200 --m 2048 --n 2048 --k 2048 --dtype bf16 --red-bytes "8 MiB" \
  --red-blocks 0 8 --out "$tmp/c.csv"
want="red_blocks,red_sms,m,n,k,dtype,red_bytes,gemm_alone_us,red_alone_us,gemm_together_us,red_together_us,together_us,gemm_slowdown,red_slowdown,speedup,ideal_speedup,gemm_alone_sm_mhz,red_alone_sm_mhz,together_sm_mhz"
header=$(grep -v '^#' "$tmp/c.csv" | head -1)
[[ $header == "$want" ]] || fail "header is '$header'"
[[ $(grep -vc '^#' "$tmp/c.csv") -eq 3 ]] || fail "expected 2 rows"
row=$(grep '^8,' "$tmp/c.csv") || fail "no row for 8 blocks"
IFS=, read -r -a f <<<"$row"
awk -v g="${f[12]}" -v r="${f[13]}" -v ra="${f[8]}" 'BEGIN { exit !(g >= 1 && r >= 1 && ra > 0) }' ||
  fail "slowdowns below 1 or no reduction time: $row"

set +e
"$t3sim" contention --system h200 --red-blocks 132 --out "$tmp/bad.csv" 2>"$tmp/err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "--red-blocks 132 exited $rc"
[[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "error is not one line"
[[ ! -e $tmp/bad.csv ]] || fail "a refused run wrote its CSV"

"$t3sim" gemm --system h200 -m 4096 -n 4096 -k 4096 --json >"$tmp/alone.json"
"$t3sim" gemm --system h200 -m 4096 -n 4096 -k 4096 --held-cus 32 --corunner copy --json \
  >"$tmp/copy.json"
grep -q '"corunner_gbps"' "$tmp/copy.json" || fail "no corunner_gbps"
clock() { grep '"sm_clock_mhz"' "$1" | tr -dc '0-9.'; }
[[ $(clock "$tmp/alone.json") != "$(clock "$tmp/copy.json")" ]] ||
  fail "the power model's clock ignores the co-runner"
echo "contention_cli_test: ok"
