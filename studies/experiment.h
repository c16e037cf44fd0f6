// An experiment document (kind "experiment", configs/experiments/). Two kinds of study share the
// runner: the paper reproduction (configs/experiments/t3-paper.json: which models, TP degrees,
// sublayers and modes make up Fig. 16 and the large-model study, the CU splits of Fig. 6, the
// Fig. 17 point, the end-to-end projection's non-sliced share, the system-name template, the
// paper's numbers for the report and the mechanism-ablation variants), and a systems study
// (configs/experiments/t3-today.json: one point set, {systems x models x TP x sublayers x modes}).
// A document has either a "study" object or the paper's sections, never both. Read strictly
// (Params + bind); a mode a system cannot run (mode_runs_on) is left out
// of that system's points, not an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/mode.h"
#include "sim/config.h"
#include "studies/env.h"

namespace t3sim::studies {

struct PointSet {
  std::vector<std::string> systems;  // a systems study's machines; empty: the experiment template
  std::vector<std::string> models;
  std::vector<int> tp;
  std::vector<std::string> sublayers;
  std::vector<system::Mode> modes;
};

// One row of the mechanism ablation: the Fig. 16 points re-run with `set` overrides ("path=value")
// applied to every system, to show how one modelled mechanism moves the results.
struct AblationVariant {
  std::string name;
  std::string description;
  std::vector<std::string> set;
};

enum class StudyKind : uint8_t {
  kPaper,    // the T3 paper's figures (fig16, large_models, fig6, fig17, e2e, paper)
  kSystems,  // one point set over named systems ("study")
};

struct Experiment {
  std::string name;
  StudyKind kind = StudyKind::kPaper;
  std::string description;
  PointSet study;               // kSystems: the point set
  std::string system_template;  // "{tp}" is replaced by the TP degree
  PointSet fig16;
  PointSet large;
  std::vector<uint32_t> ar_cus;  // Fig. 6 CU splits
  std::string fig17_model;
  int fig17_tp = 8;
  std::string fig17_sublayer;
  double non_sliced_share = 0.42;
  uint64_t seed = 1;
  nlohmann::json paper;                   // the paper's numbers, for report.md and summary targets
  std::vector<AblationVariant> ablation;  // run only when the request asks for it
};

Experiment read_experiment(const Env& env, const ConfigDoc& doc);
std::string system_for(const Experiment& e, int tp);
// Whether `system` (a resolved system document) can run mode `m`: a mode composed with the NMC
// reduce-scatter piece (ideal-nmc) needs "nmc": true (DMA engines reduce only by NMC UPDATEs), and
// a mode whose reduce-scatter is reduced in the switch (t3-nvls) needs a packet-model NVSwitch
// with reduce_bandwidth.
bool mode_runs_on(const ConfigDoc& system, system::Mode m);

}  // namespace t3sim::studies
