#!/usr/bin/env bash
# Builds the single-GPU validation programs with nvcc (no CMake, no t3sim dependencies) and runs the
# single-GPU measurement set (hold, contention, HBM, the GEMM zoo), writing every file to OUT_DIR
# (default ./gpu-out) and a tarball of them, results.tgz, beside it. Usage: validation/cuda/run_single_gpu.sh [OUT_DIR] [ARCH]
# (ARCH default 90: Hopper). About 5 minutes on an H100/H200; the GEMM zoo is most of it.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-gpu-out}"
arch="${2:-90}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
bin="$(mktemp -d)"
log="$out/run.log"
step() { echo "== $(date -u +%FT%TZ) $*" | tee -a "$log"; }

step "machine"
nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.max.mem --format=csv \
  | tee -a "$log"

step "build (sm_$arch)"
for p in gemm_bench contention_bench hbm_bench hold_bench; do
  nvcc -O3 -std=c++17 -arch="sm_$arch" "$here/$p.cu" -lcublas -o "$bin/$p" 2>>"$log" &
done
wait
for p in gemm_bench contention_bench hbm_bench hold_bench; do
  [[ -x "$bin/$p" ]] || { echo "build of $p failed (see $log)" | tee -a "$log"; exit 1; }
done

run() {  # run NAME.csv PROGRAM ARGS...: one program (at most 4 minutes), its CSV to $out/NAME.csv
  local name="$1"
  shift
  step "$*"
  timeout 240 "$bin/$@" --out "$out/$name" 2>>"$log" || echo "FAILED ($?): $*" | tee -a "$log"
}

# SMs held by a kernel with no memory traffic, until the GEMM ends or for a fixed time.
holds="end,25,50,100,200,400"
run hold-8192x4256x2128-bf16.csv hold_bench --m 8192 --n 4256 --k 2128 --hold-us "$holds"
run hold-8192x8192x1024-bf16.csv hold_bench --m 8192 --n 8192 --k 1024 --hold-us "$holds"
run hold-8192cube-bf16.csv hold_bench --hold-us end,200,800,1600 --blocks 1,2,4,8,16,32,66
# The T3 Fig. 6 analogue, as the calibration files were taken, now interleaved with clocks.
run contention-8192cube.csv contention_bench
run contention-8192x4256x2128-red32MiB.csv contention_bench --m 8192 --n 4256 --k 2128 \
  --dtype bf16 --red-bytes 32M
run hbm.csv hbm_bench
run gemm-zoo.csv gemm_bench --shapes "$here/shapes/zoo_shapes.csv" --dtype both

step "done"
(cd "$out" && tar czf results.tgz --exclude=results.tgz ./*)
ls -l "$out" | tee -a "$log"
