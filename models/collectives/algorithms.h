// The collective algorithms, one table row each: name (config and CLI spelling), a one-line help,
// the operations (kinds.h) it implements, its schedule builder (schedule.h) and the group sizes it
// refuses. A new algorithm is its own folder entry, algorithms/<name>.{h,cpp}, holding its builder
// and a function returning its row, plus that row's line in algorithms.cpp; help strings and
// allowed values (`--algo`, "collectives.algorithm", `t3sim describe`) come from this table.
// Algo::kAuto is not a row: Collective resolves it before a row is looked up.
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
  std::string_view name;
  std::string_view help;  // one line: what the schedule does
  uint32_t kinds = 0;     // bit (1 << Kind) for every kind its schedule implements
  Schedule (*build)(const Geometry&) = nullptr;
  // The size rule: empty when the algorithm can lay out `g`, else one line saying why not (the
  // caller names the config path). nullptr: no rule beyond the builder's own.
  std::string (*refuse)(const Geometry& g) = nullptr;
  constexpr bool implements(Kind k) const { return (kinds >> static_cast<unsigned>(k)) & 1u; }
};

constexpr uint32_t kind_bit(Kind k) { return 1u << static_cast<unsigned>(k); }

std::span<const AlgorithmSpec> algorithm_table();
const AlgorithmSpec& algorithm(Algo a);
// The handle of table row `index` (0-based).
constexpr Algo algo_of_row(size_t index) { return Algo{static_cast<uint8_t>(index + 1)}; }
// "auto" and every row's name, for one_of() and error messages.
std::vector<std::string> algorithm_names();
// "auto | ring | ...", and "name: help" lines ("auto" first, no trailing newline), for option help
// and `t3sim describe`.
std::string algorithm_choices();
std::string algorithm_help();

}  // namespace t3sim::collectives
