// `t3sim calibrate` as a library: fits the GEMM `efficiency` of a GPU preset P (and optionally
// the HBM `efficiency` of the system's HBM preset) to measured rows by the deterministic search of
// fit_scalar, minimising the median |% error|. Each written preset "extends" its base and
// overrides only the fitted key; a "$calibration" annotation records the input files (repository
// path, size, SHA-256), the search, the fitted and base values and the error before/after. No date
// is written, so the same inputs give the same bytes. P is never written.
// Contract: bad inputs throw UsageError/ConfigError before anything is written; nothing prints.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "studies/env.h"
#include "studies/validation/validation_sets.h"

namespace t3sim::validation {

struct CalibrateRequest {
  std::string preset, gemm, hbm, hbm_out, out, system;  // as the CLI options
  unsigned threads = 1;
  FitOptions fit;
};

struct Calibration {
  std::filesystem::path preset;  // resolved GPU preset P
  std::string system;            // the system simulated on
  bool gpu_replaced = false;     // the system's gpu differed from P and was replaced by it
  std::optional<FitResult> hbm_fit;
  std::filesystem::path gemm_csv;
  std::vector<GemmPoint> gemm_points;
  FitResult gemm_fit;
};

// Runs the fits and writes `out` (and `hbm_out` with an HBM CSV).
Calibration run_calibration(const studies::Env& env, const CalibrateRequest& request);

}  // namespace t3sim::validation
