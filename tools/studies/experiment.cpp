#include "tools/studies/experiment.h"

#include <algorithm>

#include "models/system/system.h"
#include "models/workload/model_spec.h"
#include "sim/errors.h"
#include "sim/params.h"
#include "tools/studies/experiment_checks.h"
#include "tools/studies/inputs.h"

namespace t3sim::studies {
namespace {

Params experiment_params() {
  Params p;
  p.required("kind", ParamKind::kString, "document kind").one_of({"experiment"});
  p.required("name", ParamKind::kString, "experiment name (output folder name)");
  p.required("system", ParamKind::kString, "system name template; {tp} becomes the TP degree");
  p.required("fig16", ParamKind::kObject, "Fig. 16 points: models, tp, sublayers, modes");
  p.required("large_models", ParamKind::kObject,
             "large-model points: models, tp, sublayers, modes");
  p.required("fig6", ParamKind::kObject, "Fig. 6: {\"ar_cus\": [...]} over the Fig. 16 points");
  p.required("fig17", ParamKind::kObject, "Fig. 17 point: model, tp, sublayer");
  p.required("e2e", ParamKind::kObject, "end-to-end projection: {\"non_sliced_share\": x}");
  p.optional("seed", ParamKind::kInt, 1, "simulator seed").at_least(0);
  p.required("paper", ParamKind::kObject, "the paper's numbers (targets) for the report");
  p.optional("ablation", ParamKind::kArray, nlohmann::json::array(),
             "mechanism ablation: [{name, description, set: [\"path=value\", ...]}], run by "
             "`reproduce --ablation` over the Fig. 16 points");
  return p;
}

Params point_params() {
  Params p;
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

PointSet read_points(const Env& env, const ConfigNode& node) {
  const BoundParams b = bind(point_params(), node);
  PointSet ps;
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

}  // namespace

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
  e.seed = static_cast<uint64_t>(b.integer("seed"));
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
