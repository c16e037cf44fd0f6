#!/usr/bin/env bash
# MPI-distributed `t3sim sweep`: a 2-rank run (mpirun -np 2) of configs/sweeps/tiny.json writes
# the same bytes as --jobs 1 and --jobs 2 (CSV and JSON Lines), really ran on 2 ranks, and a 2-rank
# --resume after a torn write ends with the same bytes; rank 0 failing to write ends every rank
# with exit 2 instead of hanging. Skips (exit 0, with a message) when mpirun
# is missing, cannot start 2 ranks here, or t3sim was built without MPI.
# Usage: tests/integration/sweep_mpi_test.sh PATH/TO/t3sim [SPEC]
set -euo pipefail

T3SIM=${1:?usage: sweep_mpi_test.sh PATH/TO/t3sim [SPEC]}
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SPEC=${2:-$SRC_DIR/configs/sweeps/tiny.json}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "sweep_mpi_test: FAIL: $*" >&2
  exit 1
}
skip() {
  echo "sweep_mpi_test: SKIP: $*"
  exit 0
}

MPIRUN=(mpirun --oversubscribe --allow-run-as-root -np 2)
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (install openmpi-bin)"
"${MPIRUN[@]}" true >"$WORK/probe" 2>&1 || skip "mpirun cannot start 2 ranks here: $(head -c 300 "$WORK/probe")"

# mpi_sweep OUT [ARGS...]: a 2-rank sweep; skips if this t3sim has no MPI support.
mpi_sweep() {
  local out=$1
  shift
  local rc=0
  "${MPIRUN[@]}" "$T3SIM" sweep "$SPEC" --out "$out" --jobs 1 "$@" >"$WORK/mpi.log" 2>&1 || rc=$?
  if grep -q "built without MPI" "$WORK/mpi.log"; then
    skip "t3sim was built without MPI (install libopenmpi-dev and rebuild)"
  fi
  [[ $rc -eq 0 ]] || fail "mpirun sweep exited $rc: $(tail -c 1000 "$WORK/mpi.log")"
  # Rank 0 reports the rank count; without it both processes ran the whole sweep on their own.
  grep -q ", 2 ranks x" "$WORK/mpi.log" || fail "sweep did not run distributed: $(cat "$WORK/mpi.log")"
}

for ext in csv jsonl; do
  "$T3SIM" sweep "$SPEC" --out "$WORK/j1.$ext" --jobs 1 >/dev/null 2>&1 || fail "--jobs 1 ($ext)"
  "$T3SIM" sweep "$SPEC" --out "$WORK/j2.$ext" --jobs 2 >/dev/null 2>&1 || fail "--jobs 2 ($ext)"
  mpi_sweep "$WORK/mpi.$ext"
  [[ -s $WORK/j1.$ext ]] || fail "empty output ($ext)"
  cmp -s "$WORK/j1.$ext" "$WORK/j2.$ext" || fail "--jobs 1 and --jobs 2 differ ($ext)"
  cmp -s "$WORK/j1.$ext" "$WORK/mpi.$ext" || {
    diff "$WORK/j1.$ext" "$WORK/mpi.$ext" | head -20 >&2
    fail "2 MPI ranks differ from --jobs 1 ($ext)"
  }
done

# Resume on 2 ranks: header + 3 rows + a torn fourth row.
head -n 4 "$WORK/j1.csv" >"$WORK/resume.csv"
sed -n 5p "$WORK/j1.csv" | head -c 10 >>"$WORK/resume.csv"
mpi_sweep "$WORK/resume.csv" --resume
cmp -s "$WORK/j1.csv" "$WORK/resume.csv" || {
  diff "$WORK/j1.csv" "$WORK/resume.csv" | head -20 >&2
  fail "2-rank --resume differs from a fresh run"
}

# Rank 0 failing to write its output (here a FIFO in the way; a file-size limit cannot stand in for
# a full disk under mpirun, whose own shared-memory files it breaks) must end every rank with exit 2
# and the message, not leave rank 1 blocked in MPI (a hang, caught here by `timeout`). The same
# path (one rank's exception -> MPI_Abort with its exit status) handles a row that cannot be
# appended mid-run.
mkfifo "$WORK/fifo.csv"
rc=0
timeout 120 "${MPIRUN[@]}" "$T3SIM" sweep "$SPEC" --out "$WORK/fifo.csv" --jobs 1 \
  >"$WORK/fifo.log" 2>&1 || rc=$?
[[ $rc -ne 124 ]] || fail "2-rank sweep hung after rank 0 failed to write"
[[ $rc -eq 2 ]] || fail "2-rank sweep to a FIFO exited $rc, want 2: $(tail -c 600 "$WORK/fifo.log")"
grep -qF "fifo.csv: /: is a FIFO" "$WORK/fifo.log" || fail "no message naming the file"
[[ -p $WORK/fifo.csv ]] || fail "the FIFO was replaced"

echo "sweep_mpi_test: ok ($(($(wc -l <"$WORK/j1.csv") - 1)) points, CSV and JSON Lines, resume)"
