// `t3sim validate [--only NAME] [--json] [--points]`: runs the simulator on every stored
// measurement set under validation/ and prints one table: experiment, system, points, median and
// max |% error|, the tolerance from validation/tolerances.json and PASS/FAIL (information: the exit
// code is 0 when everything ran, 1 when an experiment could not run). Sets: the XLA sm_90 GEMM
// table (base and calibrated H100), the MAMF best shapes, the A100 and p4de all-reduce sweeps
// (busbw, sizes 1 MiB..1 GiB), and measured CSVs under validation/data/<machine>/.
// All points of all sets run as independent jobs on --threads workers; output order is fixed.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>

#include "cli/common.h"
#include "cli/progress.h"
#include "sim/errors.h"
#include "studies/parallel.h"
#include "studies/validation/validate.h"

namespace t3sim::cli {
namespace {

namespace v = validation;

void print_table(const v::ValidateResult& r, bool points) {
  const std::vector<v::SetRun>& exps = r.sets;
  const v::ToleranceFile& tol = r.tolerances;
  std::printf("%-26s %-21s %-8s %6s %12s %10s %10s %-7s %7s\n", "experiment", "system", "metric",
              "points", "median|err|%", "max|err|%", "tolerance", "result", "sim s");
  for (const v::SetRun& e : exps) {
    const v::ErrorStats st = v::error_stats(e.errors);
    const auto it = tol.experiments.find(e.tolerance_key);
    char med[32] = "-", mx[32] = "-", tl[32] = "-";
    if (e.status.empty()) {
      std::snprintf(med, sizeof med, "%.1f", st.median_abs_pct);
      std::snprintf(mx, sizeof mx, "%.1f", st.max_abs_pct);
    }
    if (it != tol.experiments.end())
      std::snprintf(tl, sizeof tl, "%g %%", it->second.median_abs_pct);
    std::printf("%-26s %-21s %-8s %6zu %12s %10s %10s %-7s %7.1f\n", e.name.c_str(),
                e.system.c_str(), e.metric.c_str(), e.status.empty() ? st.points : size_t{0}, med,
                mx, tl, v::result_of(e, tol).c_str(), e.wall_s);
  }
  std::printf(
      "\nPASS/FAIL: median |%% error| <= tolerance (information; max is reported, not judged)\n");
  for (const v::SetRun& e : exps) {
    for (const auto& n : e.notes) std::printf("  %s: %s\n", e.name.c_str(), n.c_str());
    if (!e.error.empty()) std::printf("  %s: ERROR: %s\n", e.name.c_str(), e.error.c_str());
  }
  std::printf("tolerances (validation/tolerances.json):\n");
  std::set<std::string> used;
  for (const v::SetRun& e : exps) used.insert(e.tolerance_key);
  for (const auto& [name, t] : tol.experiments) {
    if (used.count(name) != 0)
      std::printf("  %s: %g %% - %s\n", name.c_str(), t.median_abs_pct, t.source.c_str());
  }
  if (!points) return;
  for (const v::SetRun& e : exps) {
    if (e.errors.empty()) continue;
    std::printf("\n%s (%s, %s)\n  %-36s %12s %12s %8s\n", e.name.c_str(), e.system.c_str(),
                e.metric.c_str(), "point", "measured", "simulated", "err%");
    for (size_t p = 0; p < e.errors.size(); ++p) {
      std::printf("  %-36s %12.2f %12.2f %+8.1f\n", e.labels[p].c_str(), e.measured[p],
                  e.simulated[p], e.errors[p]);
    }
  }
}

}  // namespace

int cmd_validate(const Args& args, const Env& env) {
  po::options_description desc("t3sim validate options");
  std::string only;
  unsigned threads = studies::default_threads();
  desc.add_options()("only", po::value(&only), "run one experiment (name, or measured-gemm etc.)")(
      "json", po::bool_switch(), "print JSON")("points", po::bool_switch(),
                                               "also print every point")(
      "threads", integer(&threads, 1u, studies::kMaxThreads)->default_value(threads),
      "worker threads, 1..256")("quiet,q", po::bool_switch(),
                                "no progress line (it is shown only on a terminal)");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, "t3sim validate [--only NAME] [--json] [--points]")) {
    return 0;
  }
  ProgressLine line("validate", "points",
                    progress_shown(env.stderr_is_tty, vm["quiet"].as<bool>()));
  v::ValidateRequest req{only, threads, nullptr};
  req.progress = [&line](size_t done, size_t total) { line.update(done, total); };
  const v::ValidateResult r = v::run_validation(env, req);
  if (vm["json"].as<bool>()) {
    std::cout << v::validation_json(r).dump(2) << "\n";
  } else {
    print_table(r, vm["points"].as<bool>());
  }
  const auto& exps = r.sets;
  return std::any_of(exps.begin(), exps.end(), [](const v::SetRun& e) { return !e.error.empty(); })
             ? 1
             : 0;
}

}  // namespace t3sim::cli
