// The reproduction's experiment document (kind "experiment", e.g.
// configs/experiments/t3-paper.json): which models, TP degrees, sublayers and modes make up Fig. 16
// and the large-model study, the CU splits of Fig. 6, the Fig. 17 point, the end-to-end
// projection's non-sliced share, the system-name template, the paper's numbers for the report and
// the mechanism-ablation variants.
// Read strictly (Params + bind).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/system/mode.h"
#include "sim/config.h"
#include "tools/studies/env.h"

namespace t3sim::studies {

struct PointSet {
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

struct Experiment {
  std::string name;
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

}  // namespace t3sim::studies
