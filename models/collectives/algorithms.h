// The collective algorithms, one table row each: name (config and CLI spelling), the operations
// (kinds.h) it implements and its schedule builder (schedule.h). A new algorithm is one row here
// plus its schedule file. kAuto is not a row: it is resolved by Collective before a row is looked
// up. Contract: algorithm() throws ModelError for kAuto; algorithm_names() lists "auto" first.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/collectives/library.h"
#include "models/collectives/schedule.h"

namespace t3sim::collectives {

struct AlgorithmSpec {
  Algo algo;
  std::string_view name;
  uint32_t kinds;  // bit (1 << Kind) for every kind its schedule implements
  Schedule (*build)(const Geometry&);
  bool implements(Kind k) const { return (kinds >> static_cast<unsigned>(k)) & 1u; }
};

constexpr uint32_t kind_bit(Kind k) { return 1u << static_cast<unsigned>(k); }

std::span<const AlgorithmSpec> algorithm_table();
const AlgorithmSpec& algorithm(Algo a);
// "auto" and every row's name, for one_of() and error messages.
std::vector<std::string> algorithm_names();

}  // namespace t3sim::collectives
