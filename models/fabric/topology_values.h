// The values of a topology row's own keys (TopologyKind::declare in builders.h), bound from the
// config and kept by name, so that a builder reads "nodes_per_leaf" or "groups" without
// FabricConfig growing a field per topology. Values carry their unit type (Duration, Bandwidth,
// Bytes), as BoundParams gives them. Contract: reading a name that was not captured, or as another
// type than declared, is a ModelError (a builder/declaration mismatch, never a config problem).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::fabric {

class TopologyValues {
 public:
  using Value = std::variant<int64_t, double, bool, std::string, Duration, Bandwidth, Bytes>;

  // Adds or replaces a value (parsing, and tests that build a FabricConfig by hand).
  void set(std::string_view name, Value v);
  bool has(std::string_view name) const;
  // Sets every key of `declared` that has a default and no value yet (a FabricConfig built by
  // hand rather than parsed).
  void add_defaults(const Params& declared);
  int64_t integer(std::string_view name) const;
  double real(std::string_view name) const;
  bool boolean(std::string_view name) const;
  const std::string& str(std::string_view name) const;
  Duration duration(std::string_view name) const;
  Bandwidth bandwidth(std::string_view name) const;
  Bytes bytes(std::string_view name) const;

 private:
  template <typename T>
  const T& get(std::string_view name) const;
  const Value& find(std::string_view name) const;
  std::vector<std::pair<std::string, Value>> values_;
};

// The values of the keys `declared` lists, read from `b` (which bound at least those keys).
// ModelError for a declared object or array: a row's own keys are scalars.
TopologyValues capture(const Params& declared, const BoundParams& b);

}  // namespace t3sim::fabric
