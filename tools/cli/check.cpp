// `t3sim check FILE...`: validates config files strictly (unknown keys, missing keys, units,
// ranges, "extends"). Dispatch: the document's "kind", one row per kind in kKinds (presets carry
// "kind" too: gpu, hbm, link, switch, nic, ib_switch, collectives). Model files under models/ may
// omit it. Trace files (workload traces, Kineto profiles, t3sim timelines) are recognised by
// their keys and checked as traces, streamed whatever their size. Exit 0 if all pass; otherwise the
// first error as `FILE: /json/pointer: message`, exit 2.
#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "cli/common.h"
#include "cli/validators.h"
#include "models/collectives/library.h"
#include "models/fabric/specs.h"
#include "models/gpu/gpu_spec.h"
#include "models/hbm/hbm_config.h"
#include "models/system/system.h"
#include "models/workload/json_stream.h"
#include "models/workload/kineto_import.h"
#include "models/workload/model_spec.h"
#include "models/workload/timeline_stream_check.h"
#include "models/workload/trace.h"
#include "sim/errors.h"
#include "sim/json_file.h"
#include "sim/simulator.h"
#include "sim/timeline_check.h"

namespace t3sim::cli {

namespace {

struct KindCheck {
  std::string_view kind;
  void (*check)(const Env& env, const ConfigDoc& doc, const std::filesystem::path& path);
};

void bind_root(const Params& p, const ConfigDoc& doc) { bind(p, ConfigNode::root(doc)); }

constexpr std::array<KindCheck, 12> kKinds{{
    {"system", [](const Env&, const ConfigDoc& d, const auto&) { studies::check_system(d); }},
    {"model", [](const Env&, const ConfigDoc&, const auto& p) { workload::load_model(p); }},
    {"experiment",
     [](const Env& e, const ConfigDoc& d, const auto&) { validate_experiment(e, d); }},
    {"sweep", [](const Env& e, const ConfigDoc& d, const auto&) { validate_sweep(e, d); }},
    {"run", [](const Env& e, const ConfigDoc& d, const auto&) { validate_run(e, d); }},
    {"gpu",
     [](const Env&, const ConfigDoc& d, const auto&) { gpu::bind_gpu(ConfigNode::root(d)); }},
    {"hbm", [](const Env&, const ConfigDoc& d, const auto&) { bind_root(hbm::hbm_params(), d); }},
    {"link",
     [](const Env&, const ConfigDoc& d, const auto&) { bind_root(fabric::link_params(), d); }},
    {"switch",
     [](const Env&, const ConfigDoc& d, const auto&) { bind_root(fabric::switch_params(), d); }},
    {"nic",
     [](const Env&, const ConfigDoc& d, const auto&) { bind_root(fabric::nic_params(), d); }},
    {"ib_switch",
     [](const Env&, const ConfigDoc& d, const auto&) { bind_root(fabric::ib_switch_params(), d); }},
    {"collectives", [](const Env&, const ConfigDoc& d,
                       const auto&) { collectives::bind_library(ConfigNode::root(d)); }},
}};

std::string kind_list() {
  std::string all;
  for (const auto& k : kKinds) all += (all.empty() ? "" : ", ") + std::string(k.kind);
  return all;
}

// Trace files carry no "kind": a workload trace (traces/README.md: "version" and "ops") is read
// as `replay` reads it; a PyTorch/Kineto profile is imported as `trace import-kineto` does; any
// other Chrome trace (a t3sim timeline) gets the structural timeline check. False: not a trace.
bool check_trace_file(const ConfigDoc& doc, const std::filesystem::path& path) {
  const nlohmann::json& j = doc.root;
  if (j.contains("ops") && j.contains("version")) {
    workload::read_trace(path);
    return true;
  }
  if (!j.contains("traceEvents")) return false;
  if (j.contains("deviceProperties") || j.contains("schemaVersion")) {
    workload::import_kineto(j, path.string());
    return true;
  }
  const auto problems = check_timeline(j, 1);
  if (!problems.empty()) {
    throw ConfigError(path.string(), "/traceEvents", "timeline: " + problems.front());
  }
  return true;
}

// A file starting with '{' whose top level has no "kind" and the keys of a trace is checked by
// streaming it (models/workload/json_stream.h): memory follows the events' tracks and ids (the
// timeline check) or the ops kept (traces, Kineto imports), not the file's size, so t3sim's own
// large timelines are checked. False: not such a file.
bool check_streamed_trace(const std::filesystem::path& path) {
  if (!workload::is_streamable_json(path)) return false;
  std::vector<std::string> keys;
  try {
    keys = workload::top_level_keys(path);
  } catch (const ConfigError&) {
    // Broken JSON: a file the whole-document reader takes reports it as always.
    std::error_code ec;
    if (std::filesystem::file_size(path, ec) <= kMaxJsonFileBytes && !ec) return false;
    throw;
  }
  const auto has = [&](std::string_view k) {
    return std::find(keys.begin(), keys.end(), k) != keys.end();
  };
  if (has("kind")) return false;
  if (has("ops") && has("version")) {
    workload::read_trace(path);
    return true;
  }
  if (!has("traceEvents")) return false;
  if (has("deviceProperties") || has("schemaVersion")) {
    workload::import_kineto_file(path);
    return true;
  }
  const auto problems = workload::check_timeline_file(path, 1);
  if (!problems.empty()) {
    throw ConfigError(path.string(), "/traceEvents", "timeline: " + problems.front());
  }
  return true;
}

}  // namespace

void check_file(const Env& env, const std::filesystem::path& path) {
  if (path.extension() != ".json") throw ConfigError(path.string(), "", "not a .json file");
  if (path.parent_path().filename() == "models" && !path.parent_path().parent_path().empty()) {
    workload::load_model(path);
    return;
  }
  if (check_streamed_trace(path)) return;
  const ConfigDoc doc = load_config(path, {env.configs_dir});
  const auto kind = doc.root.find("kind");
  if (kind == doc.root.end() && check_trace_file(doc, path)) return;
  if (kind == doc.root.end()) {
    throw ConfigError(path.string(), "", "no \"kind\": add one of " + kind_list());
  }
  const std::string k = kind->is_string() ? kind->get<std::string>() : "";
  for (const auto& row : kKinds) {
    if (row.kind == k) return row.check(env, doc, path);
  }
  throw ConfigError(path.string(), "/kind",
                    "unknown kind " + kind->dump() + " (" + kind_list() + ")");
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
