// Explicit registry of component types: each model library exposes register_<lib>_models(Registry&)
// and the CLI calls them from one place (no static-initialiser registration). An entry carries the
// type's description, its parameter declaration, and an example config from which `t3sim describe`
// builds a throw-away instance to list its ports and stats (so those are declared only once, in
// code).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/component.h"
#include "sim/params.h"

namespace t3sim {

struct ComponentType {
  std::string type;
  std::string description;
  std::function<Params()> params;
  nlohmann::json example_config;
  // Builds an instance from a bound config (used by describe, and by system builders); empty for
  // parameter sets that are not components on their own (e.g. a GPU's compute spec).
  std::function<std::unique_ptr<Component>(Simulator&, Component* parent, const std::string& name,
                                           const ConfigNode&)>
      build;
};

class Registry {
 public:
  void add(ComponentType t);
  const ComponentType& get(const std::string& type) const;  // ConfigError with suggestion
  std::vector<std::string> types() const;
  // {"type","description","params":[...],"ports":[...],"stats":[...]}
  nlohmann::ordered_json describe(const std::string& type) const;

 private:
  std::map<std::string, ComponentType> types_;
};

}  // namespace t3sim
