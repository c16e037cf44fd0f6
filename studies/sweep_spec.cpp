#include "studies/sweep_spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "models/system/system.h"
#include "models/workload/model_spec.h"
#include "sim/errors.h"
#include "sim/hash.h"
#include "sim/simulator.h"
#include "studies/inputs.h"

namespace t3sim::studies {
namespace {

constexpr std::array<std::string_view, 8> kWorkloadPaths{"system", "model",  "tp",     "sublayer",
                                                         "mode",   "tokens", "ar_cus", "chunks"};

bool is_workload(const std::string& p) {
  return std::find(kWorkloadPaths.begin(), kWorkloadPaths.end(), p) != kWorkloadPaths.end();
}

std::string label(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

Params base_params() {
  Params p;
  p.required("system", ParamKind::kString, "system name or path");
  p.required("model", ParamKind::kString, "model name");
  p.optional("sublayer", ParamKind::kString, "fc2", "op | fc2 | fc1 | ip")
      .one_of({"op", "fc2", "fc1", "ip"});
  p.optional("mode", ParamKind::kString, "sequential", "execution mode");
  p.optional("tokens", ParamKind::kInt, 0, "tokens (0 = model default)").range(0, 1 << 24);
  p.optional("ar_cus", ParamKind::kInt, 16, "cu-split CUs").range(1, 4095);
  p.optional("chunks", ParamKind::kInt, 4, "decomposed chunks").range(1, 1024);
  p.optional("set", ParamKind::kArray, nlohmann::json::array(), "overrides \"path=value\"");
  return p;
}

// The "path" of one axis: a workload path or a config path that becomes "--set path=value".
std::string axis_path(const BoundParams& b, const ConfigNode& n) {
  const std::string path = b.str("path");
  if (path.find('=') != std::string::npos) {
    n.fail_key("path", "'" + path + "' contains '='; give the dotted config path (e.g. " +
                           "hbm.bandwidth) and the values under \"values\"");
  }
  return path;
}

SweepAxis read_axis(const ConfigNode& n) {
  SweepAxis a;
  Params single;
  single.required("path", ParamKind::kString, "workload path or system config path");
  single.required("values", ParamKind::kArray, "values of the path");
  if (n.has("zip")) {
    Params zp;
    zp.required("zip", ParamKind::kArray, "axes varied together (same length)");
    const ConfigNode members = bind(zp, n).node("zip");
    if (members.size() == 0) members.fail("empty axis: give at least one member");
    for (size_t m = 0; m < members.size(); ++m) {
      const BoundParams b = bind(single, members.at(m));
      a.paths.push_back(axis_path(b, members.at(m)));
      const ConfigNode vals = b.node("values");
      if (vals.size() == 0) vals.fail("empty axis: give at least one value");
      if (m > 0 && vals.size() != a.values.size()) vals.fail("zip members must have equal lengths");
      a.values.resize(vals.size());
      for (size_t k = 0; k < vals.size(); ++k) a.values[k].push_back(vals.at(k).json());
    }
    return a;
  }
  const BoundParams b = bind(single, n);
  a.paths.push_back(axis_path(b, n));
  const ConfigNode vals = b.node("values");
  if (vals.size() == 0) vals.fail("empty axis: give at least one value");
  for (size_t k = 0; k < vals.size(); ++k) a.values.push_back({vals.at(k).json()});
  return a;
}

}  // namespace

size_t SweepSpec::points() const {
  size_t n = 1;
  for (const auto& a : axes) {
    if (__builtin_mul_overflow(n, a.values.size(), &n)) return SIZE_MAX;
  }
  return n;
}

SweepPoint sweep_point(const SweepSpec& s, size_t index) {
  SweepPoint p{{}, s.system, s.model, s.sublayer, s.mode, 0, s.tokens, s.ar_cus, s.chunks, s.sets};
  std::vector<size_t> pick(s.axes.size());
  for (size_t a = s.axes.size(); a-- > 0;) {
    pick[a] = index % s.axes[a].values.size();
    index /= s.axes[a].values.size();
  }
  for (size_t a = 0; a < s.axes.size(); ++a) {
    for (size_t k = 0; k < s.axes[a].paths.size(); ++k) {
      const std::string& path = s.axes[a].paths[k];
      const nlohmann::json& v = s.axes[a].values[pick[a]][k];
      p.labels.push_back(label(v));
      if (path == "system")
        p.system = v.get<std::string>();
      else if (path == "model")
        p.model = v.get<std::string>();
      else if (path == "tp")
        p.tp = v.get<int>();
      else if (path == "sublayer")
        p.sublayer = v.get<std::string>();
      else if (path == "mode")
        p.mode = v.get<std::string>();
      else if (path == "tokens")
        p.tokens = v.get<int64_t>();
      else if (path == "ar_cus")
        p.ar_cus = v.get<uint32_t>();
      else if (path == "chunks")
        p.chunks = v.get<uint32_t>();
      else
        p.sets.push_back(path + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }
  return p;
}

std::string sweep_fingerprint(const Env& env, const SweepSpec& s) {
  nlohmann::ordered_json j;
  j["name"] = s.name;
  j["system"] = s.system;
  j["model"] = s.model;
  j["sublayer"] = s.sublayer;
  j["mode"] = s.mode;
  j["tokens"] = s.tokens;
  j["ar_cus"] = s.ar_cus;
  j["chunks"] = s.chunks;
  j["sets"] = s.sets;
  std::set<std::string> systems{s.system};
  std::set<std::string> models{s.model};
  // Axis values are not part of it: every row carries its own, checked on --resume one by one.
  for (const SweepAxis& a : s.axes) {
    for (size_t k = 0; k < a.paths.size(); ++k) {
      for (const auto& v : a.values) {
        if (k >= v.size() || !v[k].is_string()) continue;
        if (a.paths[k] == "system") systems.insert(v[k].get<std::string>());
        if (a.paths[k] == "model") models.insert(v[k].get<std::string>());
      }
    }
  }
  for (const std::string& name : systems) j["systems"][name] = load_system(env, name, {}).root;
  for (const std::string& name : models) {
    const std::filesystem::path file = std::filesystem::exists(name)
                                           ? std::filesystem::path(name)
                                           : env.configs_dir / "models" / (name + ".json");
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    j["models"][name] = text.str();
  }
  return fmt::format("{:016x}", fnv1a(j.dump()));
}

system::SublayerResult run_sweep_point(const Env& env, const SweepPoint& p) {
  const ConfigDoc doc = load_system(env, p.system, p.sets, p.tp);
  const int gpus = system::system_gpus(doc);
  SublayerChoice c = choose_sublayer(env, p.model, gpus, p.sublayer, p.tokens);
  c.spec.ar_cus = p.ar_cus;
  c.spec.decompose_chunks = p.chunks;
  const auto mode = system::parse_mode(p.mode);
  if (!mode) throw ConfigError("", "/mode", "unknown mode '" + p.mode + "'");
  return system::run_sublayer(doc, c.spec, *mode);
}

namespace {

// A system a sweep runs on: loads with the spec's overrides and takes sublayer collectives.
void check_sweep_system(const Env& env, const std::string& name,
                        const std::vector<std::string>& sets, const ConfigNode& where) {
  try {
    system::check_sublayer_collectives(load_system(env, name, sets));
  } catch (const std::runtime_error& e) {  // ConfigError, or UsageError for no such system
    where.fail("system '" + name + "' rejected: " + e.what());
  }
}

void check_workload_value(const Env& env, const std::string& path, const nlohmann::json& v,
                          const std::vector<std::string>& sets, const ConfigNode& where) {
  auto fail_type = [&](const char* want) {
    where.fail("type mismatch: '" + path + "' takes " + want + ", got " + v.dump());
  };
  if (path == "system" || path == "model" || path == "sublayer" || path == "mode") {
    if (!v.is_string()) fail_type("a string");
    const auto s = v.get<std::string>();
    if (path == "system") {
      check_sweep_system(env, s, sets, where);
    } else if (path == "model") {
      const auto known = workload::available_models(env.configs_dir / "models");
      if (std::find(known.begin(), known.end(), s) == known.end()) {
        where.fail("unknown model '" + s + "'");
      }
    } else if (path == "mode" && !system::parse_mode(s)) {
      where.fail("unknown mode '" + s + "'");
    } else if (path == "sublayer" && s != "op" && s != "fc2" && s != "fc1" && s != "ip") {
      where.fail("sublayer must be op, fc2, fc1 or ip");
    }
    return;
  }
  if (!v.is_number_integer()) fail_type("an integer");
  const int64_t x = v.get<int64_t>();
  const int64_t hi = path == "tokens" ? (int64_t{1} << 24) : 4096;
  if (x < 1 || x > hi) where.fail("'" + path + "' must be in 1.." + std::to_string(hi));
}

void check_config_value(const Env& env, const SweepSpec& s, const std::string& path,
                        const nlohmann::json& v, const ConfigNode& where) {
  ConfigDoc doc = load_system(env, s.system, s.sets);
  nlohmann::json cur;
  try {  // a miss gets override_target's "did you mean", re-anchored at the spec
    cur = override_target(doc, to_json_pointer(path));
  } catch (const ConfigError& e) {
    where.fail(std::string("unknown path: ") + e.what());
  }
  if (cur.is_object() && cur.contains("value")) cur = cur["value"];
  const bool same = (cur.is_string() && v.is_string()) || (cur.is_boolean() && v.is_boolean()) ||
                    (cur.is_number() && v.is_number());
  if (!same) {
    where.fail("type mismatch: '" + path + "' holds " + cur.dump() + " but the axis gives " +
               v.dump());
  }
  apply_override(doc, path + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  try {
    check_system(doc);
    system::check_sublayer_collectives(doc);
  } catch (const ConfigError& e) {
    where.fail(std::string("value rejected: ") + e.what());
  }
}

}  // namespace

SweepSpec read_sweep(const Env& env, const ConfigDoc& doc) {
  const ConfigNode root = ConfigNode::root(doc);
  Params p;
  p.required("kind", ParamKind::kString, "document kind").one_of({"sweep"});
  p.required("name", ParamKind::kString, "sweep name");
  p.required("base", ParamKind::kObject, "the base point");
  p.required("axes", ParamKind::kArray, "axes: {path, values} or {zip: [...]}");
  const BoundParams b = bind(p, root);
  SweepSpec s;
  s.name = b.str("name");
  const BoundParams base = bind(base_params(), b.node("base"));
  s.system = base.str("system");
  s.model = base.str("model");
  s.sublayer = base.str("sublayer");
  s.mode = base.str("mode");
  s.tokens = base.integer("tokens");
  s.ar_cus = static_cast<uint32_t>(base.integer("ar_cus"));
  s.chunks = static_cast<uint32_t>(base.integer("chunks"));
  if (base.present("set")) {
    for (const auto& v : base.node("set").json()) {
      if (!v.is_string())
        b.node("base").fail_key("set", "overrides must be \"path=value\" strings");
      s.sets.push_back(v.get<std::string>());
    }
  }
  check_workload_value(env, "model", s.model, s.sets, b.node("base"));
  check_workload_value(env, "mode", s.mode, s.sets, b.node("base"));
  check_sweep_system(env, s.system, s.sets, b.node("base"));
  const ConfigNode axes = b.node("axes");
  if (axes.size() == 0) axes.fail("no axes: give at least one");
  for (size_t i = 0; i < axes.size(); ++i) {
    s.axes.push_back(read_axis(axes.at(i)));
    const SweepAxis& a = s.axes.back();
    if (s.points() > kMaxSweepPoints) {  // checked per axis: the product may not even fit
      axes.at(i).fail(fmt::format(
          "the axes up to this one make {} points, more than the {} a sweep may have; split the "
          "sweep",
          s.points() == SIZE_MAX ? std::string("over 2^64") : std::to_string(s.points()),
          kMaxSweepPoints));
    }
    for (size_t k = 0; k < a.paths.size(); ++k) {
      const std::string& path = a.paths[k];
      if (std::find(s.columns.begin(), s.columns.end(), path) != s.columns.end()) {
        axes.at(i).fail("path '" + path + "' appears in two axes");
      }
      s.columns.push_back(path);
      for (const auto& vals : a.values) {
        if (is_workload(path)) {
          check_workload_value(env, path, vals[k], s.sets, axes.at(i));
        } else {
          check_config_value(env, s, path, vals[k], axes.at(i));
        }
      }
    }
  }
  return s;
}

}  // namespace t3sim::studies
