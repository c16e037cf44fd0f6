#include "studies/experiment.h"

#include <algorithm>

#include "models/system/system.h"
#include "models/workload/model_spec.h"
#include "sim/errors.h"
#include "sim/params.h"
#include "studies/experiment_checks.h"
#include "studies/inputs.h"

namespace t3sim::studies {
namespace {

// The paper's sections: each required by a paper experiment, refused by a systems study.
const std::vector<std::string>& paper_keys() {
  static const std::vector<std::string> keys = {"system", "fig16", "large_models", "fig6",
                                                "fig17",  "e2e",   "paper",        "ablation"};
  return keys;
}

Params experiment_params() {
  Params p;
  p.required("kind", ParamKind::kString, "document kind").one_of({"experiment"});
  p.required("name", ParamKind::kString, "experiment name (output folder name)");
  p.optional("description", ParamKind::kString, "", "what the study shows (report.md's header)");
  p.optional("study", ParamKind::kObject, nlohmann::json::object(),
             "a systems study: {systems, models, tp, sublayers, modes}; replaces the paper's "
             "sections below");
  p.optional("system", ParamKind::kString, "",
             "paper: system name template; {tp} becomes the TP degree");
  p.optional("fig16", ParamKind::kObject, nlohmann::json::object(),
             "paper: Fig. 16 points: models, tp, sublayers, modes");
  p.optional("large_models", ParamKind::kObject, nlohmann::json::object(),
             "paper: large-model points: models, tp, sublayers, modes");
  p.optional("fig6", ParamKind::kObject, nlohmann::json::object(),
             "paper: Fig. 6: {\"ar_cus\": [...]} over the Fig. 16 points");
  p.optional("fig17", ParamKind::kObject, nlohmann::json::object(),
             "paper: Fig. 17 point: model, tp, sublayer");
  p.optional("e2e", ParamKind::kObject, nlohmann::json::object(),
             "paper: end-to-end projection: {\"non_sliced_share\": x}");
  p.optional("seed", ParamKind::kInt, 1, "simulator seed").at_least(0);
  p.optional("paper", ParamKind::kObject, nlohmann::json::object(),
             "paper: the paper's numbers (targets) for the report");
  p.optional("ablation", ParamKind::kArray, nlohmann::json::array(),
             "paper: mechanism ablation: [{name, description, set: [\"path=value\", ...]}], run by "
             "`reproduce --ablation` over the Fig. 16 points");
  return p;
}

Params point_params(bool with_systems) {
  Params p;
  if (with_systems) p.required("systems", ParamKind::kArray, "system names (configs/systems)");
  p.required("models", ParamKind::kArray, "model names (configs/models)");
  p.required("tp", ParamKind::kArray, "TP degrees");
  p.required("sublayers", ParamKind::kArray, "sublayers: op, fc2, fc1, ip");
  p.required("modes", ParamKind::kArray, "modes (sequential first)");
  return p;
}

std::vector<std::string> strings(const ConfigNode& n) {
  std::vector<std::string> v;
  if (n.size() == 0) n.fail("must not be empty");
  for (size_t i = 0; i < n.size(); ++i) {
    if (!n.at(i).json().is_string()) n.at(i).fail("expected a string");
    v.push_back(n.at(i).json().get<std::string>());
  }
  return v;
}

std::vector<int> ints(const ConfigNode& n, int lo, int hi) {
  std::vector<int> v;
  if (n.size() == 0) n.fail("must not be empty");
  for (size_t i = 0; i < n.size(); ++i) {
    const auto& j = n.at(i).json();
    if (!j.is_number_integer() || j.get<int64_t>() < lo || j.get<int64_t>() > hi) {
      n.at(i).fail("expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    v.push_back(j.get<int>());
  }
  return v;
}

PointSet read_points(const Env& env, const ConfigNode& node, bool with_systems = false) {
  const BoundParams b = bind(point_params(with_systems), node);
  PointSet ps;
  if (with_systems) ps.systems = strings(b.node("systems"));
  ps.models = strings(b.node("models"));
  const auto known = workload::available_models(env.configs_dir / "models");
  for (size_t i = 0; i < ps.models.size(); ++i) {
    if (std::find(known.begin(), known.end(), ps.models[i]) == known.end()) {
      const std::string hint = nearest_name(ps.models[i], known);
      b.node("models").at(i).fail("unknown model '" + ps.models[i] + "'" +
                                  (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  ps.tp = ints(b.node("tp"), 1, 4096);
  ps.sublayers = strings(b.node("sublayers"));
  for (size_t i = 0; i < ps.sublayers.size(); ++i) {
    const auto& s = ps.sublayers[i];
    if (s != "op" && s != "fc2" && s != "fc1" && s != "ip") {
      b.node("sublayers").at(i).fail("sublayer must be op, fc2, fc1 or ip");
    }
  }
  const auto modes = strings(b.node("modes"));
  for (size_t i = 0; i < modes.size(); ++i) {
    const auto m = system::parse_mode(modes[i]);
    if (!m) b.node("modes").at(i).fail("unknown mode '" + modes[i] + "'");
    ps.modes.push_back(*m);
  }
  if (ps.modes.front() != system::Mode::kSequential) {
    b.node("modes").at(0).fail("the first mode must be \"sequential\" (the speedup baseline)");
  }
  return ps;
}

std::vector<AblationVariant> read_ablation(const Env& env, const Experiment& e,
                                           const ConfigNode& list) {
  Params vp;
  vp.required("name", ParamKind::kString, "variant name (a table row)");
  vp.required("description", ParamKind::kString, "what the variant switches off");
  vp.required("set", ParamKind::kArray, "overrides applied to every system: \"path=value\"");
  std::vector<AblationVariant> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const BoundParams b = bind(vp, list.at(i));
    AblationVariant v{b.str("name"), b.str("description"), strings(b.node("set"))};
    for (int tp : e.fig16.tp) {  // every override must hit an existing key of every system
      try {
        system::load_system_config(system_for(e, tp), env.configs_dir, v.set);
      } catch (const ConfigError& err) {
        b.node("set").fail(std::string("does not apply to ") + system_for(e, tp) + ": " +
                           err.what());
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

// A systems study: every system loads and has as many GPUs as each TP degree, every (model, TP)
// slices, and every mode runs on at least one of the systems.
void read_study(const Env& env, const BoundParams& b, const ConfigNode& root, Experiment& e) {
  for (const auto& key : paper_keys()) {
    if (b.present(key)) {
      root.fail_key(
          key, "a systems study (\"study\") takes none of the paper's sections; remove \"" + key +
                   "\" or the \"study\" object");
    }
  }
  const ConfigNode node = b.node("study");
  e.kind = StudyKind::kSystems;
  e.study = read_points(env, node, true);
  check_point_tps(env, e.study, node);
  std::vector<ConfigDoc> docs;
  for (size_t i = 0; i < e.study.systems.size(); ++i) {
    const ConfigNode at = node.child("systems").at(i);
    try {
      docs.push_back(system::load_system_config(e.study.systems[i], env.configs_dir));
    } catch (const ConfigError& err) {
      at.fail("system '" + e.study.systems[i] + "' does not load: " + err.what());
    }
    const int gpus = system::system_gpus(docs.back());
    for (int tp : e.study.tp) {
      if (tp > gpus) {
        at.fail("system '" + e.study.systems[i] + "' has " + std::to_string(gpus) +
                " GPUs, fewer than TP " + std::to_string(tp) + "; drop the system or the TP");
      }
    }
  }
  for (size_t i = 0; i < e.study.modes.size(); ++i) {
    const auto runs = [&](const ConfigDoc& d) { return mode_runs_on(d, e.study.modes[i]); };
    if (std::none_of(docs.begin(), docs.end(), runs)) {
      node.child("modes").at(i).fail("mode '" + std::string(system::to_string(e.study.modes[i])) +
                                     "' runs on none of the study's systems; remove it");
    }
  }
}

}  // namespace

bool mode_runs_on(const ConfigDoc& doc, system::Mode m) {
  const system::ModeSpec& spec = system::mode_spec(m);
  if (spec.compose != nullptr && spec.rs_piece == system::Piece::kRsNmc) {
    const auto nmc = doc.root.find("nmc");
    return nmc != doc.root.end() && nmc->is_boolean() && nmc->get<bool>();
  }
  if (spec.fused_rs != system::RsFusion::kNvls) return true;
  const fabric::FabricConfig f = system::system_fabric(doc);
  return !f.fluid && f.nvswitch && f.nvswitch->reduce_bandwidth.bytes_per_second() > 0;
}

std::string system_for(const Experiment& e, int tp) {
  std::string s = e.system_template;
  const auto at = s.find("{tp}");
  if (at != std::string::npos) s.replace(at, 4, std::to_string(tp));
  return s;
}

Experiment read_experiment(const Env& env, const ConfigDoc& doc) {
  const ConfigNode root = ConfigNode::root(doc);
  const BoundParams b = bind(experiment_params(), root);
  Experiment e;
  e.name = b.str("name");
  e.description = b.str("description");
  e.seed = static_cast<uint64_t>(b.integer("seed"));
  if (b.present("study")) {
    read_study(env, b, root, e);
    return e;
  }
  for (const auto& key : paper_keys()) {
    if (key != "ablation" && !b.present(key)) {
      root.fail_key(key, "missing: a paper experiment needs \"" + key +
                             "\" (or a \"study\" object for a systems study)");
    }
  }
  e.system_template = b.str("system");
  e.fig16 = read_points(env, b.node("fig16"));
  e.large = read_points(env, b.node("large_models"));
  Params f6;
  f6.required("ar_cus", ParamKind::kArray, "CUs given to the all-reduce kernel");
  e.ar_cus.clear();
  for (int c : ints(bind(f6, b.node("fig6")).node("ar_cus"), 1, 4095)) {
    e.ar_cus.push_back(static_cast<uint32_t>(c));
  }
  Params f17;
  f17.required("model", ParamKind::kString, "model");
  f17.required("tp", ParamKind::kInt, "TP degree").range(1, 4096);
  f17.required("sublayer", ParamKind::kString, "sublayer").one_of({"op", "fc2", "fc1", "ip"});
  const BoundParams b17 = bind(f17, b.node("fig17"));
  e.fig17_model = b17.str("model");
  e.fig17_tp = static_cast<int>(b17.integer("tp"));
  e.fig17_sublayer = b17.str("sublayer");
  check_model_tp(env, e.fig17_model, e.fig17_tp, b.node("fig17").child("model"),
                 b.node("fig17").child("tp"));
  Params e2e;
  e2e.required("non_sliced_share", ParamKind::kReal,
               "share of baseline layer time outside the TP-sliced GEMMs and all-reduces")
      .range(0.0, 0.95);
  e.non_sliced_share = bind(e2e, b.node("e2e")).real("non_sliced_share");
  check_paper(b.node("paper"), e);
  e.paper = b.node("paper").json();
  check_point_tps(env, e.fig16, b.node("fig16"));
  check_point_tps(env, e.large, b.node("large_models"));
  for (int tp : e.fig16.tp) system::load_system_config(system_for(e, tp), env.configs_dir);
  for (int tp : e.large.tp) system::load_system_config(system_for(e, tp), env.configs_dir);
  system::load_system_config(system_for(e, e.fig17_tp), env.configs_dir);
  if (b.present("ablation")) e.ablation = read_ablation(env, e, b.node("ablation"));
  return e;
}

}  // namespace t3sim::studies
