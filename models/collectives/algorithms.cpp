#include "models/collectives/algorithms.h"

#include <array>

#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr std::array<AlgorithmSpec, 3> kAlgorithms{{
    {Algo::kRing, "ring", false, &make_ring},
    {Algo::kDirect, "direct", false, &make_direct},
    {Algo::kHierarchical, "hierarchical", true, &make_hierarchical},
}};

}  // namespace

std::span<const AlgorithmSpec> algorithm_table() { return kAlgorithms; }

const AlgorithmSpec& algorithm(Algo a) {
  for (const auto& row : kAlgorithms) {
    if (row.algo == a) return row;
  }
  throw ModelError("collectives", "algorithm 'auto' has no schedule (resolve it first)");
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> v{"auto"};
  for (const auto& row : kAlgorithms) v.emplace_back(row.name);
  return v;
}

}  // namespace t3sim::collectives
