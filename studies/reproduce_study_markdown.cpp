// report.md of a systems study (reproduce_study.h): speedups per system and sublayer, where the
// time goes, DRAM traffic saved by the fused modes, and the bound checks every point must pass.
#include <algorithm>

#include <fmt/format.h>

#include "studies/reproduce_study.h"

namespace t3sim::studies {
namespace {

using system::Mode;

bool fused_mode(Mode m) { return system::mode_spec(m).fused_rs != system::RsFusion::kNone; }

std::string header(const std::vector<Mode>& modes, const std::string& first) {
  std::string h = "| " + first + " |", rule = "|---|";
  for (Mode m : modes) {
    if (m == Mode::kSequential) continue;
    h += fmt::format(" {} |", system::to_string(m));
    rule += "---:|";
  }
  return h + "\n" + rule + "\n";
}

std::string speedup_row(const std::string& label, const std::vector<Mode>& modes,
                        const std::map<Mode, StudyCell>& cells) {
  std::string r = "| " + label + " |";
  for (Mode m : modes) {
    if (m == Mode::kSequential) continue;
    const auto it = cells.find(m);
    r += it == cells.end() ? " - |" : fmt::format(" {:.1f} |", it->second.geomean_pct());
  }
  return r + "\n";
}

std::string speedups(const StudyTables& t) {
  std::string md =
      "## Speedup over sequential (%), geomean over the models\n\n"
      "One row per system and sublayer, then the system's geomean over all its points (bold). "
      "`-`: the system cannot run the mode (t3-nvls needs an NVSwitch that reduces).\n\n";
  md += header(t.modes, "system / sublayer");
  for (const auto& sys : t.systems) {
    for (const auto& sl : t.sublayers) {
      md += speedup_row(sys + " " + sl, t.modes, t.by_sublayer.at({sys, sl}));
    }
    md += speedup_row("**" + sys + "**", t.modes, t.by_system.at(sys));
  }
  return md;
}

std::string time_shares(const StudyTables& t) {
  std::string md =
      "\n## Where the time goes\n\nSums over each system's points, as % of sequential's total: "
      "GEMM (the GEMM kernel's time in the mode, contention included) and exposed communication "
      "(total - GEMM: the reduce-scatter left after the GEMM, and the all-gather).\n\n"
      "| system | mode | GEMM % | exposed communication % | total % |\n|---|---|---:|---:|---:|\n";
  for (const auto& sys : t.systems) {
    for (const auto& [m, c] : t.by_system.at(sys)) {
      md += fmt::format("| {} | {} | {:.1f} | {:.1f} | {:.1f} |\n", sys, system::to_string(m),
                        100 * c.gemm_us / c.seq_total_us, 100 * c.exposed_us / c.seq_total_us,
                        100 * c.total_us / c.seq_total_us);
    }
  }
  return md;
}

std::string dram(const StudyTables& t) {
  std::string md =
      "\n## DRAM traffic saved by the fused modes\n\nHBM bytes over all GPUs, every traffic "
      "class, against sequential: (1 - bytes_mode / bytes_sequential) x 100. The fused modes "
      "write each GEMM output once (an NMC update or a copy into the switch) instead of writing "
      "it, reading it back and writing the sum in a CU reduce-scatter.\n\n"
      "| system | mode | geomean reduction % | max reduction % |\n|---|---|---:|---:|\n";
  for (const auto& sys : t.systems) {
    for (const auto& [m, c] : t.by_system.at(sys)) {
      if (!fused_mode(m)) continue;
      md += fmt::format("| {} | {} | {:.1f} | {:.1f} |\n", sys, system::to_string(m),
                        c.dram_reduction_pct(), c.max_dram_reduction);
    }
  }
  return md;
}

// Counts the points that break a bound the modes' definitions promise (`t3sim modes`).
std::string bounds(const Reproduction& rep) {
  size_t n = 0, ideal_ok = 0, fused_n = 0, fused_ok = 0, beats_seq = 0;
  for (const auto& p : rep.points) {
    ++n;
    const double seq = p.modes.at(Mode::kSequential).total_us;
    if (!p.modes.count(Mode::kIdeal) || p.modes.at(Mode::kIdeal).total_us <= seq * (1 + 1e-9)) {
      ++ideal_ok;
    }
    const double floor = p.pieces.at(system::Piece::kGemm).total_us;
    for (const auto& [m, r] : p.modes) {
      if (!fused_mode(m)) continue;
      ++fused_n;
      if (r.total_us >= floor * 0.99) ++fused_ok;
      if (r.total_us < seq) ++beats_seq;
    }
  }
  return fmt::format(
      "\n## Bounds\n\n| check | points |\n|---|---:|\n"
      "| ideal <= sequential | {} of {} |\n"
      "| fused mode >= the GEMM alone (within 1 %) | {} of {} |\n"
      "| fused mode faster than sequential | {} of {} |\n",
      ideal_ok, n, fused_ok, fused_n, beats_seq, fused_n);
}

}  // namespace

std::string study_markdown(const Reproduction& rep, const StudyTables& t) {
  std::string md = fmt::format("# {}\n\n", rep.exp.name);
  if (!rep.exp.description.empty()) md += rep.exp.description + "\n\n";
  std::string models, tps;
  for (const auto& m : rep.exp.study.models) models += (models.empty() ? "" : ", ") + m;
  for (int tp : rep.exp.study.tp) tps += (tps.empty() ? "" : ", ") + std::to_string(tp);
  md += fmt::format(
      "{} points ({} systems; models {}; TP {}), {} simulated events (wall time and threads: "
      "run.json). Speedup % = (T_sequential / T_mode - 1) x 100. Each model runs its default "
      "token count (seq_len x micro_batch). `t3sim modes` says what each mode runs and what it "
      "bounds; docs/studies.md says how to read this report.\n\n",
      rep.points.size(), t.systems.size(), models, tps, rep.events);
  md += speedups(t) + time_shares(t) + dram(t) + bounds(rep);
  md +=
      "\n## Files\n\nstudy.csv (one row per point and mode, DRAM bytes per class), points.json, "
      "summary.json; figures speedup.svg and breakdown.svg.\n";
  return md;
}

}  // namespace t3sim::studies
