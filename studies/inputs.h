// Inputs shared by studies, probes and the CLI: system loading with --set overrides and a TP
// override, a full bind check of a system document, and resolving a model + sublayer into the
// GEMM shape of one T3 sublayer (2-byte elements).
// Contract: bad names or values throw UsageError/ConfigError naming the input; nothing prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/system/sublayer.h"
#include "models/workload/model_spec.h"
#include "models/workload/sublayer.h"
#include "sim/config.h"
#include "studies/env.h"

namespace t3sim::studies {

// Loads a system by name or path; applies `--set` overrides and, if tp > 0, sets the GPU count
// (on a two-level or leaf-spine fabric: the first tp / gpus_per_node nodes, a whole-node TP group).
ConfigDoc load_system(const Env& env, const std::string& name, const std::vector<std::string>& sets,
                      int tp = 0);

// Builds the system in a scratch simulator for validation (system::BuildFor::kCheck: no links,
// memory for GPU 0 only) and binds its collectives and T3 settings.
void check_system(const ConfigDoc& doc);

struct SublayerChoice {
  workload::ModelSpec model;
  workload::Sublayer sublayer = workload::Sublayer::kFc2;
  workload::Pass pass = workload::Pass::kFwd;
  int64_t tokens = 0;
  system::SublayerSpec spec;
};

// Model name + TP + sublayer name ("op", "fc2", "fc1", "ip") + tokens (0 = model default).
// `origin` is the file the values came from (its errors keep their JSON pointer, "/tp"); "" means
// command-line flags, and an error names the flag ("--tp") instead of a pointer of no file.
SublayerChoice choose_sublayer(const Env& env, const std::string& model, int tp,
                               const std::string& sublayer, int64_t tokens,
                               const std::string& origin = "");

// The pass whose GEMM feeds the all-reduce: OP/FC-2 forward, FC-1/IP backward (input gradient).
workload::Pass ar_pass(workload::Sublayer s);

}  // namespace t3sim::studies
