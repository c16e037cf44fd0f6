#include "sim/params.h"

#include <limits>
#include <memory>

#include <fmt/format.h>

#include "sim/errors.h"
#include "sim/units_parse.h"

namespace t3sim {

const char* to_string(ParamKind k) {
  switch (k) {
    case ParamKind::kInt:
      return "integer";
    case ParamKind::kReal:
      return "number";
    case ParamKind::kBool:
      return "boolean";
    case ParamKind::kString:
      return "string";
    case ParamKind::kDuration:
      return "duration (e.g. \"500 ns\")";
    case ParamKind::kFrequency:
      return "frequency (e.g. \"1.4 GHz\")";
    case ParamKind::kBytes:
      return "size (e.g. \"16 MiB\")";
    case ParamKind::kBandwidth:
      return "bandwidth (e.g. \"150 GB/s\")";
    case ParamKind::kObject:
      return "object";
    case ParamKind::kArray:
      return "array";
  }
  return "?";
}

namespace {

// Limits of a parameter that declares none of its own (range() and at_least() replace them). A
// duration of hardware is ns to us: 1 s keeps every sum of latencies in a run far below Tick's
// 2^64 ps (213 days). A clock from 1 MHz to 100 GHz keeps a cycle between 10 ps and 1 us, so
// cycle counts turn into ticks without wrapping.
void kind_limits(ParamSpec& s) {
  if (s.kind == ParamKind::kDuration) s.max = 1e12;  // 1 s in ps
  if (s.kind == ParamKind::kFrequency) {
    s.min = 1e6;
    s.max = 1e11;
  }
}

}  // namespace

Params& Params::required(std::string name, ParamKind kind, std::string description) {
  specs_.push_back(
      ParamSpec{std::move(name), kind, std::move(description), std::nullopt, {}, {}, {}});
  kind_limits(specs_.back());
  return *this;
}

Params& Params::optional(std::string name, ParamKind kind, nlohmann::json default_value,
                         std::string description) {
  specs_.push_back(ParamSpec{
      std::move(name), kind, std::move(description), std::move(default_value), {}, {}, {}});
  kind_limits(specs_.back());
  return *this;
}

Params& Params::range(double lo, double hi) {
  specs_.back().min = lo;
  specs_.back().max = hi;
  return *this;
}

Params& Params::at_least(double lo) {
  specs_.back().min = lo;
  return *this;
}

Params& Params::one_of(std::vector<std::string> choices) {
  specs_.back().choices = std::move(choices);
  return *this;
}

const ParamSpec* Params::find(const std::string& name) const {
  for (const auto& s : specs_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

nlohmann::ordered_json Params::describe() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : specs_) {
    nlohmann::ordered_json j;
    j["name"] = s.name;
    j["type"] = to_string(s.kind);
    j["required"] = !s.default_value.has_value();
    if (s.default_value) j["default"] = *s.default_value;
    if (s.min) j["min"] = *s.min;
    if (s.max) j["max"] = *s.max;
    if (!s.choices.empty()) j["choices"] = s.choices;
    j["description"] = s.description;
    out.push_back(std::move(j));
  }
  return out;
}

namespace {

uint64_t parse_dimensioned(ParamKind kind, const std::string& text) {
  switch (kind) {
    case ParamKind::kDuration:
      return parse_duration(text).count_ps();
    case ParamKind::kFrequency:
      return parse_frequency(text).count_hz();
    case ParamKind::kBytes:
      return parse_bytes(text).count();
    case ParamKind::kBandwidth:
      return parse_bandwidth(text).bytes_per_second();
    default:
      return 0;
  }
}

bool dimensioned(ParamKind k) {
  return k == ParamKind::kDuration || k == ParamKind::kFrequency || k == ParamKind::kBytes ||
         k == ParamKind::kBandwidth;
}

bool type_ok(ParamKind k, const nlohmann::json& v) {
  switch (k) {
    case ParamKind::kInt:
      return v.is_number_integer();
    case ParamKind::kReal:
      return v.is_number();
    case ParamKind::kBool:
      return v.is_boolean();
    case ParamKind::kString:
      return v.is_string();
    case ParamKind::kObject:
      return v.is_object();
    case ParamKind::kArray:
      return v.is_array();
    default:
      return v.is_string();
  }
}

// A limit as written in a message: dimensioned values in their base unit ("1000000 Hz").
std::string limit_text(const ParamSpec& s, double v) {
  switch (s.kind) {
    case ParamKind::kDuration:
      return fmt::format("{:.0f} ps", v);
    case ParamKind::kFrequency:
      return fmt::format("{:.0f} Hz", v);
    case ParamKind::kBytes:
      return fmt::format("{:.0f} B", v);
    case ParamKind::kBandwidth:
      return fmt::format("{:.0f} B/s", v);
    default:
      return nlohmann::json(v).dump();
  }
}

void check_range(const ParamSpec& s, double x, const ConfigNode& node) {
  if ((s.min && x < *s.min) || (s.max && x > *s.max)) {
    std::string lim = s.min ? ">= " + limit_text(s, *s.min) : "";
    if (s.max) lim += (lim.empty() ? "<= " : " and <= ") + limit_text(s, *s.max);
    node.fail_key(s.name,
                  "'" + s.name + "' is out of range: must be " + lim + " (" + s.description + ")");
  }
}

}  // namespace

BoundParams bind(const Params& params, const ConfigNode& node) {
  if (!node.json().is_object()) node.fail("expected an object");
  std::vector<std::string> names;
  for (const auto& s : params.specs()) names.push_back(s.name);
  for (auto it = node.json().begin(); it != node.json().end(); ++it) {
    if (is_annotation_key(it.key()) || params.find(it.key())) continue;
    const std::string hint = nearest_name(it.key(), names);
    node.fail_key(it.key(), "unknown key '" + it.key() + "'" +
                                (hint.empty() ? " (remove it; `t3sim describe` lists valid keys)"
                                              : " (did you mean '" + hint + "'?)"));
  }
  BoundParams out;
  out.resolved_ = nlohmann::ordered_json::object();
  for (const auto& s : params.specs()) {
    BoundParams::Value v{s.name, s.kind, {}, 0, node.has(s.name), std::nullopt};
    if (v.given) {
      ConfigNode child = node.child(s.name);
      const nlohmann::json* raw = &child.json();
      if (raw->is_object() && raw->contains("value") && s.kind != ParamKind::kObject) {
        for (auto w = raw->begin(); w != raw->end(); ++w) {  // the wrapper is strict too
          if (w.key() != "value" && !is_annotation_key(w.key())) {
            child.fail_key(w.key(), "unknown key '" + w.key() + "' beside \"value\" (only " +
                                        "\"source\", \"description\" and \"$...\" may be)");
          }
        }
        child = child.child("value");
        raw = &child.json();
      }
      v.raw = *raw;
      if (!type_ok(s.kind, v.raw)) {
        std::string msg =
            "'" + s.name + "' must be a " + to_string(s.kind) + ", got " + v.raw.dump();
        if (dimensioned(s.kind) && v.raw.is_number()) msg += " (bare number: add a unit)";
        child.fail(msg);
      }
      if (s.kind == ParamKind::kObject || s.kind == ParamKind::kArray) v.node = child;
    } else if (s.default_value) {
      v.raw = *s.default_value;
    } else {
      node.fail("missing required key '" + s.name + "' (" + std::string(to_string(s.kind)) + ": " +
                s.description + ")");
    }
    if (dimensioned(s.kind)) {
      try {
        v.base = parse_dimensioned(s.kind, v.raw.get<std::string>());
      } catch (const UnitError& e) {
        node.fail_key(s.name, e.what());
      }
      check_range(s, static_cast<double>(v.base), node);
    } else if (s.kind == ParamKind::kInt || s.kind == ParamKind::kReal) {
      if (s.kind == ParamKind::kInt && v.raw.is_number_unsigned() &&
          v.raw.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        node.fail_key(
            s.name, "'" + s.name + "' is out of range: must be below 2^63 (" + s.description + ")");
      }
      check_range(s, v.raw.get<double>(), node);
    } else if (s.kind == ParamKind::kString && !s.choices.empty()) {
      const auto val = v.raw.get<std::string>();
      if (std::find(s.choices.begin(), s.choices.end(), val) == s.choices.end()) {
        const std::string hint = nearest_name(val, s.choices);
        std::string all;
        for (const auto& c : s.choices) all += (all.empty() ? "" : ", ") + c;
        node.fail_key(s.name, "'" + val + "' is not one of: " + all +
                                  (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
    }
    out.resolved_[s.name] = v.raw;
    out.values_.push_back(std::move(v));
  }
  return out;
}

const BoundParams::Value& BoundParams::get(const std::string& name, ParamKind kind) const {
  for (const auto& v : values_) {
    if (v.name == name) {
      if (v.kind != kind) {
        throw ModelError("params", "parameter '" + name + "' read as " + to_string(kind) +
                                       " but declared as " + to_string(v.kind));
      }
      return v;
    }
  }
  throw ModelError("params", "parameter '" + name + "' was never declared");
}

int64_t BoundParams::integer(const std::string& n) const {
  return get(n, ParamKind::kInt).raw.get<int64_t>();
}
double BoundParams::real(const std::string& n) const {
  return get(n, ParamKind::kReal).raw.get<double>();
}
bool BoundParams::boolean(const std::string& n) const {
  return get(n, ParamKind::kBool).raw.get<bool>();
}
std::string BoundParams::str(const std::string& n) const {
  return get(n, ParamKind::kString).raw.get<std::string>();
}
Duration BoundParams::duration(const std::string& n) const {
  return Duration::ps(get(n, ParamKind::kDuration).base);
}
Frequency BoundParams::frequency(const std::string& n) const {
  return Frequency::hz(get(n, ParamKind::kFrequency).base);
}
Bytes BoundParams::bytes(const std::string& n) const {
  return Bytes(get(n, ParamKind::kBytes).base);
}
Bandwidth BoundParams::bandwidth(const std::string& n) const {
  return Bandwidth::bytes_per_s(get(n, ParamKind::kBandwidth).base);
}

bool BoundParams::present(const std::string& n) const {
  for (const auto& v : values_) {
    if (v.name == n) return v.given;
  }
  return false;
}

ConfigNode BoundParams::node(const std::string& name) const {
  for (const auto& v : values_) {
    if (v.name != name) continue;
    if (v.node) return *v.node;
    throw ModelError("params", "parameter '" + name + "' has no config node (not an object given)");
  }
  throw ModelError("params", "parameter '" + name + "' was never declared");
}

}  // namespace t3sim
