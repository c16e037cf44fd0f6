// `t3sim contention`: the simulator's twin of validation/cuda/contention_bench. A GEMM on GPU 0
// alone, contention_bench's reduction kernel (c = a + b on k SMs) alone, and both together with
// the reduction launched first, for k in 0, 4, 8, 16, 32; the CSV has contention_bench's columns
// (and its three SM-clock columns: the power model's mean clock where the preset has one).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/common.h"
#include "models/system/gemm_limits.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"
#include "sim/units_parse.h"
#include "studies/probes.h"

namespace t3sim::cli {

int cmd_contention(const Args& args, const Env& env) {
  po::options_description desc("t3sim contention options");
  std::string sys, dtype = "fp16", red = "256 MiB", out;
  uint64_t m = 8192, n = 8192, k = 8192;
  std::vector<uint32_t> blocks;
  std::vector<std::string> sets;
  desc.add_options()("system", po::value(&sys)->required(), "system name or path")(
      "m,m", integer(&m, uint64_t{1}, uint64_t{1} << 20)->default_value(8192), "GEMM rows")(
      "n,n", integer(&n, uint64_t{1}, uint64_t{1} << 20)->default_value(8192), "GEMM columns")(
      "k,k", integer(&k, uint64_t{1}, uint64_t{1} << 20)->default_value(8192),
      "GEMM reduction dimension")("dtype", po::value(&dtype)->default_value("fp16"),
                                  "fp16 | bf16 (both use the FP16/BF16 matrix rate)")(
      "red-bytes", po::value(&red)->default_value("256 MiB"),
      "bytes of each reduction array (a, b, c)")(
      "red-blocks", po::value(&blocks)->multitoken(),
      "reduction CTAs (one per SM) to try (default: 0 4 8 16 32)")(
      "out", po::value(&out), "CSV file (default: stdout)")("set", po::value(&sets)->composing(),
                                                            "override: path=value");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, "t3sim contention --system S [--m M ...]")) {
    return 0;
  }
  if (dtype != "fp16" && dtype != "bf16") {
    throw UsageError("--dtype must be fp16 or bf16 (got '" + dtype + "')");
  }
  uint64_t red_bytes = 0;
  try {
    red_bytes = parse_bytes(red).count();
  } catch (const std::exception& e) {
    throw UsageError(std::string("--red-bytes: ") + e.what());
  }
  if (red_bytes < 16 * 1024 || red_bytes > (uint64_t{16} << 30)) {
    throw UsageError("--red-bytes must be in 16 KiB..16 GiB (got " + red + ")");
  }
  if (blocks.empty()) blocks = {0, 4, 8, 16, 32};
  const ConfigDoc doc = load_system(env, sys, sets);
  const gpu::GpuSpec spec = system::system_gpu_spec(doc);
  const uint32_t sms = spec.cus;
  // The reduction alone runs at the preset clock: the power controller acts only while a GEMM runs.
  const double red_mhz_alone = static_cast<double>(spec.clock.count_hz()) * 1e-6;
  for (const uint32_t b : blocks) {
    if (b >= sms) {
      throw UsageError("--red-blocks: " + std::to_string(b) + " is not below the GPU's " +
                       std::to_string(sms) + " SMs");
    }
  }
  if (!out.empty()) {
    std::vector<InputFile> inputs;
    add_config_files(inputs, doc, "--system");
    refuse_input_output("--out", out, inputs);
  }
  const gpu::GemmShape shape{m, n, k, 1,
                             dtype == "bf16" ? gpu::Precision::kBf16 : gpu::Precision::kFp16};
  const studies::GemmProbe alone = studies::probe_gemm(doc, shape);
  std::ostringstream csv;
  csv << "# t3sim contention --system " << sys << ": simulated twin of contention_bench\n";
  csv << "red_blocks,red_sms,m,n,k,dtype,red_bytes,gemm_alone_us,red_alone_us,gemm_together_us,"
         "red_together_us,together_us,gemm_slowdown,red_slowdown,speedup,ideal_speedup,"
         "gemm_alone_sm_mhz,red_alone_sm_mhz,together_sm_mhz\n";
  char line[512];
  for (const uint32_t b : blocks) {
    double red_alone = 0, gemm_tog = alone.time_us, red_tog = 0, tog = alone.end_us;
    double tog_mhz = alone.clock_mhz, red_mhz = 0;
    if (b > 0) {
      const studies::HeldCus r = studies::contention_reduction(b, red_bytes);
      red_alone = studies::probe_corunner_alone(doc, r);
      red_mhz = red_mhz_alone;
      const studies::GemmProbe with = studies::probe_gemm(doc, shape, r);
      gemm_tog = with.time_us;
      red_tog = with.corunner_us;
      tog = std::max(with.end_us, with.corunner_us);
      tog_mhz = with.clock_mhz;
    }
    const double g_slow = gemm_tog / alone.time_us;
    const double r_slow = b > 0 ? red_tog / red_alone : 1.0;
    const double speedup = (alone.time_us + red_alone) / tog;
    const double ideal = (alone.time_us + red_alone) / std::max(alone.time_us, red_alone);
    std::snprintf(line, sizeof line,
                  "%u,%u,%llu,%llu,%llu,%s,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.4f,%.4f,%.4f,%.4f,%.0f,"
                  "%.0f,%.0f\n",
                  b, b, static_cast<unsigned long long>(m), static_cast<unsigned long long>(n),
                  static_cast<unsigned long long>(k), dtype.c_str(),
                  static_cast<unsigned long long>(red_bytes), alone.time_us, red_alone, gemm_tog,
                  red_tog, tog, g_slow, r_slow, speedup, ideal, alone.clock_mhz, red_mhz, tog_mhz);
    csv << line;
  }
  if (out.empty()) {
    std::cout << csv.str();
  } else {
    write_file_atomic(out, csv.str());
  }
  return 0;
}

}  // namespace t3sim::cli
