// The T3 reproduction: every point of Fig. 16, the large models and Fig. 6 becomes a set of
// independent simulation jobs (modes and isolated pieces) run on all cores; results are assembled
// per point and written as CSV/JSON tables, summary.json, report.md, a Perfetto trace and PNGs.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "cli/experiment.h"
#include "models/system/sublayer.h"

namespace t3sim::cli {

struct PointResult {
  std::string model;
  int tp = 0;
  std::string sublayer;
  bool large = false;
  int64_t tokens = 0;
  system::SublayerSpec spec;
  std::map<system::Mode, system::SublayerResult> modes;  // incl. composed ideal modes
  std::map<system::Piece, system::SublayerResult> pieces;
  std::map<uint32_t, system::SublayerResult> cu_split;       // by AR CUs
  std::map<system::Mode, system::SublayerResult> timelines;  // Fig. 17 runs (HBM timeline kept)
};

struct Reproduction {
  Experiment exp;
  std::vector<PointResult> points;
  double wall_s = 0;
  uint64_t events = 0;
  unsigned threads = 1;
};

// Writes every table, summary.json and report.md into `dir` (atomic files).
void write_reproduction(const Reproduction& r, const std::filesystem::path& dir);

}  // namespace t3sim::cli
