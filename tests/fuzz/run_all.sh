#!/usr/bin/env bash
# Builds (if needed) and runs every t3sim libFuzzer target for DURATION_S seconds each, then prints
# one line per target: executions, executions/s, new corpus inputs and findings (crash-, leak-,
# timeout-, oom- artifacts).
#
# usage: tests/fuzz/run_all.sh DURATION_S [TARGET...]
# env:   BUILD_DIR  build folder (default <repo>/build-fuzz, configured with `cmake --preset fuzz`)
#        PARALLEL   targets run at once (default 2)
#        JOBS       build jobs (default: nproc)
#        FUZZ_ARGS  extra libFuzzer flags (e.g. "-fork=2 -ignore_crashes=1" to go on after a crash)
# Inputs: seeds from tests/fuzz/corpus/<target>/ (read-only); new inputs go to
# $BUILD_DIR/fuzz-corpus/<target>/, findings to $BUILD_DIR/fuzz-findings/<target>/, logs to
# $BUILD_DIR/fuzz-logs/<target>.log. Exit status: 0 without findings, 1 with, 2 on a usage error.
# Reproduce a finding: $BUILD_DIR/.../fuzz_<target> <artifact>.
set -euo pipefail

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
  sed -n '4,6p' "$0" | sed 's/^# //' >&2
  exit 2
fi
duration=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$repo/build-fuzz}
parallel=${PARALLEL:-2}
jobs=${JOBS:-$(nproc)}
all_targets=(fuzz_units fuzz_config fuzz_trace fuzz_kineto fuzz_sweep)
targets=("$@")
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")

if [[ ! -f $build/CMakeCache.txt ]]; then
  (cd "$repo" && cmake --preset fuzz -B "$build")
fi
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

# Per-target libFuzzer settings: the longest input worth trying and the dictionary.
max_len() { [[ $1 == fuzz_units ]] && echo 256 || echo 16384; }
dict() { [[ $1 == fuzz_units ]] && echo "$here/units.dict" || echo "$here/json.dict"; }

run_one() {
  local t=$1 bin
  bin=$(find "$build" -type f -name "$t" -perm -u+x | head -n 1)
  if [[ -z $bin ]]; then
    echo "$t: binary not found under $build" >&2
    return 1
  fi
  local corpus=$build/fuzz-corpus/$t findings=$build/fuzz-findings/$t
  mkdir -p "$corpus" "$findings" "$build/fuzz-logs"
  # -timeout=1: an input that takes over 1 s is a finding (hang); -rss_limit_mb: an OOM is one too.
  # shellcheck disable=SC2086
  "$bin" "$corpus" "$here/corpus/${t#fuzz_}" -max_total_time="$duration" -timeout=1 \
    -rss_limit_mb=2048 -max_len="$(max_len "$t")" -dict="$(dict "$t")" \
    -artifact_prefix="$findings/" -print_final_stats=1 ${FUZZ_ARGS:-} \
    >"$build/fuzz-logs/$t.log" 2>&1 || true
}

pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  while (($(jobs -rp | wc -l) >= parallel)); do sleep 1; done
done
for p in "${pids[@]}"; do wait "$p" || true; done

status=0
printf '%-12s %12s %9s %8s %9s  %s\n' target executions exec/s corpus+ findings artifacts
for t in "${targets[@]}"; do
  log=$build/fuzz-logs/$t.log
  # Normal mode prints final stats; fork mode only progress lines "#N: cov: .. exec/s: E ..".
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [[ -z $execs ]]; then
    execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
    rate=$(grep -oE 'exec/s: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
  fi
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -n 1)
  found=$(find "$build/fuzz-findings/$t" -type f \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  count=$(grep -c . <<<"$found" || true)
  ((count > 0)) && status=1
  printf '%-12s %12s %9s %8s %9s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${added:-?}" "$count" \
    "$(tr '\n' ' ' <<<"$found")"
  if ((count > 0)); then
    grep -m 3 -E '=== t3sim fuzz finding|ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error|ALARM' \
      "$log" | sed 's/^/    /' || true
  fi
done
exit $status
