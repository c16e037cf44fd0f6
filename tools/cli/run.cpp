// `t3sim run FILE [--out DIR]`: a run document names a system (by name, path or inline object), a
// model, a sublayer, a mode and optionally tokens and seed; t3sim builds the system, runs the
// sublayer and writes DIR/stats.json = {"config": resolved system config, "sim": ..., "stats":
// full stats tree, "result": summary}. Same inputs give byte-identical output.
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "cli/trace_options.h"
#include "cli/validators.h"
#include "models/system/system.h"
#include "sim/atomic_file.h"
#include "sim/errors.h"

namespace t3sim::cli {
namespace {

struct RunDoc {
  ConfigDoc system;
  std::string model;
  std::string sublayer;
  system::Mode mode = system::Mode::kSequential;
  int64_t tokens = 0;
  uint64_t seed = 1;
};

Params run_params() {
  Params p;
  p.required("kind", ParamKind::kString, "document kind").one_of({"run"});
  p.required("system", ParamKind::kString, "system name (configs/systems) or config path");
  p.required("model", ParamKind::kString, "model name (configs/models)");
  p.required("sublayer", ParamKind::kString, "op | fc2 | fc1 | ip")
      .one_of({"op", "fc2", "fc1", "ip"});
  std::vector<std::string> modes;  // the mode table's rows (`t3sim modes` explains each)
  for (auto n : system::mode_names()) modes.emplace_back(n);
  p.required("mode", ParamKind::kString, "execution mode: " + system::mode_list(" | "))
      .one_of(modes);
  p.optional("tokens", ParamKind::kInt, 0, "tokens (0 = model's seq_len x micro_batch)")
      .range(0, 1 << 24);
  p.optional("seed", ParamKind::kInt, 1, "simulator seed").at_least(0);
  p.optional("set", ParamKind::kArray, nlohmann::json::array(), "overrides \"path=value\"");
  return p;
}

RunDoc read_run(const Env& env, const ConfigDoc& doc) {
  const ConfigNode root = ConfigNode::root(doc);
  const BoundParams b = bind(run_params(), root);
  RunDoc r;
  const auto mode = system::parse_mode(b.str("mode"));  // one_of above checked the name
  if (!mode) root.fail_key("mode", "unknown mode '" + b.str("mode") + "'");
  r.mode = *mode;
  std::vector<std::string> sets;
  if (b.present("set")) {
    const ConfigNode s = b.node("set");
    for (size_t i = 0; i < s.size(); ++i) {
      if (!s.at(i).json().is_string()) s.at(i).fail("expected \"path=value\"");
      sets.push_back(s.at(i).json().get<std::string>());
    }
  }
  r.system = load_system(env, b.str("system"), sets);
  r.model = b.str("model");
  r.sublayer = b.str("sublayer");
  r.tokens = b.integer("tokens");
  r.seed = static_cast<uint64_t>(b.integer("seed"));
  return r;
}

// A JSON Schema (draft 2020-12) of a Params declaration: types, ranges, choices, defaults and
// required keys; annotations ("source", "description") are allowed as in every config file.
nlohmann::ordered_json json_schema(const std::string& title, const nlohmann::ordered_json& params) {
  nlohmann::ordered_json props = nlohmann::ordered_json::object();
  nlohmann::ordered_json required = nlohmann::ordered_json::array();
  for (const auto& p : params) {
    const std::string type = p["type"].get<std::string>();
    nlohmann::ordered_json s;
    s["description"] = p["description"];
    const bool plain = type == "integer" || type == "number" || type == "boolean" ||
                       type == "string" || type == "object" || type == "array";
    s["type"] = plain ? type : "string";  // dimensioned values are strings with a unit
    if (p.contains("min")) s["minimum"] = p["min"];
    if (p.contains("max")) s["maximum"] = p["max"];
    if (p.contains("choices")) s["enum"] = p["choices"];
    if (p.contains("default")) s["default"] = p["default"];
    if (p["required"].get<bool>()) required.push_back(p["name"]);
    props[p["name"].get<std::string>()] = std::move(s);
  }
  props["source"] = {{"type", "object"}, {"description", "where each value comes from"}};
  props["description"] = {{"type", "string"}};
  nlohmann::ordered_json out;
  out["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  out["title"] = title;
  out["type"] = "object";
  out["properties"] = std::move(props);
  out["required"] = std::move(required);
  out["additionalProperties"] = false;
  return out;
}

}  // namespace

void describe_run(bool json) {
  const auto d = run_params().describe();
  if (json) {
    std::cout << json_schema("t3sim run document", d).dump(2) << "\n";
    return;
  }
  std::printf(
      "run document (kind \"run\"): `t3sim run FILE [--out DIR] [--trace-out F]` builds the "
      "system, runs one sublayer and writes DIR/stats.json\n\nkeys:\n");
  for (const auto& p : d) {
    const std::string def = p.contains("default") ? p["default"].dump() : "(required)";
    std::printf("  %-10s %-28s %-12s %s\n", p["name"].get<std::string>().c_str(),
                p["type"].get<std::string>().c_str(), def.c_str(),
                p["description"].get<std::string>().c_str());
  }
}

void validate_run(const Env& env, const ConfigDoc& doc) {
  const RunDoc r = read_run(env, doc);
  const int gpus = system::system_gpus(r.system);
  choose_sublayer(env, r.model, gpus, r.sublayer, r.tokens, doc.file);
}

int cmd_run(const Args& args, const Env& env) {
  po::options_description desc("t3sim run options");
  std::string file, out = ".";
  TraceCli trace;
  desc.add_options()("config", po::value(&file)->required(),
                     "run document (kind: run; `t3sim describe run` lists its keys)")(
      "out", po::value(&out)->default_value("."), "output directory for stats.json");
  trace.add(desc);
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  if (!parse_options(args, desc, vm, &pos, "t3sim run FILE [--out DIR] [--trace-out F]")) return 0;
  const std::filesystem::path stats = std::filesystem::path(out) / "stats.json";
  refuse_input_output("--out", stats, {{file, "the run document"}});
  check_output_dir("--out", out);
  system::RunOptions opts;
  opts.trace_path = trace.resolve(opts.trace_options);
  const ConfigDoc doc = load_config(file, {env.configs_dir});
  const RunDoc r = read_run(env, doc);
  std::vector<InputFile> inputs;
  add_config_files(inputs, doc, "a file of the run document");
  add_config_files(inputs, r.system, "a file of its system");
  inputs.push_back(model_file(env, r.model));
  refuse_input_output("--out", stats, inputs);
  refuse_input_output(trace.flag(), opts.trace_path, inputs);
  refuse_same_outputs("--out", stats, trace.flag(), opts.trace_path);
  const int gpus = system::system_gpus(r.system);
  SublayerChoice c = choose_sublayer(env, r.model, gpus, r.sublayer, r.tokens, doc.file);
  c.spec.seed = r.seed;
  check_traceable(opts.trace_path, r.mode);
  opts.stats = true;
  system::SublayerResult res = system::run_sublayer(r.system, c.spec, r.mode, opts);
  note_trace_dropped("run", opts.trace_path, res.trace_events_dropped,
                     opts.trace_options.max_events);
  nlohmann::ordered_json j = std::move(res.stats);
  auto summary = system::to_json(res);
  summary.erase("wall_s");  // keep the file deterministic
  j["result"] = summary;
  const std::filesystem::path& path = stats;
  write_file_atomic(path, j.dump(1) + "\n");
  std::printf("%s: %s %s %s total %.1f us (%llu events) -> %s\n", file.c_str(), r.model.c_str(),
              r.sublayer.c_str(), std::string(system::to_string(r.mode)).c_str(), res.total_us,
              static_cast<unsigned long long>(res.events), path.c_str());
  return 0;
}

}  // namespace t3sim::cli
