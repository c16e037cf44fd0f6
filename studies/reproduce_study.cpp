// A systems study's tables, summary.json and the writer of all its files (reproduce_study.h).
#include "studies/reproduce_study.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/atomic_file.h"

namespace t3sim::studies {

using system::Mode;

nlohmann::ordered_json points_json(const Reproduction& rep);  // reproduce_report.cpp

double StudyCell::geomean_pct() const {
  return n == 0 ? 0.0 : (std::exp(log_speedup / static_cast<double>(n)) - 1) * 100;
}

double StudyCell::dram_reduction_pct() const {
  return n == 0 ? 0.0 : (1 - std::exp(log_dram / static_cast<double>(n))) * 100;
}

namespace {

void add(StudyCell& c, const PointResult& p, Mode m) {
  const auto& seq = p.modes.at(Mode::kSequential);
  const auto& r = p.modes.at(m);
  const double ratio = seq.total_us / r.total_us;
  c.log_speedup += std::log(ratio);
  c.max_speedup = c.n == 0 ? ratio : std::max(c.max_speedup, ratio);
  ++c.n;
  c.total_us += r.total_us;
  c.gemm_us += std::min(r.gemm_us, r.total_us);
  c.exposed_us += std::max(0.0, r.total_us - r.gemm_us);
  c.seq_total_us += seq.total_us;
  if (seq.dram_total > 0 && r.dram_total > 0) {
    const double d = static_cast<double>(r.dram_total) / static_cast<double>(seq.dram_total);
    c.log_dram += std::log(d);
    c.max_dram_reduction = std::max(c.max_dram_reduction, (1 - d) * 100);
  }
}

std::string dram_class_header() {
  std::string h;
  for (size_t c = 0; c < common::kNumTrafficClasses; ++c) {
    h += ",dram_" + std::string(common::to_string(static_cast<common::TrafficClass>(c)));
  }
  return h;
}

std::string study_csv(const Reproduction& rep) {
  std::string s =
      "system,model,tp,sublayer,mode,total_us,gemm_us,exposed_us,rs_us,ag_us,speedup_pct,"
      "dram_total" +
      dram_class_header() + "\n";
  for (const auto& p : rep.points) {
    const double seq = p.modes.at(Mode::kSequential).total_us;
    for (Mode m : p.run_modes) {
      const auto& r = p.modes.at(m);
      s += fmt::format("{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.2f},{}", p.system,
                       p.model, p.tp, p.sublayer, system::to_string(m), r.total_us, r.gemm_us,
                       std::max(0.0, r.total_us - r.gemm_us), r.rs_us, r.ag_us,
                       (seq / r.total_us - 1) * 100, r.dram_total);
      for (uint64_t b : r.dram_bytes) s += fmt::format(",{}", b);
      s += "\n";
    }
  }
  return s;
}

}  // namespace

StudyTables tabulate_study(const Reproduction& rep) {
  StudyTables t;
  t.systems = rep.exp.study.systems;
  t.sublayers = rep.exp.study.sublayers;
  t.modes = rep.exp.study.modes;
  for (const auto& p : rep.points) {
    for (Mode m : p.run_modes) {
      add(t.by_system[p.system][m], p, m);
      add(t.by_sublayer[{p.system, p.sublayer}][m], p, m);
    }
  }
  return t;
}

nlohmann::ordered_json study_summary(const Reproduction& rep, const StudyTables& t) {
  nlohmann::ordered_json s;
  s["experiment"] = rep.exp.name;
  s["points"] = rep.points.size();
  nlohmann::ordered_json systems = nlohmann::ordered_json::object();
  for (const auto& sys : t.systems) {
    nlohmann::ordered_json js = nlohmann::ordered_json::object();
    for (const auto& [m, c] : t.by_system.at(sys)) {
      nlohmann::ordered_json jm = {{"geomean_speedup_pct", c.geomean_pct()},
                                   {"max_speedup_pct", c.max_pct()},
                                   {"gemm_share_pct", 100 * c.gemm_us / c.seq_total_us},
                                   {"exposed_share_pct", 100 * c.exposed_us / c.seq_total_us},
                                   {"dram_reduction_pct", c.dram_reduction_pct()}};
      for (const auto& sl : t.sublayers) {
        jm["by_sublayer"][sl] = t.by_sublayer.at({sys, sl}).at(m).geomean_pct();
      }
      js[std::string(system::to_string(m))] = std::move(jm);
    }
    systems[sys] = std::move(js);
  }
  s["systems"] = std::move(systems);
  s["events"] = rep.events;
  return s;
}

void write_study(const Reproduction& rep, const std::filesystem::path& dir) {
  const StudyTables t = tabulate_study(rep);
  const nlohmann::ordered_json summary = study_summary(rep, t);
  write_file_atomic(dir / "study.csv", study_csv(rep));
  write_file_atomic(dir / "points.json", points_json(rep).dump(1) + "\n");
  write_file_atomic(dir / "summary.json", summary.dump(2) + "\n");
  write_file_atomic(dir / "speedup.svg", speedup_svg(rep, t));
  write_file_atomic(dir / "breakdown.svg", breakdown_svg(rep, t));
  const nlohmann::ordered_json run = {
      {"wall_s", rep.wall_s}, {"threads", rep.threads}, {"events", rep.events}};
  write_file_atomic(dir / "run.json", run.dump(2) + "\n");
  write_file_atomic(dir / "report.md", study_markdown(rep, t));
}

}  // namespace t3sim::studies
