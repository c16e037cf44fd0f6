// The outputs of a systems study (an experiment with a "study" object, e.g.
// configs/experiments/t3-today.json): the per-point table study.csv, points.json, summary.json,
// report.md and two SVG figures. The figures use the paper reproduction's palette (Okabe-Ito per
// mode, tools/plot_t3.py) and are written here, so a study needs no Python.
// Aggregates: speedup % = (T_sequential / T_mode - 1) x 100, geomean over the models of a
// (system, sublayer) and over every point of a system; time shares are sums over a system's points
// of GEMM time and exposed communication (total - GEMM), relative to sequential's total; DRAM
// reduction % = (1 - bytes_mode / bytes_sequential) x 100, geomean over points.
// Contract: every output depends only on the points, never on the thread count or wall time.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "studies/reproduction.h"

namespace t3sim::studies {

// One (system, mode) or (system, sublayer, mode) cell: geomean speedup and time shares.
struct StudyCell {
  double log_speedup = 0;  // sum of log(T_seq / T_mode)
  double max_speedup = 0;  // largest ratio
  size_t n = 0;
  double total_us = 0, gemm_us = 0, exposed_us = 0, seq_total_us = 0;
  double log_dram = 0;  // sum of log(bytes_mode / bytes_seq)
  double max_dram_reduction = -1e300;
  double geomean_pct() const;
  double max_pct() const { return (max_speedup - 1) * 100; }
  double dram_reduction_pct() const;
};

struct StudyTables {
  std::vector<std::string> systems;    // in the experiment's order
  std::vector<std::string> sublayers;  // in the experiment's order
  std::vector<system::Mode> modes;     // the experiment's modes, sequential first
  std::map<std::string, std::map<system::Mode, StudyCell>> by_system;
  std::map<std::pair<std::string, std::string>, std::map<system::Mode, StudyCell>> by_sublayer;
};

StudyTables tabulate_study(const Reproduction& rep);
nlohmann::ordered_json study_summary(const Reproduction& rep, const StudyTables& t);
std::string study_markdown(const Reproduction& rep, const StudyTables& t);
std::string speedup_svg(const Reproduction& rep, const StudyTables& t);
std::string breakdown_svg(const Reproduction& rep, const StudyTables& t);

// Writes study.csv, points.json, summary.json, report.md, speedup.svg, breakdown.svg and run.json.
void write_study(const Reproduction& rep, const std::filesystem::path& dir);

}  // namespace t3sim::studies
