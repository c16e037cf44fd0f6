#include "sim/registry.h"

#include "sim/errors.h"
#include "sim/port.h"
#include "sim/simulator.h"

namespace t3sim {

void Registry::add(ComponentType t) {
  const std::string name = t.type;
  if (!types_.emplace(name, std::move(t)).second) {
    throw ModelError("registry", "component type '" + name + "' registered twice");
  }
}

const ComponentType& Registry::get(const std::string& type) const {
  if (auto it = types_.find(type); it != types_.end()) return it->second;
  const std::string hint = nearest_name(type, types());
  throw ConfigError("", "",
                    "unknown component type '" + type + "'" +
                        (hint.empty() ? " (`t3sim describe` lists the types)"
                                      : " (did you mean '" + hint + "'?)"));
}

std::vector<std::string> Registry::types() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : types_) out.push_back(name);
  return out;
}

nlohmann::ordered_json Registry::describe(const std::string& type) const {
  const ComponentType& t = get(type);
  nlohmann::ordered_json out;
  out["type"] = t.type;
  out["description"] = t.description;
  out["params"] = t.params().describe();
  if (!t.build) return out;  // a parameter set, not a simulated component
  Simulator sim;
  const ConfigDoc doc = config_from_json(t.example_config, "<example:" + t.type + ">");
  auto instance = t.build(sim, &sim.root(), "example", ConfigNode::root(doc));
  nlohmann::ordered_json ports = nlohmann::ordered_json::array();
  for (const PortBase* p : instance->ports()) ports.push_back(p->name());
  out["ports"] = ports;
  out["stats"] = instance->stats().describe();
  return out;
}

}  // namespace t3sim
