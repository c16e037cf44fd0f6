// Parameter declarations and strict binding. A component declares each parameter once (name, kind
// with unit, required or default, range, description); bind() checks a config object against the
// declaration: unknown key -> ConfigError with "did you mean"; missing required key; wrong type;
// bare number for a dimensioned value; out of range. The bound set records the resolved values
// (defaults filled in) so the Simulator can dump the resolved config beside the results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config.h"
#include "sim/units.h"

namespace t3sim {

enum class ParamKind {
  kInt,
  kReal,
  kBool,
  kString,
  kDuration,
  kFrequency,
  kBytes,
  kBandwidth,
  kObject,
  kArray
};

const char* to_string(ParamKind k);

struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::kInt;
  std::string description;
  std::optional<nlohmann::json> default_value;  // empty = required
  std::optional<double> min;                    // in base units (ps, Hz, B, B/s) for dimensioned
  std::optional<double> max;
  std::vector<std::string> choices;  // for kString: allowed values (empty = any)
};

class Params {
 public:
  Params& required(std::string name, ParamKind kind, std::string description);
  Params& optional(std::string name, ParamKind kind, nlohmann::json default_value,
                   std::string description);
  // Modifiers of the most recently declared parameter.
  Params& range(double lo, double hi);
  Params& at_least(double lo);
  Params& one_of(std::vector<std::string> choices);

  const std::vector<ParamSpec>& specs() const { return specs_; }
  const ParamSpec* find(const std::string& name) const;
  nlohmann::ordered_json describe() const;

 private:
  std::vector<ParamSpec> specs_;
};

class BoundParams {
 public:
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  bool boolean(const std::string& name) const;
  std::string str(const std::string& name) const;
  Duration duration(const std::string& name) const;
  Frequency frequency(const std::string& name) const;
  Bytes bytes(const std::string& name) const;
  Bandwidth bandwidth(const std::string& name) const;
  // Object/array parameters that were given: the node, for nested binding (check present()).
  ConfigNode node(const std::string& name) const;
  bool present(const std::string& name) const;  // given in the config (not defaulted)
  const nlohmann::ordered_json& resolved() const { return resolved_; }

 private:
  friend BoundParams bind(const Params&, const ConfigNode&);
  struct Value {
    std::string name;
    ParamKind kind;
    nlohmann::json raw;  // the JSON value after unwrapping {"value":...}
    uint64_t base = 0;   // parsed dimensioned value in base units
    bool given = false;
    std::optional<ConfigNode> node;
  };
  const Value& get(const std::string& name, ParamKind kind) const;
  std::vector<Value> values_;
  nlohmann::ordered_json resolved_;
};

BoundParams bind(const Params& params, const ConfigNode& node);

}  // namespace t3sim
