// `t3sim calibrate --preset P --gemm CSV [--hbm CSV --hbm-out FILE] -o NEW [--system S]`: parses,
// runs the fit of studies/validation/calibrate.h (GEMM efficiency of preset P, optionally the HBM
// efficiency) and prints the per-row errors before/after and the files written.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "cli/common.h"
#include "sim/atomic_file.h"
#include "studies/parallel.h"
#include "studies/validation/calibrate.h"

namespace t3sim::cli {
namespace {

namespace v = validation;
using v::FitResult;

// Prints the per-row table of a GEMM fit.
void print_gemm(const std::vector<v::GemmPoint>& pts, const FitResult& f) {
  std::printf("%5s %3s %6s %6s %6s %9s %9s %7s %9s %7s\n", "line", "b", "m", "n", "k", "measured",
              "before", "err%", "after", "err%");
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    std::printf("%5d %3llu %6llu %6llu %6llu %9.1f %9.1f %+7.1f %9.1f %+7.1f\n", p.line,
                static_cast<unsigned long long>(p.batch), static_cast<unsigned long long>(p.m),
                static_cast<unsigned long long>(p.n), static_cast<unsigned long long>(p.k),
                p.tflops, p.tflops * (1 + f.errors_before[i] / 100), f.errors_before[i],
                p.tflops * (1 + f.errors_after[i] / 100), f.errors_after[i]);
  }
}

void print_summary(const char* what, const FitResult& f) {
  std::printf(
      "%s: %.3f -> %.3f; median |err| %.1f %% -> %.1f %%, max |err| %.1f %% -> %.1f %% "
      "over %zu points (%d evaluations)\n",
      what, f.start, f.value, f.before.median_abs_pct, f.after.median_abs_pct, f.before.max_abs_pct,
      f.after.max_abs_pct, f.after.points, f.evaluations);
}

}  // namespace

int cmd_calibrate(const Args& args, const Env& env) {
  po::options_description desc("t3sim calibrate options");
  v::CalibrateRequest o;
  desc.add_options()("preset", po::value(&o.preset)->required(), "GPU preset name or path (P)")(
      "gemm", po::value(&o.gemm)->required(), "GEMM CSV (XLA table or gemm_bench layout)")(
      "hbm", po::value(&o.hbm), "HBM CSV (hbm_bench layout: pattern,bytes,median_us,gbps)")(
      "hbm-out", po::value(&o.hbm_out), "HBM preset to write with the fitted HBM efficiency")(
      "out,o", po::value(&o.out)->required(), "GPU preset to write (extends P)")(
      "system", po::value(&o.system), "system to simulate on (default: one whose gpu is P)")(
      "threads",
      integer(&o.threads, 1u, studies::kMaxThreads)->default_value(studies::default_threads()),
      "worker threads, 1..256");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr,
                     "t3sim calibrate --preset P --gemm CSV [--hbm CSV --hbm-out H] -o NEW "
                     "[--system S]")) {
    return 0;
  }
  // The files the fit reads (the preset, its bases, the CSVs, --system) are never written over.
  std::vector<InputFile> inputs;
  for (const auto& [csv, what] : {std::pair{o.gemm, "the --gemm CSV"}, {o.hbm, "the --hbm CSV"}}) {
    if (csv.empty()) continue;
    inputs.push_back({csv, what});
    inputs.push_back({env.source_dir / csv, what});
  }
  std::error_code ec;
  const std::filesystem::path preset =
      std::filesystem::is_regular_file(o.preset, ec)
          ? std::filesystem::path(o.preset)
          : env.configs_dir / "presets" / "gpus" / (o.preset + ".json");
  if (std::filesystem::is_regular_file(preset, ec)) {
    add_config_files(inputs, load_config(preset, {env.configs_dir}), "a file of --preset");
  }
  if (!o.system.empty())
    add_config_files(inputs, load_system(env, o.system, {}), "a file of --system");
  refuse_input_output("--out", o.out, inputs);
  refuse_input_output("--hbm-out", o.hbm_out, inputs);
  refuse_same_outputs("--out", o.out, "--hbm-out", o.hbm_out);
  output_target(o.out);  // refused before the fit, not after it
  if (!o.hbm_out.empty()) output_target(o.hbm_out);
  const auto t0 = std::chrono::steady_clock::now();
  const v::Calibration c = v::run_calibration(env, o);
  if (c.gpu_replaced) {
    std::printf("note: system %s's gpu replaced by preset %s\n", c.system.c_str(),
                c.preset.string().c_str());
  }
  if (c.hbm_fit) {
    print_summary("hbm efficiency", *c.hbm_fit);
    std::printf("wrote %s\n", o.hbm_out.c_str());
  }
  std::printf("t3sim calibrate: preset %s on system %s, %zu GEMM rows of %s (TFLOP/s)\n",
              v::display_path(env, c.preset).c_str(), c.system.c_str(), c.gemm_points.size(),
              v::display_path(env, c.gemm_csv).c_str());
  print_gemm(c.gemm_points, c.gemm_fit);
  print_summary("gpu efficiency", c.gemm_fit);
  std::printf("wrote %s (fit took %.1f s)\n", o.out.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}

}  // namespace t3sim::cli
