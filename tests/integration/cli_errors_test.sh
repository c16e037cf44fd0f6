#!/usr/bin/env bash
# CLI contract: a misspelled config key exits 2 with "FILE: /json/pointer: message (did you mean)";
# usage errors exit 2; `check` passes on a valid config; no partial output files on errors.
set -euo pipefail
t3sim=${1:?usage: cli_errors_test.sh PATH_TO_T3SIM}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_exit() {  # expect_exit CODE CMD...
  local want=$1; shift
  set +e
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  set -e
  if [[ $got -ne $want ]]; then
    echo "FAIL: '$*' exited $got, expected $want"; cat "$tmp/err"; exit 1
  fi
}

sed 's/"channels_per_stack"/"chanels_per_stack"/' "$root/configs/presets/hbm/t3-hbm2.json" \
  > "$tmp/typo.json"
mkdir -p "$tmp/presets/hbm" && mv "$tmp/typo.json" "$tmp/presets/hbm/typo.json"
expect_exit 2 "$t3sim" check "$tmp/presets/hbm/typo.json"
grep -q "typo.json: /chanels_per_stack: unknown key 'chanels_per_stack' (did you mean 'channels_per_stack'?)" "$tmp/err" \
  || { echo "FAIL: bad message: $(cat "$tmp/err")"; exit 1; }
[[ $(wc -l <"$tmp/err") -eq 1 ]] || { echo "FAIL: error is not one line"; exit 1; }

expect_exit 0 "$t3sim" check "$root/configs/systems/t3-ring-8.json"
expect_exit 2 "$t3sim" sublayer --system t3-ring-8 --model t-nlg --sublayer fc3 --mode t3
expect_exit 2 "$t3sim" sublayer --system t3-ring-9 --model t-nlg --sublayer fc2 --mode t3
expect_exit 2 "$t3sim" sublayer --system t3-ring-8 --model t-nlg --sublayer fc2 --mode t3 --set hbm.bandwith=1
expect_exit 2 "$t3sim" nonsense
expect_exit 0 "$t3sim" --help
expect_exit 2 "$t3sim" sublayer --system t3-ring-8 --model t-nlg --sublayer fc2 --mode t3 \
  --trace "$tmp/trace.json" --tokens 0x
[[ ! -e "$tmp/trace.json" ]] || { echo "FAIL: partial output left"; exit 1; }
echo "cli_errors_test: ok"
