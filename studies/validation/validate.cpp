#include "studies/validation/validate.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>

#include "sim/errors.h"
#include "studies/inputs.h"
#include "studies/parallel.h"

namespace t3sim::validation {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using studies::Env;
using studies::load_system;

constexpr uint64_t kMinCollective = uint64_t{1} << 20;
constexpr uint64_t kMaxCollective = uint64_t{1} << 30;

std::string shape_label(uint64_t b, uint64_t m, uint64_t n, uint64_t k) {
  return (b > 1 ? std::to_string(b) + "x" : "") + std::to_string(m) + "x" + std::to_string(n) +
         "x" + std::to_string(k);
}

void add_gemm_points(SetRun& e, const ConfigDoc& sys, const std::vector<GemmPoint>& pts) {
  for (const auto& p : pts) {
    e.labels.push_back(p.dtype + " " + shape_label(p.batch, p.m, p.n, p.k));
    e.measured.push_back(p.tflops);
    e.cost.push_back(1e6);
    e.simulate.push_back(
        [&sys, p] { return sim_gemm_tflops(sys, p.m, p.n, p.k, p.batch, precision_of(p)); });
    if (p.batch > 1) {
      e.notes.push_back("line " + std::to_string(p.line) + " (b=" + std::to_string(p.batch) +
                        ") runs as one kernel of " + std::to_string(p.batch) + " products");
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

void xla_gemm(SetRun& e, Systems& s, const std::string& system, const Env& env,
              bool fp32_column = false) {
  e.system = system;
  e.metric = "TFLOP/s";
  const fs::path csv = find_input(env, "validation/gemm/h100_xla_bf16.csv");
  add_gemm_points(e, s.get(system), load_gemm_csv(csv, fp32_column));
  e.notes.push_back(
      std::string(fp32_column ? "FP32 column (run as TF32, not fitted)" : "BF16 column") + " of " +
      display_path(env, csv) + "; kernel time as t3sim gemm");
}

void mamf(SetRun& e, Systems& s, const Env& env,
          const std::vector<std::pair<std::string, std::string>>& accel_system) {
  e.metric = "TFLOP/s";
  const auto rows = load_mamf_csv(find_input(env, "validation/gemm/mamf.csv"));
  for (const auto& [accel, system] : accel_system) {
    const auto it = std::find_if(rows.begin(), rows.end(),
                                 [&a = accel](const MamfPoint& p) { return p.accelerator == a; });
    if (it == rows.end())
      throw ConfigError("validation/gemm/mamf.csv", "", "no row '" + accel + "'");
    const ConfigDoc& doc = s.get(system);
    const MamfPoint p = *it;
    e.system += (e.system.empty() ? "" : "+") + system;
    e.labels.push_back(accel + " " + shape_label(1, p.m, p.n, p.k));
    e.measured.push_back(p.tflops);
    e.cost.push_back(1e6);
    e.simulate.push_back([&doc, p] { return sim_gemm_tflops(doc, p.m, p.n, p.k); });
  }
  e.notes.push_back("best shape of each MAMF row, BF16");
}

void allreduce(SetRun& e, Systems& s, const std::string& system, const std::string& file,
               const Env& env) {
  e.system = system;
  e.metric = "busbw";
  const ConfigDoc& doc = s.get(system);
  size_t capped = 0;
  for (const auto& p : load_collective_csv(find_input(env, file))) {
    if (p.size_bytes < kMinCollective) continue;
    if (p.size_bytes > kMaxCollective) {
      ++capped;
      continue;
    }
    e.labels.push_back(std::to_string(p.size_bytes) + " B");
    e.measured.push_back(p.busbw_gbps);
    e.cost.push_back(static_cast<double>(p.size_bytes));
    const uint64_t bytes = p.size_bytes;
    e.simulate.push_back([&doc, bytes] { return sim_allreduce_busbw(doc, bytes); });
  }
  e.notes.push_back("sizes 1 MiB..1 GiB of " + file + " (capped at 1 GiB to keep it quick; " +
                    std::to_string(capped) + " larger size(s) not run)");
}

void hbm(SetRun& e, const ConfigDoc& doc, const std::vector<HbmPoint>& pts) {
  e.metric = "GB/s";
  for (const auto& p : pts) {
    e.labels.push_back(p.pattern + " " + std::to_string(p.bytes) + " B");
    e.measured.push_back(p.gbps);
    e.cost.push_back(static_cast<double>(p.bytes) / 4);
    e.simulate.push_back([&doc, p] { return sim_hbm_gbps(doc, p.pattern, p.bytes); });
  }
}

// GEMM slowdown (%) while another kernel holds SMs; errors in points of slowdown.
void sharing(SetRun& e, const ConfigDoc& doc, const std::vector<SharingPoint>& pts) {
  e.metric = "slowdown %";
  e.points_error = true;
  for (const auto& p : pts) {
    e.labels.push_back(p.label);
    e.measured.push_back(p.slowdown_pct);
    e.cost.push_back(static_cast<double>(p.m * p.n * p.k) / 1e6);
    e.simulate.push_back([&doc, p] { return sim_gemm_slowdown_pct(doc, p); });
  }
  e.notes.push_back("errors are points of slowdown (simulated - measured), not relative %");
  e.notes.push_back(
      "the other kernel holds its SMs (busy for the power model, except hold_bench's single "
      "spinning thread) and streams its memory traffic (copy, read, reduction; none for spin and "
      "hold) through GPU 0's memory system and its L2, where it takes capacity from the GEMM's "
      "data (evict-first variants hold about one granule)");
  const auto fixed = std::count_if(pts.begin(), pts.end(),
                                   [](const SharingPoint& p) { return steady_clock_mhz(p) > 0; });
  if (fixed > 0) {
    e.notes.push_back(std::to_string(fixed) + " of " + std::to_string(pts.size()) +
                      " rows measured the same SM clock alone and held (within 2 %, a GPU not "
                      "power-limited): both runs simulated at that clock without the power model");
  }
}

// The SM clock of sustained runs against NVML's reading (the power model).
void clocks(SetRun& e, const ConfigDoc& doc, const std::vector<ClockPoint>& pts) {
  e.metric = "SM clock MHz";
  for (const auto& p : pts) {
    e.labels.push_back(p.label);
    e.measured.push_back(p.clock_mhz);
    e.cost.push_back(static_cast<double>(p.run.m * p.run.n * p.run.k) / 1e6);
    e.simulate.push_back([&doc, p] { return sim_gemm_clock_mhz(doc, p); });
  }
  e.notes.push_back("the clock is averaged over the simulated GEMM (power controller, gpu.power)");
}

// A GEMM's DRAM read bytes against Nsight Compute's count.
void gemm_memory(SetRun& e, const ConfigDoc& doc, const std::vector<GemmMemoryPoint>& pts) {
  e.metric = "DRAM read MB";
  for (const auto& p : pts) {
    e.labels.push_back(std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k));
    e.measured.push_back(p.read_mb);
    e.cost.push_back(static_cast<double>(p.m * p.n * p.k) / 1e6);
    e.simulate.push_back([&doc, p] { return sim_gemm_read_mb(doc, p); });
  }
}

class Plan {
 public:
  Plan(const Env& env, std::string only) : only_(std::move(only)), systems_{env, {}} {}

  // Adds experiment `name` built by `build` (if --only selects it); a failure to build (bad CSV,
  // unknown system) becomes an ERROR row.
  void add(const std::string& name, const std::string& tol_key,
           const std::function<void(SetRun&, Systems&)>& build) {
    names_.push_back(name);
    if (!only_.empty() && name != only_ && name.rfind(only_ + ":", 0) != 0) return;
    SetRun e;
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
  std::vector<SetRun>& experiments() { return exps_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::string only_;
  Systems systems_;
  std::vector<SetRun> exps_;
  std::vector<std::string> names_;
};

void add_measured(Plan& plan, const Env& env, const ToleranceFile& tol) {
  // validation/data/<machine>/*.csv and, for re-runs on the same machine, one level of dated
  // subfolders (validation/data/<machine>/<date>/*.csv): their folder is "<machine>/<date>", which
  // is in the calibration set only where validation/tolerances.json lists it.
  const fs::path root = env.source_dir / "validation" / "data";
  std::vector<fs::path> csvs;
  const auto add_csvs = [&csvs](const fs::path& dir) {
    for (const auto& f : fs::directory_iterator(dir)) {
      if (f.path().extension() == ".csv") csvs.push_back(f.path());
    }
  };
  if (fs::is_directory(root)) {
    for (const auto& d : fs::directory_iterator(root)) {
      if (!d.is_directory()) continue;
      add_csvs(d.path());
      for (const auto& sub : fs::directory_iterator(d.path())) {
        if (sub.is_directory()) add_csvs(sub.path());
      }
    }
  }
  std::sort(csvs.begin(), csvs.end());
  if (csvs.empty()) {
    plan.add("measured-data", "", [](SetRun& e, Systems&) {
      e.system = "-";
      e.status = "NO DATA";
      e.notes.push_back("no measured data yet: validation/data/<machine>/*.csv");
    });
  }
  for (const fs::path& csv : csvs) {
    const fs::path dir = csv.parent_path();
    const bool rerun = dir.parent_path().filename() != "data";
    // The machine (its system) and the folder (its calibration status).
    const std::string machine =
        rerun ? dir.parent_path().filename().string() : dir.filename().string();
    const std::string folder =
        rerun ? machine + "/" + dir.filename().string() : dir.filename().string();
    const std::string stem = csv.stem().string();
    // Sets by file name: gemm, hbm, the GEMM-with-SMs-held sets (contention_bench files and the
    // concurrency probe) and the Nsight DRAM-bytes rows.
    const std::string kind = stem.rfind("contention", 0) == 0              ? "contention"
                             : stem.rfind("gemm-under-concurrent", 0) == 0 ? "concurrency"
                             : stem.rfind("gemm-memory", 0) == 0           ? "gemm-memory"
                             : stem.rfind("sustained-clock", 0) == 0       ? "sustained-clock"
                             : stem.rfind("hold", 0) == 0                  ? "hold"
                             : stem.rfind("gemm-", 0) == 0                 ? "gemm"
                                                                           : stem;
    const bool known = kind == "gemm" || kind == "hbm" || kind == "contention" ||
                       kind == "concurrency" || kind == "gemm-memory" ||
                       kind == "sustained-clock" || kind == "hold";
    const bool one_of_kind = kind == stem;
    const std::string name = (known ? "measured-" + kind : std::string("measured-other")) + ":" +
                             folder + (known && one_of_kind ? "" : "/" + csv.filename().string());
    plan.add(name, "measured-" + kind, [&, kind, machine, folder, csv](SetRun& e, Systems& s) {
      const auto it = tol.machine_systems.find(machine);
      e.system = it == tol.machine_systems.end() ? "-" : it->second;
      if (!known || it == tol.machine_systems.end()) {
        e.status = "SKIP";
        e.notes.push_back(!known ? "no simulator counterpart for " + csv.filename().string()
                                 : "no system for machine '" + machine +
                                       "' in validation/tolerances.json machine_systems");
        return;
      }
      if (kind == "gemm") {
        e.metric = "TFLOP/s";
        add_gemm_points(e, s.get(e.system), load_gemm_csv(csv));
      } else if (kind == "hbm") {
        hbm(e, s.get(e.system), load_hbm_csv(csv));
      } else if (kind == "gemm-memory") {
        gemm_memory(e, s.get(e.system), load_gemm_memory_csv(csv));
      } else if (kind == "sustained-clock") {
        clocks(e, s.get(e.system), load_clock_csv(csv));
      } else {
        std::vector<std::string> left_out;
        sharing(e, s.get(e.system),
                kind == "contention" ? load_contention_csv(csv)
                : kind == "hold"     ? load_hold_csv(csv)
                                     : load_concurrency_csv(csv, &left_out));
        for (const std::string& row : left_out) {
          e.notes.push_back("left out: " + row + ", a background that holds no counted SMs");
        }
      }
      e.notes.push_back(
          display_path(env, csv) +
          (tol.calibration_machines.contains(folder)
               ? " (measured; calibration set: " + tol.calibration_machines.at(folder) + ")"
               : " (measured, not in the calibration set)"));
    });
  }
}

void build_plan(Plan& plan, const Env& env, const ToleranceFile& tol) {
  plan.add("h100-gemm-xla", "h100-gemm-xla",
           [&](SetRun& e, Systems& s) { xla_gemm(e, s, "dgx-h100", env); });
  if (fs::is_regular_file(env.configs_dir / "systems" / "dgx-h100-calibrated.json")) {
    plan.add("h100-gemm-xla-calibrated", "h100-gemm-xla", [&](SetRun& e, Systems& s) {
      xla_gemm(e, s, "dgx-h100-calibrated", env);
      e.notes.push_back("in-sample: the calibrated efficiency was fitted to these rows");
    });
  }
  plan.add("gemm-mamf", "gemm-mamf", [&](SetRun& e, Systems& s) {
    mamf(e, s, env,
         {{"NVIDIA A100 SXM", "dgx-a100"},
          {"NVIDIA H100 SXM", "dgx-h100"},
          {"AMD MI300X", "mi300x-8"}});
  });
  plan.add("h100-gemm-xla-tf32", "h100-gemm-xla",
           [&](SetRun& e, Systems& s) { xla_gemm(e, s, "dgx-h100", env, true); });
  if (fs::is_regular_file(env.configs_dir / "systems" / "dgx-h100-calibrated.json")) {
    plan.add("h100-mamf-calibrated", "gemm-mamf", [&](SetRun& e, Systems& s) {
      mamf(e, s, env, {{"NVIDIA H100 SXM", "dgx-h100-calibrated"}});
      e.notes.push_back("out-of-sample for the calibration (MAMF was not fitted)");
    });
  }
  plan.add("a100-allreduce", "a100-allreduce", [&](SetRun& e, Systems& s) {
    allreduce(e, s, "dgx-a100", "validation/collectives/a100_8gpu_allreduce.csv", env);
  });
  plan.add("p4de-allreduce", "p4de-allreduce", [&](SetRun& e, Systems& s) {
    allreduce(e, s, "p4de-2node", "validation/collectives/p4de_2node_allreduce.csv", env);
  });
  add_measured(plan, env, tol);
}

// Runs every point of every experiment as one job, largest first; fills simulated/errors/status.
void run_all(std::vector<SetRun>& exps, unsigned threads,
             const std::function<void(size_t, size_t)>& progress) {
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
  studies::run_parallel(
      jobs.size(), threads,
      [&](size_t j) {
        const auto t0 = std::chrono::steady_clock::now();
        try {
          exps[jobs[j].e].simulated[jobs[j].p] = exps[jobs[j].e].simulate[jobs[j].p]();
        } catch (const std::exception& ex) {
          errors[j] = exps[jobs[j].e].labels[jobs[j].p] + ": " + ex.what();
        }
        wall[j] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      },
      [&, finished = size_t{0}](size_t) mutable {
        if (progress) progress(++finished, jobs.size());
      });
  for (size_t j = 0; j < jobs.size(); ++j) {
    SetRun& e = exps[jobs[j].e];
    e.wall_s += wall[j];
    if (!errors[j].empty() && e.error.empty()) e.error = errors[j], e.status = "ERROR";
  }
  for (SetRun& e : exps) {
    if (!e.status.empty()) continue;
    for (size_t p = 0; p < e.simulated.size(); ++p) {
      e.errors.push_back(e.points_error ? e.simulated[p] - e.measured[p]
                                        : pct_error(e.simulated[p], e.measured[p]));
    }
  }
}

}  // namespace

ValidateResult run_validation(const studies::Env& env, const ValidateRequest& req) {
  ValidateResult r;
  r.tolerances = load_tolerances(env.source_dir / "validation" / "tolerances.json");
  Plan plan(env, req.only);
  build_plan(plan, env, r.tolerances);
  if (plan.experiments().empty()) {
    std::string all;
    for (const auto& n : plan.names()) all += (all.empty() ? "" : ", ") + n;
    throw UsageError("--only: unknown experiment '" + req.only + "' (experiments: " + all + ")");
  }
  run_all(plan.experiments(), req.threads, req.progress);
  r.sets = std::move(plan.experiments());
  for (SetRun& e : r.sets) e.simulate.clear();  // they refer to the plan's system documents
  return r;
}

std::string result_of(const SetRun& e, const ToleranceFile& tol) {
  if (!e.status.empty()) return e.status;
  const auto it = tol.experiments.find(e.tolerance_key);
  if (it == tol.experiments.end()) return "NO TOL";
  return error_stats(e.errors).median_abs_pct <= it->second.median_abs_pct ? "PASS" : "FAIL";
}

nlohmann::ordered_json validation_json(const ValidateResult& r) {
  const ToleranceFile& tol = r.tolerances;
  ordered_json out = ordered_json::array();
  for (const SetRun& e : r.sets) {
    const ErrorStats st = error_stats(e.errors);
    ordered_json j;
    j["experiment"] = e.name;
    j["system"] = e.system;
    j["metric"] = e.metric;
    j["points"] = e.status.empty() ? st.points : 0;
    j["median_abs_pct"] = e.status.empty() ? ordered_json(round2(st.median_abs_pct)) : nullptr;
    j["max_abs_pct"] = e.status.empty() ? ordered_json(round2(st.max_abs_pct)) : nullptr;
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
                           {"simulated", round2(e.simulated[p])},
                           {"err_pct", round2(e.errors[p])}});
    }
    out.push_back(j);
  }
  return ordered_json{{"experiments", out}};
}

}  // namespace t3sim::validation
