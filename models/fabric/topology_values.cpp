#include "models/fabric/topology_values.h"

#include <algorithm>

#include "sim/errors.h"
#include "sim/units_parse.h"

namespace t3sim::fabric {

void TopologyValues::set(std::string_view name, Value v) {
  const auto it =
      std::find_if(values_.begin(), values_.end(), [&](const auto& p) { return p.first == name; });
  if (it != values_.end()) {
    it->second = std::move(v);
  } else {
    values_.emplace_back(std::string(name), std::move(v));
  }
}

bool TopologyValues::has(std::string_view name) const {
  return std::any_of(values_.begin(), values_.end(),
                     [&](const auto& p) { return p.first == name; });
}

void TopologyValues::add_defaults(const Params& declared) {
  for (const ParamSpec& s : declared.specs()) {
    if (!s.default_value || has(s.name)) continue;
    const nlohmann::json& d = *s.default_value;
    switch (s.kind) {
      case ParamKind::kInt:
        set(s.name, d.get<int64_t>());
        break;
      case ParamKind::kReal:
        set(s.name, d.get<double>());
        break;
      case ParamKind::kBool:
        set(s.name, d.get<bool>());
        break;
      case ParamKind::kString:
        set(s.name, d.get<std::string>());
        break;
      case ParamKind::kDuration:
        set(s.name, parse_duration(d.get<std::string>()));
        break;
      case ParamKind::kBandwidth:
        set(s.name, parse_bandwidth(d.get<std::string>()));
        break;
      case ParamKind::kBytes:
        set(s.name, parse_bytes(d.get<std::string>()));
        break;
      default:
        break;  // capture() refuses these kinds
    }
  }
}

const TopologyValues::Value& TopologyValues::find(std::string_view name) const {
  const auto it =
      std::find_if(values_.begin(), values_.end(), [&](const auto& p) { return p.first == name; });
  if (it == values_.end()) {
    throw ModelError("fabric", "topology key '" + std::string(name) +
                                   "' was not declared by the topology's row");
  }
  return it->second;
}

template <typename T>
const T& TopologyValues::get(std::string_view name) const {
  const T* v = std::get_if<T>(&find(name));
  if (v == nullptr) {
    throw ModelError("fabric",
                     "topology key '" + std::string(name) + "' read as another type than declared");
  }
  return *v;
}

int64_t TopologyValues::integer(std::string_view n) const { return get<int64_t>(n); }
double TopologyValues::real(std::string_view n) const { return get<double>(n); }
bool TopologyValues::boolean(std::string_view n) const { return get<bool>(n); }
const std::string& TopologyValues::str(std::string_view n) const { return get<std::string>(n); }
Duration TopologyValues::duration(std::string_view n) const { return get<Duration>(n); }
Bandwidth TopologyValues::bandwidth(std::string_view n) const { return get<Bandwidth>(n); }
Bytes TopologyValues::bytes(std::string_view n) const { return get<Bytes>(n); }

TopologyValues capture(const Params& declared, const BoundParams& b) {
  TopologyValues out;
  for (const ParamSpec& s : declared.specs()) {
    switch (s.kind) {
      case ParamKind::kInt:
        out.set(s.name, b.integer(s.name));
        break;
      case ParamKind::kReal:
        out.set(s.name, b.real(s.name));
        break;
      case ParamKind::kBool:
        out.set(s.name, b.boolean(s.name));
        break;
      case ParamKind::kString:
        out.set(s.name, b.str(s.name));
        break;
      case ParamKind::kDuration:
        out.set(s.name, b.duration(s.name));
        break;
      case ParamKind::kBandwidth:
        out.set(s.name, b.bandwidth(s.name));
        break;
      case ParamKind::kBytes:
        out.set(s.name, b.bytes(s.name));
        break;
      default:
        throw ModelError("fabric", "topology key '" + s.name + "' is a " + to_string(s.kind) +
                                       "; a topology's own keys are scalars");
    }
  }
  return out;
}

}  // namespace t3sim::fabric
