// Helpers shared by the CLI subcommands: option parsing with Boost.Program_options (unknown
// options and stray arguments are usage errors), system loading with --set overrides and a TP
// override, and resolving a model + sublayer into a GEMM shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "models/system/sublayer.h"
#include "models/workload/model_spec.h"
#include "models/workload/sublayer.h"
#include "sim/config.h"

namespace t3sim::cli {

namespace po = boost::program_options;

// Parses `args` against `desc` (+ positional), prints help and returns false on --help.
bool parse_options(const Args& args, const po::options_description& desc, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr,
                   const char* usage = nullptr);

// Loads a system by name or path; applies `--set` overrides and, if tp > 0, sets the GPU count.
ConfigDoc load_system(const Env& env, const std::string& name, const std::vector<std::string>& sets,
                      int tp = 0);

struct SublayerChoice {
  workload::ModelSpec model;
  workload::Sublayer sublayer = workload::Sublayer::kFc2;
  workload::Pass pass = workload::Pass::kFwd;
  int64_t tokens = 0;
  system::SublayerSpec spec;
};

// Model name + TP + sublayer name ("op", "fc2", "fc1", "ip") + tokens (0 = model default).
SublayerChoice choose_sublayer(const Env& env, const std::string& model, int tp,
                               const std::string& sublayer, int64_t tokens);

// The pass whose GEMM feeds the all-reduce: OP/FC-2 forward, FC-1/IP backward (input gradient).
workload::Pass ar_pass(workload::Sublayer s);

}  // namespace t3sim::cli
