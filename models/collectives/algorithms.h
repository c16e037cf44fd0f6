// The collective algorithms, one table row each: name (config and CLI spelling), the operations it
// implements and its schedule builder (schedule.h). A new algorithm is one row here plus its
// schedule file. kAuto is not a row: it is resolved by Collective before a row is looked up.
// Contract: algorithm() throws ModelError for kAuto; algorithm_names() lists "auto" first.
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
  bool all_reduce_only;  // false: also reduce-scatter and all-gather
  Schedule (*build)(const Geometry&);
};

std::span<const AlgorithmSpec> algorithm_table();
const AlgorithmSpec& algorithm(Algo a);
// "auto" and every row's name, for one_of() and error messages.
std::vector<std::string> algorithm_names();

}  // namespace t3sim::collectives
