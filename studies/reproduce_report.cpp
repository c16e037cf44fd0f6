// Tables, summary.json and report.md of the T3 reproduction (see reproduce.h). Speedup % =
// (T_sequential / T_mode - 1) x 100; geomeans are taken over the ratios.
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "sim/atomic_file.h"
#include "studies/reproduce_study.h"
#include "studies/reproduction.h"

namespace t3sim::studies {
namespace {

using system::Mode;

struct Agg {
  double log_sum = 0;
  double max = -1e300;
  size_t n = 0;
  void add(double ratio) {
    log_sum += std::log(ratio);
    max = std::max(max, ratio);
    ++n;
  }
  double geomean() const { return n ? std::exp(log_sum / static_cast<double>(n)) : 0.0; }
};

double speedup_ratio(const PointResult& p, Mode m) {
  return p.modes.at(Mode::kSequential).total_us / p.modes.at(m).total_us;
}

std::string class_header() {
  std::string h;
  for (size_t c = 0; c < common::kNumTrafficClasses; ++c) {
    h += "," + std::string(common::to_string(static_cast<common::TrafficClass>(c)));
  }
  return h;
}

std::string mode_rows(const std::vector<const PointResult*>& pts) {
  std::string s = "model,tp,sublayer,mode,total_us,gemm_us,rs_us,rs_exposed_us,ag_us,speedup_pct\n";
  for (const auto* p : pts) {
    for (const auto& [m, r] : p->modes) {
      s += fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.2f}\n", p->model, p->tp,
                       p->sublayer, system::to_string(m), r.total_us, r.gemm_us, r.rs_us,
                       r.rs_exposed_us, r.ag_us, (speedup_ratio(*p, m) - 1) * 100);
    }
  }
  return s;
}

nlohmann::ordered_json mode_summary(const std::vector<const PointResult*>& pts) {
  std::map<Mode, Agg> agg;
  for (const auto* p : pts) {
    for (const auto& [m, r] : p->modes) {
      if (m != Mode::kSequential) agg[m].add(speedup_ratio(*p, m));
    }
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [m, a] : agg) {
    j[std::string(system::to_string(m))] = {{"geomean_speedup_pct", (a.geomean() - 1) * 100},
                                            {"max_speedup_pct", (a.max - 1) * 100}};
  }
  return j;
}

nlohmann::ordered_json data_movement(const std::vector<const PointResult*>& pts, std::string& csv) {
  Agg total, rs_read;
  double max_red = 0;
  csv = "model,tp,sublayer,mode" + class_header() + ",total\n";
  const auto rs = static_cast<size_t>(common::TrafficClass::kRsRead);
  for (const auto* p : pts) {
    const auto& seq = p->modes.at(Mode::kSequential);
    const auto& mca = p->modes.at(Mode::kT3Mca);
    for (const auto* r : {&seq, &mca}) {
      csv += fmt::format("{},{},{},{}", p->model, p->tp, p->sublayer, system::to_string(r->mode));
      for (uint64_t b : r->dram_bytes) csv += fmt::format(",{}", b);
      csv += fmt::format(",{}\n", r->dram_total);
    }
    const double ratio = static_cast<double>(mca.dram_total) / static_cast<double>(seq.dram_total);
    total.add(ratio);
    max_red = std::max(max_red, (1 - ratio) * 100);
    if (mca.dram_bytes[rs] > 0) {
      rs_read.add(static_cast<double>(seq.dram_bytes[rs]) /
                  static_cast<double>(mca.dram_bytes[rs]));
    }
  }
  return {{"geomean_reduction_pct", (1 - total.geomean()) * 100},
          {"max_reduction_pct", max_red},
          {"rs_read_reduction_x", rs_read.geomean()}};
}

nlohmann::ordered_json fig6(const Reproduction& rep, std::string& csv) {
  std::map<uint32_t, Agg> cu;
  Agg ideal;
  csv = "model,tp,sublayer,gemm_us,ar_us,ideal_x";
  for (uint32_t c : rep.exp.ar_cus) csv += fmt::format(",cu{}_x", c);
  csv += "\n";
  for (const auto& p : rep.points) {
    if (p.large || p.cu_split.empty()) continue;
    const double g = p.pieces.at(system::Piece::kGemm).total_us;
    const double ar = p.pieces.at(system::Piece::kArCu).total_us;
    ideal.add((g + ar) / std::max(g, ar));
    csv += fmt::format("{},{},{},{:.3f},{:.3f},{:.4f}", p.model, p.tp, p.sublayer, g, ar,
                       (g + ar) / std::max(g, ar));
    for (const auto& [c, r] : p.cu_split) {
      cu[c].add((g + ar) / r.total_us);
      csv += fmt::format(",{:.4f}", (g + ar) / r.total_us);
    }
    csv += "\n";
  }
  nlohmann::ordered_json j;
  j["ideal_x"] = ideal.geomean();
  for (const auto& [c, a] : cu) j[fmt::format("cu{}_x", c)] = a.geomean();
  return j;
}

std::string fig17(const Reproduction& rep) {
  std::string s = "mode,t_us" + class_header() + "\n";
  for (const auto& p : rep.points) {
    for (const auto& [m, r] : p.timelines) {
      for (size_t b = 0; b < r.timeline.size(); ++b) {
        s += fmt::format("{},{:.2f}", system::to_string(m),
                         (static_cast<double>(b) + 0.5) * r.timeline_bin_us);
        for (uint64_t bytes : r.timeline[b]) {
          s += fmt::format(",{:.3f}", static_cast<double>(bytes) / (r.timeline_bin_us * 1e3));
        }
        s += "\n";
      }
    }
  }
  return s;
}

// One row of the mechanism ablation: Fig. 16 geomeans, the DRAM-traffic rows and the GEMM-read
// reduction (sequential / t3-mca GEMM reads, geomean over points).
nlohmann::ordered_json ablation_row(const std::string& name, const std::string& description,
                                    const std::vector<const PointResult*>& pts) {
  std::string unused;
  Agg gemm_read;
  const auto gr = static_cast<size_t>(common::TrafficClass::kGemmRead);
  for (const auto* p : pts) {
    const auto& seq = p->modes.at(Mode::kSequential);
    const auto& mca = p->modes.at(Mode::kT3Mca);
    if (mca.dram_bytes[gr] > 0) {
      gemm_read.add(static_cast<double>(seq.dram_bytes[gr]) /
                    static_cast<double>(mca.dram_bytes[gr]));
    }
  }
  return {{"variant", name},
          {"description", description},
          {"fig16", mode_summary(pts)},
          {"data_movement", data_movement(pts, unused)},
          {"gemm_read_reduction_x", gemm_read.geomean()}};
}

nlohmann::ordered_json ablation(const Reproduction& rep,
                                const std::vector<const PointResult*>& f16) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  rows.push_back(ablation_row("all mechanisms", "the shipped configuration", f16));
  for (const auto& a : rep.ablation) {
    std::vector<const PointResult*> pts;
    for (const auto& p : a.points) pts.push_back(&p);
    auto row = ablation_row(a.variant.name, a.variant.description, pts);
    row["set"] = a.variant.set;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

// Every point with every mode's result (the run's wall time left out: the file is deterministic);
// a systems study's points also name their system.
nlohmann::ordered_json points_json(const Reproduction& rep) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& p : rep.points) {
    nlohmann::ordered_json jp;
    if (rep.exp.kind == StudyKind::kSystems) jp["system"] = p.system;
    const nlohmann::ordered_json fields = {
        {"model", p.model},       {"tp", p.tp},
        {"sublayer", p.sublayer}, {"large", p.large},
        {"tokens", p.tokens},     {"gemm", {p.spec.shape.m, p.spec.shape.n, p.spec.shape.k}}};
    for (const auto& [k, v] : fields.items()) jp[k] = v;
    for (const auto& [m, r] : p.modes) {
      auto jr = system::to_json(r);
      jr.erase("wall_s");  // keep the file deterministic
      jp["modes"][std::string(system::to_string(m))] = std::move(jr);
    }
    all.push_back(std::move(jp));
  }
  return all;
}

nlohmann::ordered_json e2e_summary(const Reproduction& rep, std::string& csv);
std::string report_markdown(const Reproduction& rep, const nlohmann::ordered_json& summary);

void write_reproduction(const Reproduction& rep, const std::filesystem::path& dir) {
  if (rep.exp.kind == StudyKind::kSystems) {
    write_study(rep, dir);
    return;
  }
  std::vector<const PointResult*> f16, large;
  for (const auto& p : rep.points) (p.large ? large : f16).push_back(&p);
  nlohmann::ordered_json summary;
  summary["experiment"] = rep.exp.name;
  summary["fig16"] = mode_summary(f16);
  std::string dm_csv, f6_csv, e2e_csv;
  summary["data_movement"] = data_movement(f16, dm_csv);
  summary["large_models"] = mode_summary(large);
  summary["fig6"] = fig6(rep, f6_csv);
  summary["e2e"] = e2e_summary(rep, e2e_csv);
  if (!rep.ablation.empty()) summary["ablation"] = ablation(rep, f16);
  summary["events"] = rep.events;  // wall time and threads: run.json (they differ run to run)
  write_file_atomic(dir / "fig16.csv", mode_rows(f16));
  write_file_atomic(dir / "large_models.csv", mode_rows(large));
  write_file_atomic(dir / "fig18.csv", dm_csv);
  write_file_atomic(dir / "fig6.csv", f6_csv);
  write_file_atomic(dir / "fig17.csv", fig17(rep));
  write_file_atomic(dir / "e2e.csv", e2e_csv);
  write_file_atomic(dir / "points.json", points_json(rep).dump(1) + "\n");
  write_file_atomic(dir / "summary.json", summary.dump(2) + "\n");
  // The run log: what differs between runs of the same input, kept out of the results files so
  // they are byte-identical for any thread count.
  const nlohmann::ordered_json run = {
      {"wall_s", rep.wall_s}, {"threads", rep.threads}, {"events", rep.events}};
  write_file_atomic(dir / "run.json", run.dump(2) + "\n");
  write_file_atomic(dir / "report.md", report_markdown(rep, summary));
}

}  // namespace t3sim::studies
