#include "studies/experiment_checks.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/workload/model_spec.h"
#include "models/workload/sublayer.h"
#include "sim/did_you_mean.h"
#include "sim/errors.h"

namespace t3sim::studies {
namespace {

// Fails at `where` unless `name` is in `known` (what the list holds: "model", "mode", ...).
void require_known(const ConfigNode& where, const std::string& what, const std::string& name,
                   const std::vector<std::string>& known) {
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  where.fail("unknown " + what + " '" + name + "'" + did_you_mean(name, known) +
             "; use one of: " + join(known, ", "));
}

// The checks of one value: a finite number.
void require_number(const ConfigNode& n) {
  if (!n.json().is_number() || !std::isfinite(n.json().get<double>())) {
    n.fail("expected a number (the paper's value), got " + n.json().dump());
  }
}

// `n` must be an object whose keys are all in `keys`, each a number.
void check_numbers(const ConfigNode& n, const std::vector<std::string>& keys) {
  if (!n.json().is_object()) n.fail("expected an object of numbers: " + join(keys, ", "));
  for (const auto& [key, value] : n.json().items()) {
    if (is_annotation_key(key)) continue;
    require_known(n.child(key), "key", key, keys);
    require_number(n.child(key));
  }
}

// `n` is {mode: {quantity: number}} for the non-baseline modes in `modes`.
void check_per_mode(const ConfigNode& n, const std::vector<system::Mode>& modes,
                    const std::vector<std::string>& quantities) {
  std::vector<std::string> names;
  for (system::Mode m : modes) {
    if (m != system::Mode::kSequential) names.emplace_back(system::to_string(m));
  }
  if (!n.json().is_object())
    n.fail("expected an object {mode: {...}} for modes " + join(names, ", "));
  for (const auto& [key, value] : n.json().items()) {
    if (is_annotation_key(key)) continue;
    require_known(n.child(key), "mode", key, names);
    check_numbers(n.child(key), quantities);
  }
}

// The modes the end-to-end projection reports: t3 and t3-mca, where a point set runs them.
std::vector<system::Mode> e2e_modes(const Experiment& e) {
  std::vector<system::Mode> out;
  for (system::Mode m : {system::Mode::kT3, system::Mode::kT3Mca}) {
    const auto runs = [m](const PointSet& ps) {
      return std::find(ps.modes.begin(), ps.modes.end(), m) != ps.modes.end();
    };
    if (runs(e.fig16) || runs(e.large)) out.push_back(m);
  }
  return out;
}

}  // namespace

void check_model_tp(const Env& env, const std::string& model, int tp, const ConfigNode& model_at,
                    const ConfigNode& tp_at) {
  require_known(model_at, "model", model, workload::available_models(env.configs_dir / "models"));
  const workload::ModelSpec spec = workload::load_model_by_name(model, env.configs_dir / "models");
  try {
    workload::tp_slice(spec, tp, spec.tokens_per_micro_batch());
  } catch (const ConfigError& e) {
    std::string why = e.what();  // "<input>: /tp: tp 3 must divide ...": keep the message
    const std::string prefix = e.pointer() + ": ";
    if (const auto at = why.find(prefix); at != std::string::npos) {
      why = why.substr(at + prefix.size());
    }
    tp_at.fail("model '" + model + "': " + why);
  }
}

void check_point_tps(const Env& env, const PointSet& ps, const ConfigNode& node) {
  const ConfigNode models = node.child("models");
  const ConfigNode tps = node.child("tp");
  for (size_t i = 0; i < ps.models.size(); ++i) {
    for (size_t t = 0; t < ps.tp.size(); ++t) {
      check_model_tp(env, ps.models[i], ps.tp[t], models.at(i), tps.at(t));
    }
  }
}

void check_paper(const ConfigNode& paper, const Experiment& e) {
  const std::vector<std::string> sections = {"fig16", "data_movement", "large_models", "fig6",
                                             "e2e"};
  std::vector<std::string> fig6 = {"ideal_x"};
  for (uint32_t c : e.ar_cus) fig6.push_back("cu" + std::to_string(c) + "_x");
  for (const auto& [key, value] : paper.json().items()) {
    if (is_annotation_key(key)) continue;
    const ConfigNode n = paper.child(key);
    require_known(n, "section", key, sections);
    if (key == "fig16") check_per_mode(n, e.fig16.modes, {"geomean", "max"});
    if (key == "large_models") check_per_mode(n, e.large.modes, {"geomean", "max"});
    if (key == "data_movement") {
      check_numbers(n, {"geomean_reduction_pct", "max_reduction_pct", "rs_read_reduction_x"});
    }
    if (key == "fig6") check_numbers(n, fig6);
    if (key == "e2e") {
      check_per_mode(n, e2e_modes(e),
                     {"training_geomean_pct", "training_max_pct", "inference_geomean_pct",
                      "inference_max_pct"});
    }
  }
}

}  // namespace t3sim::studies
