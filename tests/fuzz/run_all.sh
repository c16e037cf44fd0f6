#!/usr/bin/env bash
# Builds (if needed) and runs every t3sim libFuzzer target for DURATION_S seconds each, then prints
# one line per target: executions, executions/s, coverage (edges), corpus growth and findings
# (crash-, leak-, timeout-, oom- artifacts).
#
# usage: tests/fuzz/run_all.sh DURATION_S [TARGET...]   (DURATION_S 0: summarise the last run)
# env:   BUILD_DIR  build folder (default <repo>/build-fuzz, configured with `cmake --preset fuzz`)
#        PARALLEL   targets run at once (default 2)
#        JOBS       build jobs (default 2)
#        TIMEOUT_S  an input running longer is a finding (default 10: a hang, not a slow input)
#        FUZZ_ARGS  extra libFuzzer flags (e.g. "-fork=2 -ignore_crashes=1" to go on after a crash)
# Only the fuzz targets and the libraries they link are built. Each target first replays its past
# findings (tests/fuzz/regressions/<target>-*), then fuzzes a copy of the seeds of
# tests/fuzz/corpus/<target>/ in $BUILD_DIR/fuzz-corpus/<target>/, where new inputs go too (the
# repository is never written); findings go to $BUILD_DIR/fuzz-findings/<target>/ (emptied at the
# start of each run), logs to $BUILD_DIR/fuzz-logs/<target>.log. Exit status: 0 without findings,
# 1 with, 2 on a usage or build error. Reproduce a finding: $BUILD_DIR/tests/fuzz/<target> <file>.
set -euo pipefail

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
  sed -n '6,11p' "$0" | sed 's/^# //' >&2
  exit 2
fi
duration=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$repo/build-fuzz}
parallel=${PARALLEL:-2}
jobs=${JOBS:-2}
timeout_s=${TIMEOUT_S:-10}
all_targets=(fuzz_units fuzz_config fuzz_trace fuzz_kineto fuzz_sweep fuzz_simulate fuzz_chakra
  fuzz_roundtrip)
targets=("$@")
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  if [[ ! -d $here/corpus/${t#fuzz_} ]]; then
    echo "unknown target '$t' (targets: ${all_targets[*]})" >&2
    exit 2
  fi
done

if ((duration > 0)); then
  if [[ ! -f $build/CMakeCache.txt ]]; then
    (cd "$repo" && cmake --preset fuzz -B "$build") || exit 2
  fi
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" || exit 2
fi

# Per-target libFuzzer settings: the longest input worth trying and the dictionary. JSON inputs
# may reach 64 KiB (long "extends" chains, many ops, wide sweeps); fuzz_simulate keeps its inputs
# small (it skips large work anyway) and units strings are short.
max_len() {
  case $1 in
    fuzz_units) echo 256 ;;
    fuzz_simulate) echo 16384 ;;
    *) echo 65536 ;;
  esac
}
# Binary Chakra record streams get no dictionary.
dict() {
  case $1 in
    fuzz_units) echo "-dict=$here/units.dict" ;;
    fuzz_chakra) ;;
    *) echo "-dict=$here/json.dict" ;;
  esac
}

run_one() {
  local t=$1 bin=$build/tests/fuzz/$1
  local corpus=$build/fuzz-corpus/$t findings=$build/fuzz-findings/$t
  rm -rf "$findings"
  mkdir -p "$corpus" "$findings" "$build/fuzz-logs"
  rm -f "$build/fuzz-logs/$t.replay.log"
  cp -n "$here/corpus/${t#fuzz_}"/* "$corpus"/
  # Earlier findings first: each must stay fixed (a failure here is a finding like any other).
  local old
  for old in "$here/regressions/$t"-*; do
    [[ -f $old ]] || continue
    if ! (cd "$findings" && "$bin" "$old") >>"$build/fuzz-logs/$t.replay.log" 2>&1; then
      cp "$old" "$findings/crash-regression-$(basename "$old")"
    fi
  done
  # -rss_limit_mb: an out-of-memory (or one allocation over the limit) is a finding as well.
  # Run inside $findings: fork mode writes its fuzz-N.log files to the working folder.
  # shellcheck disable=SC2086,SC2046
  (cd "$findings" && "$bin" "$corpus" -max_total_time="$duration" -timeout="$timeout_s" \
    -rss_limit_mb=2048 -max_len="$(max_len "$t")" $(dict "$t") \
    -artifact_prefix="$findings/" -print_final_stats=1 ${FUZZ_ARGS:-}) \
    >"$build/fuzz-logs/$t.log" 2>&1 || true
}

if ((duration > 0)); then
  pids=()
  for t in "${targets[@]}"; do
    run_one "$t" &
    pids+=($!)
    while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
fi

status=0
printf '%-12s %12s %8s %7s %12s %9s  %s\n' target executions exec/s cov corpus findings artifacts
for t in "${targets[@]}"; do
  log=$build/fuzz-logs/$t.log
  bin=$build/tests/fuzz/$t
  if [[ ! -f $log ]]; then
    printf '%-12s (no log: not run yet)\n' "$t"
    status=1
    continue
  fi
  # Normal mode prints final stats; fork mode only progress lines "#N: cov: C ... exec/s: E".
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")
  [[ -n $execs ]] || execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
  [[ -n $rate ]] || rate=$(sed -nE 's/.*exec\/s:? ([0-9]+).*/\1/p' <<<"$last")
  found=$(find "$build/fuzz-findings/$t" -type f \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  count=$(grep -c . <<<"$found" || true)
  # A target that died before fuzzing (e.g. an abort on a seed) leaves no progress line.
  if [[ -z $last ]] && ((count == 0)); then
    count=1
    found="(no progress: see $log)"
  fi
  ((count > 0)) && status=1
  printf '%-12s %12s %8s %7s %12s %9s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "${corp:-?}" "$count" "$(tr '\n' ' ' <<<"$found")"
  # Why each artifact is a finding: replay it (fork mode keeps no child log).
  while read -r a; do
    [[ -f $a ]] || continue
    why=$(timeout 60 "$bin" "$a" 2>&1 |
      grep -m 1 -E '=== t3sim fuzz finding|runtime error|ERROR: AddressSanitizer|SUMMARY: libFuzzer' ||
      true)
    printf '    %s: %s\n' "$(basename "$a")" "${why:-(no longer reproduces)}"
  done <<<"$found"
done
exit $status
