// Validation sets: the stored measurements under validation/ (the published calibration set of
// measurements.md and GPU-measured data) as typed rows; the simulator run per row through the code
// paths of `t3sim gemm`, `t3sim membw` and `t3sim nccl-tests`; error statistics and the
// deterministic one-parameter fit shared by `t3sim validate` and `t3sim calibrate`.
// Errors are signed percentages 100 (simulated - measured) / measured; statistics use |error|.
// Contract: every loader throws ConfigError "FILE: line N: message" (one line) for an unreadable
// file, an unknown header or a malformed row; every sim_* call builds its own Simulator and
// System, so calls may run on parallel threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/memory.h"
#include "models/gpu/gemm_plan.h"
#include "models/gpu/gpu_spec.h"
#include "sim/config.h"
#include "studies/env.h"
#include "studies/probes.h"

namespace t3sim::validation {

struct GemmPoint {
  int line = 0;
  std::string dtype = "bf16";  // bf16 | fp16 | tf32 (the XLA table's FP32 column)
  uint64_t batch = 1;          // batched rows run as `batch` products in one kernel
  uint64_t m = 0, n = 0, k = 0;
  double tflops = 0;  // measured
};
// Header `b,m,n,k,bf16_tflops,fp32_tflops` (XLA table; the BF16 column, or with `fp32_column`
// the FP32 one, which sm_90 runs on TF32 tensor cores: 401.6 TFLOP/s at 4096^3 is 6x the FP32
// SIMT peak [inferred]) or `dtype,m,n,k,median_us,tflops` (validation/cuda gemm_bench).
std::vector<GemmPoint> load_gemm_csv(const std::filesystem::path& file, bool fp32_column = false);
gpu::Precision precision_of(const GemmPoint& p);
// "tf32", "bf16", else fp16.
gpu::Precision precision_of(std::string_view dtype);

struct MamfPoint {
  int line = 0;
  std::string accelerator;
  double tflops = 0;
  double spec_tflops = 0;
  uint64_t m = 0, n = 0, k = 0;  // best shape
};
// Header `accelerator,mamf_tflops,spec_tflops,efficiency_pct,best_m,best_n,best_k,torch`.
std::vector<MamfPoint> load_mamf_csv(const std::filesystem::path& file);

struct CollectivePoint {
  int line = 0;
  uint64_t size_bytes = 0;
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};
// Header `size_bytes,time_us,algbw_gbps,busbw_gbps`.
std::vector<CollectivePoint> load_collective_csv(const std::filesystem::path& file);

struct HbmPoint {
  int line = 0;
  std::string pattern;  // read | write | copy | rmw
  uint64_t bytes = 0;   // size of each array
  double median_us = 0;
  double gbps = 0;  // bytes moved (read 1x, write 1x, copy 2x, rmw 3x) / time
};
// Header `pattern,bytes,median_us,gbps` (validation/cuda hbm_bench).
std::vector<HbmPoint> load_hbm_csv(const std::filesystem::path& file);

// A GEMM while another kernel holds `sms` SMs for `hold_us` (0: the whole run), and the GEMM's
// measured slowdown in % of its time alone.
struct SharingPoint {
  int line = 0;
  std::string label;
  uint64_t m = 0, n = 0, k = 0;
  std::string dtype;
  uint32_t sms = 0;
  double hold_us = 0;
  double slowdown_pct = 0;
  // The other kernel: "reduction" (contention_bench: c = a + b over red_bytes arrays on `sms`
  // CTAs, holding its SMs until it ends), "spin", "copy", "copy-paced", "copy-evict-first",
  // "copy-evict-first-paced" or "read" (the concurrency probe, for the whole run), "ce" (a copy
  // engine's D2D copy, no SMs), "hold" (hold_bench: one spinning thread per SM, no memory traffic,
  // too little activity to count for power); sleep_ns: a paced kernel's pause per chunk.
  std::string kind;
  uint64_t red_bytes = 0;
  uint64_t sleep_ns = 0;
  // SM clocks the program measured for the GEMM alone and beside the other kernel (0: not given).
  double alone_mhz = 0, held_mhz = 0;
};
// The clock a point's GEMM ran at in both of its runs when the GPU was not power-limited (the two
// measured clocks agree within 2 %, as on a cool GPU at its boost clock): the simulator then runs
// both at that fixed clock, without its power controller, whose sustained state the rows did not
// reach. 0: run the power model (clocks not reported, or they moved).
double steady_clock_mhz(const SharingPoint& p);
// The co-runner of `p` as the GEMM probe simulates it on `spec`'s GPU (studies::HeldCus): its
// SMs (held busy), and its memory stream (copy_kernel.h) as the program's kernel issues it.
studies::HeldCus corunner_for(const gpu::GpuSpec& spec, const SharingPoint& p);
// contention_bench's CSV (its 16 columns, optionally the three clock columns): the rows with a
// reduction kernel. With the clock columns (the program interleaves alone and together runs) each
// row's gemm_slowdown; without them, each row against the together time of the file's row without
// a reduction (the program timed alone and together in different power states then).
std::vector<SharingPoint> load_contention_csv(const std::filesystem::path& file);
// The PyTorch concurrency probe's CSV (`m,n,k,variant,background_kind,...,slowdown_pct,...`):
// every row with a background kernel on a counted number of SMs, held for the whole run. Rows
// whose background holds no counted SMs (the driver's memcpy) are not points: their variants are
// appended to `left_out` when given.
std::vector<SharingPoint> load_concurrency_csv(const std::filesystem::path& file,
                                               std::vector<std::string>* left_out = nullptr);
// hold_bench's CSV (validation/cuda/hold_bench.cu; the hold_timeouts column optional): every row,
// a kernel with no memory traffic holding `hold_sms` SMs for held_during_gemm_us of the GEMM
// (hold "end": the whole run). A row whose watchdog ended the hold is an error: it measured the
// watchdog, not SM sharing.
std::vector<SharingPoint> load_hold_csv(const std::filesystem::path& file);
// The same on GPU 0 of `system`: `t3sim gemm --held-cus sms --held-for hold` against alone.
double sim_gemm_slowdown_pct(const ConfigDoc& system, const SharingPoint& p);

// A sustained run (the probe's power-capped rows): the GEMM with a background kernel, and the SM
// clock NVML read.
struct ClockPoint {
  int line = 0;
  std::string label;
  SharingPoint run;  // shape and background (kind, sms); slowdown unused
  double clock_mhz = 0;
};
// Header `m,n,k,background_kind,background_ctas,gemm_us,sm_clock_MHz,power_W,background_GBps_rw`.
std::vector<ClockPoint> load_clock_csv(const std::filesystem::path& file);
// The SM clock (MHz) averaged over the GEMM on GPU 0 of `system` with the point's background.
double sim_gemm_clock_mhz(const ConfigDoc& system, const ClockPoint& p);

// One GEMM's DRAM read bytes as Nsight Compute counted them (dram__bytes_read.sum, MB = 1e6 B).
struct GemmMemoryPoint {
  int line = 0;
  uint64_t m = 0, n = 0, k = 0;
  double read_mb = 0;
};
// Header `m,n,k,kernel,grid_ctas,time_us,dram_read_MB,...` (the H200 Nsight probe).
std::vector<GemmMemoryPoint> load_gemm_memory_csv(const std::filesystem::path& file);
// The GEMM's DRAM read bytes in MB on GPU 0 of `system` (`t3sim gemm`'s run).
double sim_gemm_read_mb(const ConfigDoc& system, const GemmMemoryPoint& p);

// TFLOP/s of one M x N x K GEMM (`batch` products; FP16/BF16 2 B elements unless `precision`
// says otherwise) on GPU 0 of `system`, timed like `t3sim gemm`: from the first dispatch to the
// last tile store (the launch overhead precedes the start).
double sim_gemm_tflops(const ConfigDoc& system, uint64_t m, uint64_t n, uint64_t k,
                       uint64_t batch = 1, gpu::Precision precision = gpu::Precision::kFp16);
// HBM bandwidth of GPU 0 for an hbm_bench pattern on arrays of `bytes`, counted as hbm_bench does.
double sim_hbm_gbps(const ConfigDoc& system, const std::string& pattern, uint64_t bytes);
// nccl-tests busbw (GB/s) of a float all-reduce of `bytes` over every GPU of `system`.
double sim_allreduce_busbw(const ConfigDoc& system, uint64_t bytes);

// Signed % errors of every point, simulated on `threads` threads (results ordered as `points`).
std::vector<double> gemm_errors(const ConfigDoc& system, const std::vector<GemmPoint>& points,
                                unsigned threads);
std::vector<double> hbm_errors(const ConfigDoc& system, const std::vector<HbmPoint>& points,
                               unsigned threads);

double pct_error(double simulated, double measured);  // measured must be > 0
double median(std::vector<double> values);            // of an empty vector: 0
double round2(double x);                              // to two decimals, for reports
struct ErrorStats {
  size_t points = 0;
  double median_abs_pct = 0;
  double max_abs_pct = 0;
};
ErrorStats error_stats(const std::vector<double>& pct_errors);

// Deterministic fit of one scalar parameter: minimises the median |% error| returned by
// `errors_at(value)` over [lo, hi] by a grid (step `grid_step`), then a golden-section refinement
// within one grid step of the best grid point; the result is rounded to `resolution`.
struct FitOptions {
  double lo = 0.30;
  double hi = 1.00;
  double grid_step = 0.01;
  int golden_iterations = 12;
  double resolution = 0.001;
};
struct FitResult {
  double start = 0;
  double value = 0;
  std::vector<double> errors_before;  // at `start`
  std::vector<double> errors_after;   // at `value`
  ErrorStats before;
  ErrorStats after;
  int evaluations = 0;
};
FitResult fit_scalar(double start, const FitOptions& opts,
                     const std::function<std::vector<double>(double)>& errors_at);

// `doc` with one leaf replaced ("gpu.efficiency", "hbm.efficiency"); the key must exist.
ConfigDoc with_value(ConfigDoc doc, const std::string& key, double value);

struct Tolerance {
  double median_abs_pct = 0;
  std::string source;
};
struct ToleranceFile {
  std::map<std::string, Tolerance> experiments;
  std::map<std::string, std::string> machine_systems;  // validation/data/<machine> -> system
  // validation/data/<machine> folders that belong to the calibration set (parameters may be
  // fitted to them), each with the document that says so.
  std::map<std::string, std::string> calibration_machines;
};
// validation/tolerances.json; ConfigError for a missing key or a non-positive tolerance.
ToleranceFile load_tolerances(const std::filesystem::path& file);

// An input path as given if it exists, else relative to the repository (env.source_dir).
std::filesystem::path find_input(const studies::Env& env, const std::string& path);
// `path` relative to the repository when inside it (stable across checkouts), else as given.
std::string display_path(const studies::Env& env, const std::filesystem::path& path);

}  // namespace t3sim::validation
