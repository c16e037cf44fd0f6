// `t3sim validate` as a library: runs the simulator on every stored measurement set under
// validation/ (the XLA sm_90 GEMM table for the base and calibrated H100, the MAMF best shapes, the
// A100 and p4de all-reduce sweeps as busbw over 1 MiB..1 GiB, and measured CSVs under
// validation/data/<machine>/) and judges each set's median |% error| against
// validation/tolerances.json. All points of all sets run as independent jobs, largest first;
// results keep a fixed order whatever the thread count.
// Contract: a set that cannot be built or run becomes an ERROR row (never an exception), an --only
// that selects nothing is a UsageError; nothing prints.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "studies/env.h"
#include "studies/validation/validation_sets.h"

namespace t3sim::validation {

struct SetRun {
  std::string name;
  std::string tolerance_key;
  std::string system;
  std::string metric;
  std::vector<std::string> notes;
  std::string status;  // set before running: "NO DATA", "SKIP" or "ERROR"
  // One job per point.
  std::vector<std::string> labels;
  std::vector<double> measured;
  std::vector<double> cost;  // rough run time, for ordering the jobs
  std::vector<std::function<double()>> simulate;
  std::vector<double> simulated;
  std::vector<double> errors;
  bool points_error = false;  // errors are simulated - measured (points of a %), not relative %
  double wall_s = 0;
  std::string error;
};

struct ValidateRequest {
  std::string only;  // one set by name (or a "measured-gemm"-style prefix); empty = all
  unsigned threads = 1;
  std::function<void(size_t, size_t)> progress{};  // (points done, total) after each; may be empty
};
struct ValidateResult {
  ToleranceFile tolerances;
  std::vector<SetRun> sets;
};

ValidateResult run_validation(const studies::Env& env, const ValidateRequest& request);

// "PASS"/"FAIL" against the tolerance, "NO TOL" without one, else the set's status.
std::string result_of(const SetRun& e, const ToleranceFile& tol);

// {"experiments": [...]}: per set the statistics (2 decimals), tolerance, result, notes and rows.
nlohmann::ordered_json validation_json(const ValidateResult& r);

}  // namespace t3sim::validation
