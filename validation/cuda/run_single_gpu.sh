#!/usr/bin/env bash
# Builds the single-GPU validation programs with nvcc (no CMake, no t3sim dependencies) and runs the
# single-GPU measurement set SET, writing every file to OUT_DIR (default ./gpu-out) and a tarball of
# them, results.tgz, beside it. Usage: validation/cuda/run_single_gpu.sh [OUT_DIR] [ARCH] [SET]
# (ARCH default 90: Hopper). Sets:
#   all      hold, contention, HBM and the GEMM zoo; about 5 minutes on an H100/H200.
#   formats  number formats and clocks: the GEMM zoo with its per-row SM clocks, 8192^3 fp16 and
#            bf16 sustained for seconds with NVML power and clock sampled every 100 ms, K with and
#            without 16-byte alignment, cuBLASLt's log of the kernels it picks for the zoo, and
#            short holds of 4 / 16 / 32 SMs; about 2 minutes.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-gpu-out}"
arch="${2:-90}"
set_name="${3:-all}"
case "$set_name" in all | formats) ;; *) echo "unknown set '$set_name' (all, formats)" >&2; exit 2 ;; esac
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

sample() {  # sample NAME: NVML clock and power every 100 ms into $out/NAME until stopped
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
    --format=csv,noheader,nounits -lms 100 >"$out/$1" 2>>"$log" &
  sampler=$!
}
unsample() { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null; }

formats_set() {
  run gemm-zoo.csv gemm_bench --shapes "$here/shapes/zoo_shapes.csv" --dtype both
  for d in fp16 bf16; do
    sample "nvml-sustained-8192cube-$d.csv"
    run "sustained-8192cube-$d.csv" gemm_bench --shapes "$here/shapes/sustained_8192.csv" \
      --dtype "$d" --runs 1500 --warmup 300 --idle-ms 1000
    unsample
  done
  run gemm-alignment.csv gemm_bench --shapes "$here/shapes/alignment_shapes.csv" --dtype both
  step "cuBLASLt log of the zoo's kernels"
  CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE="$out/cublaslt-zoo.log" timeout 120 "$bin/gemm_bench" \
    --shapes "$here/shapes/zoo_shapes.csv" --dtype both --runs 20 --warmup 1 --idle-ms 0 \
    --out "$out/gemm-zoo-logged.csv" 2>>"$log" || echo "FAILED ($?): logged zoo" | tee -a "$log"
  run hold-short-8192x4256x2128-bf16.csv hold_bench --m 8192 --n 4256 --k 2128 \
    --blocks 4,16,32 --hold-us 25,50,75,100,150,200,300,400,600
}

all_set() {
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
}

"${set_name}_set"

step "done"
(cd "$out" && tar czf results.tgz --exclude=results.tgz ./*)
ls -l "$out" | tee -a "$log"
