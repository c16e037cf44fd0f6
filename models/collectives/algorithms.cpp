#include "models/collectives/algorithms.h"

#include <array>

#include "models/collectives/algorithms/halving_doubling.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr uint32_t kRsAgAr =
    kind_bit(Kind::kAllReduce) | kind_bit(Kind::kReduceScatter) | kind_bit(Kind::kAllGather);

// The one place an algorithm is registered: a row, in the order of Algo's named constants
// (checked below); rows past them are reached by name.
constexpr std::array kAlgorithms{
    AlgorithmSpec{"ring",
                  "NCCL's ring: each GPU sends to its successor, n-1 steps per pass (all-reduce: "
                  "reduce-scatter then all-gather)",
                  kRsAgAr | kind_bit(Kind::kBroadcast) | kind_bit(Kind::kReduce), &make_ring},
    AlgorithmSpec{"direct",
                  "one-shot: each GPU sends every peer its part in one fan-out step, then reduces "
                  "or stores what it received (switch and mesh fabrics)",
                  kRsAgAr | kind_bit(Kind::kAllToAll) | kind_bit(Kind::kSendRecv), &make_direct},
    AlgorithmSpec{"hierarchical",
                  "across nodes: ring reduce-scatter in each node, ring all-reduce across nodes, "
                  "ring all-gather in each node",
                  kind_bit(Kind::kAllReduce), &make_hierarchical},
    AlgorithmSpec{"nvls",
                  "NVLink SHARP: the NVSwitch reduces and multicasts (collectives.nvls_channels)",
                  kRsAgAr, &make_nvls},
    AlgorithmSpec{"tree",
                  "NCCL's Tree all-reduce: a chain in each node, a double binary tree across nodes",
                  kind_bit(Kind::kAllReduce), &make_tree},
    halving_doubling_algorithm(),
};

static_assert(kAlgorithms.size() < 255, "Algo holds a row index in 8 bits");
constexpr bool names_row(Algo a, std::string_view name) {
  return kAlgorithms[a.row - 1u].name == name;
}
static_assert(names_row(Algo::kRing, "ring") && names_row(Algo::kDirect, "direct") &&
                  names_row(Algo::kHierarchical, "hierarchical") &&
                  names_row(Algo::kNvls, "nvls") && names_row(Algo::kTree, "tree"),
              "Algo's named constants must name their rows of kAlgorithms");

}  // namespace

std::span<const AlgorithmSpec> algorithm_table() { return kAlgorithms; }

const AlgorithmSpec& algorithm(Algo a) {
  if (a.row == 0 || a.row > kAlgorithms.size()) {
    throw ModelError("collectives", "algorithm 'auto' has no schedule (resolve it first)");
  }
  return kAlgorithms[a.row - 1u];
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> v{"auto"};
  for (const auto& row : kAlgorithms) v.emplace_back(row.name);
  return v;
}

std::string algorithm_choices() {
  std::string s;
  for (const std::string& n : algorithm_names()) s += (s.empty() ? "" : " | ") + n;
  return s;
}

std::string algorithm_help() {
  std::string s = "auto: the tuner's least estimated time (or the size thresholds)";
  for (const auto& row : kAlgorithms) {
    s += "\n";
    s += row.name;
    s += ": ";
    s += row.help;
  }
  return s;
}

}  // namespace t3sim::collectives
