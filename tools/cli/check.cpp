// `t3sim check FILE...`: validates config files strictly (unknown keys, missing keys, units,
// ranges, "extends"). Dispatch: the document's "kind" (system, model, experiment, sweep, run) or,
// for presets without a kind, the preset folder (presets/gpus, presets/hbm, presets/links).
// Exit 0 if all pass; otherwise the first error as `FILE: /json/pointer: message`, exit 2.
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "cli/validators.h"
#include "models/collectives/library.h"
#include "models/fabric/specs.h"
#include "models/gpu/gpu_spec.h"
#include "models/hbm/hbm_config.h"
#include "models/system/system.h"
#include "models/tracker/tracker.h"
#include "models/workload/model_spec.h"
#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::cli {
namespace {}  // namespace

void check_system_doc(const ConfigDoc& doc) {
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc));  // binds collectives and t3 settings too
}

namespace {

Params link_family(const nlohmann::json& j) {
  if (j.contains("port_bandwidth") && j.contains("ports")) return fabric::switch_params();
  if (j.contains("port_bandwidth")) return fabric::ib_switch_params();
  if (j.contains("efficiency")) return fabric::nic_params();
  return fabric::link_params();
}

void check_preset(const ConfigDoc& doc, const std::filesystem::path& path) {
  const std::string dir = path.parent_path().filename().string();
  const ConfigNode root = ConfigNode::root(doc);
  if (dir == "gpus") {
    gpu::bind_gpu(root);
  } else if (dir == "hbm") {
    bind(hbm::hbm_params(), root);
  } else if (dir == "links") {
    // Switch presets carry "ports"; IB switches "port_bandwidth"; NICs "efficiency".
    bind(link_family(doc.root), root);
  } else {
    root.fail(
        "no \"kind\" and not under presets/{gpus,hbm,links}: add \"kind\" (system, model, "
        "experiment, sweep or run)");
  }
}

}  // namespace

void check_file(const Env& env, const std::filesystem::path& path) {
  if (path.extension() != ".json") throw ConfigError(path.string(), "", "not a .json file");
  if (path.parent_path().filename() == "models" && !path.parent_path().parent_path().empty()) {
    workload::load_model(path);
    return;
  }
  const ConfigDoc doc = load_config(path, {env.configs_dir});
  const auto kind = doc.root.find("kind");
  if (kind == doc.root.end()) {
    check_preset(doc, path);
    return;
  }
  const std::string k = kind->is_string() ? kind->get<std::string>() : "";
  if (k == "system") {
    check_system_doc(doc);
  } else if (k == "model") {
    workload::load_model(path);
  } else if (k == "experiment") {
    validate_experiment(env, doc);
  } else if (k == "sweep") {
    validate_sweep(env, doc);
  } else if (k == "run") {
    validate_run(env, doc);
  } else {
    throw ConfigError(path.string(), "/kind",
                      "unknown kind " + kind->dump() + " (system, model, experiment, sweep, run)");
  }
}

int cmd_check(const Args& args, const Env& env) {
  po::options_description desc("t3sim check options");
  std::vector<std::string> files;
  desc.add_options()("files", po::value(&files), "config files to check");
  po::positional_options_description pos;
  pos.add("files", -1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim check FILE...")) return 0;
  if (files.empty()) throw UsageError("no files given");
  for (const auto& f : files) check_file(env, f);
  std::printf("ok: %zu file(s)\n", files.size());
  return 0;
}

}  // namespace t3sim::cli
