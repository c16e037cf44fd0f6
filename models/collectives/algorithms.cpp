#include "models/collectives/algorithms.h"

#include <array>

#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr std::array<AlgorithmSpec, 5> kAlgorithms{{
    {Algo::kRing, "ring",
     kind_bit(Kind::kAllReduce) | kind_bit(Kind::kReduceScatter) | kind_bit(Kind::kAllGather) |
         kind_bit(Kind::kBroadcast) | kind_bit(Kind::kReduce),
     &make_ring},
    {Algo::kDirect, "direct",
     kind_bit(Kind::kAllReduce) | kind_bit(Kind::kReduceScatter) | kind_bit(Kind::kAllGather) |
         kind_bit(Kind::kAllToAll) | kind_bit(Kind::kSendRecv),
     &make_direct},
    {Algo::kHierarchical, "hierarchical", kind_bit(Kind::kAllReduce), &make_hierarchical},
    {Algo::kNvls, "nvls",
     kind_bit(Kind::kAllReduce) | kind_bit(Kind::kReduceScatter) | kind_bit(Kind::kAllGather),
     &make_nvls},
    {Algo::kTree, "tree", kind_bit(Kind::kAllReduce), &make_tree},
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
