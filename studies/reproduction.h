// The study runner behind `t3sim reproduce`: every point of an experiment (the paper's Fig. 16,
// large models and Fig. 6, or a systems study's systems x models x sublayers) becomes a set of
// independent simulation jobs (modes and isolated pieces) run on all cores; results are assembled
// per point (sequential and the ideal modes composed from isolated pieces, the unfused all-gather
// appended to fused modes) and written as CSV/JSON tables, summary.json and report.md. The paper
// reproduction adds a Perfetto trace, and its figures are drawn by tools/plot_t3.py outside this
// library; a systems study writes its figures as SVG itself (reproduce_study.h).
// Contract: outputs depend only on the experiment and configs, never on the thread count.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/system/sublayer.h"
#include "studies/experiment.h"

namespace t3sim::studies {

struct PointResult {
  std::string system;  // the system the point runs on (resolved name or path)
  std::string model;
  int tp = 0;
  std::string sublayer;
  bool large = false;
  int64_t tokens = 0;
  system::SublayerSpec spec;
  std::vector<system::Mode> run_modes;  // the point set's modes that the system can run
  std::map<system::Mode, system::SublayerResult> modes;  // incl. composed ideal modes
  std::map<system::Piece, system::SublayerResult> pieces;
  std::map<uint32_t, system::SublayerResult> cu_split;       // by AR CUs
  std::map<system::Mode, system::SublayerResult> timelines;  // Fig. 17 runs (HBM timeline kept)
};

struct AblationResult {
  AblationVariant variant;
  std::vector<PointResult> points;  // the Fig. 16 points under the variant
};

struct Reproduction {
  Experiment exp;
  std::vector<PointResult> points;
  std::filesystem::path dir;  // where the tables were written
  size_t runs = 0;            // simulation jobs run
  double wall_s = 0;          // from reading the experiment to the last table written
  uint64_t events = 0;
  unsigned threads = 1;
  std::vector<AblationResult> ablation;  // one per experiment variant, when requested
};

struct ReproductionRequest {
  std::filesystem::path experiment;  // kind "experiment"; empty = configs/experiments/t3-paper.json
  std::filesystem::path out;         // empty = results/<experiment name>/
  unsigned threads = 0;              // 0 = all cores
  // Called after each finished run (serialised, from worker threads): runs done, runs in all.
  std::function<void(size_t done, size_t total)> progress;
  bool ablation = false;  // also run the experiment's mechanism-ablation variants
};

// Reads the request's experiment and refuses what it cannot do (--ablation on a systems study) with
// a ConfigError, before anything is written; run_reproduction() calls it too.
void check_request(const Env& env, const ReproductionRequest& request);

// Reads the experiment, runs every job, assembles the points and writes the tables into the
// output directory (created if missing).
Reproduction run_reproduction(const Env& env, const ReproductionRequest& request);

// Writes every table, summary.json and report.md into `dir` (atomic files): the paper's set, or a
// systems study's (reproduce_study.h), by the experiment's kind.
void write_reproduction(const Reproduction& r, const std::filesystem::path& dir);

}  // namespace t3sim::studies
