// `t3sim validate [--only NAME] [--json] [--points]`: runs the simulator on every stored
// measurement set under validation/ and prints one table: experiment, system, points, median and
// max |% error|, the tolerance from validation/tolerances.json and PASS/FAIL (information: the exit
// code is 0 when everything ran, 1 when an experiment could not run). Sets: the XLA sm_90 GEMM
// table (base and calibrated H100), the MAMF best shapes, the A100 and p4de all-reduce sweeps
// (busbw, sizes 1 MiB..1 GiB), and measured CSVs under validation/data/<machine>/.
// All points of all sets run as independent jobs on --threads workers; output order is fixed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <set>

#include "cli/common.h"
#include "sim/errors.h"
#include "tools/studies/parallel.h"
#include "validation/lib/validation_sets.h"

namespace t3sim::cli {
namespace {

namespace fs = std::filesystem;
namespace v = validation;
using nlohmann::ordered_json;

constexpr uint64_t kMinCollective = uint64_t{1} << 20;
constexpr uint64_t kMaxCollective = uint64_t{1} << 30;

struct Experiment {
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
  double wall_s = 0;
  std::string error;
};

std::string shape_label(uint64_t b, uint64_t m, uint64_t n, uint64_t k) {
  return (b > 1 ? std::to_string(b) + "x" : "") + std::to_string(m) + "x" + std::to_string(n) +
         "x" + std::to_string(k);
}

void add_gemm_points(Experiment& e, const ConfigDoc& sys, const std::vector<v::GemmPoint>& pts) {
  for (const auto& p : pts) {
    e.labels.push_back(p.dtype + " " + shape_label(p.batch, p.m, p.n, p.k));
    e.measured.push_back(p.tflops);
    e.cost.push_back(1e6);
    e.simulate.push_back([&sys, p] { return v::sim_gemm_tflops(sys, p.m * p.batch, p.n, p.k); });
    if (p.batch > 1) {
      e.notes.push_back("line " + std::to_string(p.line) + " (b=" + std::to_string(p.batch) +
                        ") runs as one " + shape_label(1, p.m * p.batch, p.n, p.k) + " GEMM");
    }
  }
}

// Owns the system documents the jobs refer to (stable addresses).
struct Systems {
  const Env& env;
  std::map<std::string, std::unique_ptr<ConfigDoc>> docs;
  const ConfigDoc& get(const std::string& name) {
    auto& d = docs[name];
    if (!d) d = std::make_unique<ConfigDoc>(load_system(env, name, {}));
    return *d;
  }
};

void xla_gemm(Experiment& e, Systems& s, const std::string& system, const Env& env) {
  e.system = system;
  e.metric = "TFLOP/s";
  const fs::path csv = v::find_input(env, "validation/gemm/h100_xla_bf16.csv");
  add_gemm_points(e, s.get(system), v::load_gemm_csv(csv));
  e.notes.push_back("BF16 column of " + v::display_path(env, csv) + "; kernel time as t3sim gemm");
}

void mamf(Experiment& e, Systems& s, const Env& env,
          const std::vector<std::pair<std::string, std::string>>& accel_system) {
  e.metric = "TFLOP/s";
  const auto rows = v::load_mamf_csv(v::find_input(env, "validation/gemm/mamf.csv"));
  for (const auto& [accel, system] : accel_system) {
    const auto it = std::find_if(rows.begin(), rows.end(), [&a = accel](const v::MamfPoint& p) {
      return p.accelerator == a;
    });
    if (it == rows.end())
      throw ConfigError("validation/gemm/mamf.csv", "", "no row '" + accel + "'");
    const ConfigDoc& doc = s.get(system);
    const v::MamfPoint p = *it;
    e.system += (e.system.empty() ? "" : "+") + system;
    e.labels.push_back(accel + " " + shape_label(1, p.m, p.n, p.k));
    e.measured.push_back(p.tflops);
    e.cost.push_back(1e6);
    e.simulate.push_back([&doc, p] { return v::sim_gemm_tflops(doc, p.m, p.n, p.k); });
  }
  e.notes.push_back("best shape of each MAMF row, BF16");
}

void allreduce(Experiment& e, Systems& s, const std::string& system, const std::string& file,
               const Env& env) {
  e.system = system;
  e.metric = "busbw";
  const ConfigDoc& doc = s.get(system);
  size_t capped = 0;
  for (const auto& p : v::load_collective_csv(v::find_input(env, file))) {
    if (p.size_bytes < kMinCollective) continue;
    if (p.size_bytes > kMaxCollective) {
      ++capped;
      continue;
    }
    e.labels.push_back(std::to_string(p.size_bytes) + " B");
    e.measured.push_back(p.busbw_gbps);
    e.cost.push_back(static_cast<double>(p.size_bytes));
    const uint64_t bytes = p.size_bytes;
    e.simulate.push_back([&doc, bytes] { return v::sim_allreduce_busbw(doc, bytes); });
  }
  e.notes.push_back("sizes 1 MiB..1 GiB of " + file + " (capped at 1 GiB to keep it quick; " +
                    std::to_string(capped) + " larger size(s) not run)");
}

void hbm(Experiment& e, const ConfigDoc& doc, const std::vector<v::HbmPoint>& pts) {
  e.metric = "GB/s";
  for (const auto& p : pts) {
    e.labels.push_back(p.pattern + " " + std::to_string(p.bytes) + " B");
    e.measured.push_back(p.gbps);
    e.cost.push_back(static_cast<double>(p.bytes) / 4);
    e.simulate.push_back([&doc, p] { return v::sim_hbm_gbps(doc, p.pattern, p.bytes); });
  }
}

class Plan {
 public:
  Plan(const Env& env, std::string only) : only_(std::move(only)), systems_{env, {}} {}

  // Adds experiment `name` built by `build` (if --only selects it); a failure to build (bad CSV,
  // unknown system) becomes an ERROR row.
  void add(const std::string& name, const std::string& tol_key,
           const std::function<void(Experiment&, Systems&)>& build) {
    names_.push_back(name);
    if (!only_.empty() && name != only_ && name.rfind(only_ + ":", 0) != 0) return;
    Experiment e;
    e.name = name;
    e.tolerance_key = tol_key;
    try {
      build(e, systems_);
    } catch (const std::exception& ex) {
      e.status = "ERROR";
      e.error = ex.what();
      e.simulate.clear();
    }
    exps_.push_back(std::move(e));
  }
  std::vector<Experiment>& experiments() { return exps_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::string only_;
  Systems systems_;
  std::vector<Experiment> exps_;
  std::vector<std::string> names_;
};

void add_measured(Plan& plan, const Env& env, const v::ToleranceFile& tol) {
  const fs::path root = env.source_dir / "validation" / "data";
  std::vector<fs::path> csvs;
  if (fs::is_directory(root)) {
    for (const auto& d : fs::directory_iterator(root)) {
      if (!d.is_directory()) continue;
      for (const auto& f : fs::directory_iterator(d.path())) {
        if (f.path().extension() == ".csv") csvs.push_back(f.path());
      }
    }
  }
  std::sort(csvs.begin(), csvs.end());
  if (csvs.empty()) {
    plan.add("measured-data", "", [](Experiment& e, Systems&) {
      e.system = "-";
      e.status = "NO DATA";
      e.notes.push_back("no measured data (no GPU session yet): validation/data/<machine>/*.csv");
    });
  }
  for (const fs::path& csv : csvs) {
    const std::string machine = csv.parent_path().filename().string();
    const std::string stem = csv.stem().string();
    const bool known = stem == "gemm" || stem == "hbm";
    const std::string name = (known ? "measured-" + stem : std::string("measured-other")) + ":" +
                             machine + (known ? "" : "/" + csv.filename().string());
    plan.add(name, "measured-" + stem, [&, stem, machine, csv](Experiment& e, Systems& s) {
      const auto it = tol.machine_systems.find(machine);
      e.system = it == tol.machine_systems.end() ? "-" : it->second;
      if (!known || it == tol.machine_systems.end()) {
        e.status = "SKIP";
        e.notes.push_back(!known ? "no simulator counterpart for " + csv.filename().string()
                                 : "no system for machine '" + machine +
                                       "' in validation/tolerances.json machine_systems");
        return;
      }
      if (stem == "gemm") {
        e.metric = "TFLOP/s";
        add_gemm_points(e, s.get(e.system), v::load_gemm_csv(csv));
      } else {
        hbm(e, s.get(e.system), v::load_hbm_csv(csv));
      }
      e.notes.push_back(v::display_path(env, csv) + " (measured, not in the calibration set)");
    });
  }
}

void build_plan(Plan& plan, const Env& env, const v::ToleranceFile& tol) {
  plan.add("h100-gemm-xla", "h100-gemm-xla",
           [&](Experiment& e, Systems& s) { xla_gemm(e, s, "dgx-h100", env); });
  if (fs::is_regular_file(env.configs_dir / "systems" / "dgx-h100-calibrated.json")) {
    plan.add("h100-gemm-xla-calibrated", "h100-gemm-xla", [&](Experiment& e, Systems& s) {
      xla_gemm(e, s, "dgx-h100-calibrated", env);
      e.notes.push_back("in-sample: the calibrated efficiency was fitted to these rows");
    });
  }
  plan.add("gemm-mamf", "gemm-mamf", [&](Experiment& e, Systems& s) {
    mamf(e, s, env, {{"NVIDIA A100 SXM", "dgx-a100"}, {"NVIDIA H100 SXM", "dgx-h100"}});
  });
  if (fs::is_regular_file(env.configs_dir / "systems" / "dgx-h100-calibrated.json")) {
    plan.add("h100-mamf-calibrated", "gemm-mamf", [&](Experiment& e, Systems& s) {
      mamf(e, s, env, {{"NVIDIA H100 SXM", "dgx-h100-calibrated"}});
      e.notes.push_back("out-of-sample for the calibration (MAMF was not fitted)");
    });
  }
  plan.add("a100-allreduce", "a100-allreduce", [&](Experiment& e, Systems& s) {
    allreduce(e, s, "dgx-a100", "validation/collectives/a100_8gpu_allreduce.csv", env);
  });
  plan.add("p4de-allreduce", "p4de-allreduce", [&](Experiment& e, Systems& s) {
    allreduce(e, s, "p4de-2node", "validation/collectives/p4de_2node_allreduce.csv", env);
  });
  add_measured(plan, env, tol);
}

// Runs every point of every experiment as one job, largest first; fills simulated/errors/status.
void run_all(std::vector<Experiment>& exps, unsigned threads) {
  struct Job {
    size_t e, p;
    double cost;
  };
  std::vector<Job> jobs;
  for (size_t i = 0; i < exps.size(); ++i) {
    exps[i].simulated.assign(exps[i].simulate.size(), 0);
    for (size_t p = 0; p < exps[i].simulate.size(); ++p) jobs.push_back({i, p, exps[i].cost[p]});
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const Job& a, const Job& b) { return a.cost > b.cost; });
  std::vector<std::string> errors(jobs.size());
  std::vector<double> wall(jobs.size());
  studies::run_parallel(jobs.size(), threads, [&](size_t j) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      exps[jobs[j].e].simulated[jobs[j].p] = exps[jobs[j].e].simulate[jobs[j].p]();
    } catch (const std::exception& ex) {
      errors[j] = exps[jobs[j].e].labels[jobs[j].p] + ": " + ex.what();
    }
    wall[j] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  for (size_t j = 0; j < jobs.size(); ++j) {
    Experiment& e = exps[jobs[j].e];
    e.wall_s += wall[j];
    if (!errors[j].empty() && e.error.empty()) e.error = errors[j], e.status = "ERROR";
  }
  for (Experiment& e : exps) {
    if (!e.status.empty()) continue;
    for (size_t p = 0; p < e.simulated.size(); ++p) {
      e.errors.push_back(v::pct_error(e.simulated[p], e.measured[p]));
    }
  }
}

std::string result_of(const Experiment& e, const v::ToleranceFile& tol) {
  if (!e.status.empty()) return e.status;
  const auto it = tol.experiments.find(e.tolerance_key);
  if (it == tol.experiments.end()) return "NO TOL";
  return v::error_stats(e.errors).median_abs_pct <= it->second.median_abs_pct ? "PASS" : "FAIL";
}

void print_json(const std::vector<Experiment>& exps, const v::ToleranceFile& tol) {
  ordered_json out = ordered_json::array();
  for (const Experiment& e : exps) {
    const v::ErrorStats st = v::error_stats(e.errors);
    ordered_json j;
    j["experiment"] = e.name;
    j["system"] = e.system;
    j["metric"] = e.metric;
    j["points"] = e.status.empty() ? st.points : 0;
    j["median_abs_pct"] = e.status.empty() ? ordered_json(v::round2(st.median_abs_pct)) : nullptr;
    j["max_abs_pct"] = e.status.empty() ? ordered_json(v::round2(st.max_abs_pct)) : nullptr;
    if (const auto it = tol.experiments.find(e.tolerance_key); it != tol.experiments.end()) {
      j["tolerance"] = {{"median_abs_pct", it->second.median_abs_pct},
                        {"source", it->second.source}};
    }
    j["result"] = result_of(e, tol);
    j["notes"] = e.notes;
    if (!e.error.empty()) j["error"] = e.error;
    j["rows"] = ordered_json::array();
    for (size_t p = 0; p < e.errors.size(); ++p) {
      j["rows"].push_back({{"point", e.labels[p]},
                           {"measured", e.measured[p]},
                           {"simulated", v::round2(e.simulated[p])},
                           {"err_pct", v::round2(e.errors[p])}});
    }
    out.push_back(j);
  }
  std::cout << ordered_json{{"experiments", out}}.dump(2) << "\n";
}

void print_table(const std::vector<Experiment>& exps, const v::ToleranceFile& tol, bool points) {
  std::printf("%-26s %-21s %-8s %6s %12s %10s %10s %-7s %7s\n", "experiment", "system", "metric",
              "points", "median|err|%", "max|err|%", "tolerance", "result", "sim s");
  for (const Experiment& e : exps) {
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
                mx, tl, result_of(e, tol).c_str(), e.wall_s);
  }
  std::printf(
      "\nPASS/FAIL: median |%% error| <= tolerance (information; max is reported, not judged)\n");
  for (const Experiment& e : exps) {
    for (const auto& n : e.notes) std::printf("  %s: %s\n", e.name.c_str(), n.c_str());
    if (!e.error.empty()) std::printf("  %s: ERROR: %s\n", e.name.c_str(), e.error.c_str());
  }
  std::printf("tolerances (validation/tolerances.json):\n");
  std::set<std::string> used;
  for (const Experiment& e : exps) used.insert(e.tolerance_key);
  for (const auto& [name, t] : tol.experiments) {
    if (used.count(name) != 0)
      std::printf("  %s: %g %% - %s\n", name.c_str(), t.median_abs_pct, t.source.c_str());
  }
  if (!points) return;
  for (const Experiment& e : exps) {
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
      "threads", po::value(&threads)->default_value(threads), "worker threads");
  po::variables_map vm;
  if (!parse_options(args, desc, vm, nullptr, "t3sim validate [--only NAME] [--json] [--points]")) {
    return 0;
  }
  const v::ToleranceFile tol =
      v::load_tolerances(env.source_dir / "validation" / "tolerances.json");
  Plan plan(env, only);
  build_plan(plan, env, tol);
  if (plan.experiments().empty()) {
    std::string all;
    for (const auto& n : plan.names()) all += (all.empty() ? "" : ", ") + n;
    throw UsageError("--only: unknown experiment '" + only + "' (experiments: " + all + ")");
  }
  run_all(plan.experiments(), threads);
  if (vm["json"].as<bool>()) {
    print_json(plan.experiments(), tol);
  } else {
    print_table(plan.experiments(), tol, vm["points"].as<bool>());
  }
  const auto& exps = plan.experiments();
  return std::any_of(exps.begin(), exps.end(), [](const Experiment& e) { return !e.error.empty(); })
             ? 1
             : 0;
}

}  // namespace t3sim::cli
