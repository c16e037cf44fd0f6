// The collective operations, one table row each: config and output spelling, nccl-tests program
// name, whether it reduces, whether it has a root, how the size S divides among ranks, the
// nccl-tests bus-bandwidth rule (hardware.md §5.5) and the algorithm auto-selection prefers.
// A new kind is one row here plus its lanes in the schedules that implement it (algorithms.h).
// Contract: kind_spec() has a row for every Kind; names and test names are unique literals.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "models/collectives/library.h"

namespace t3sim::collectives {

// busbw / algbw (nccl-tests PERFORMANCE.md): 2(n-1)/n, (n-1)/n, or 1.
enum class BusRule : uint8_t { kTwoPasses, kOnePass, kUnity };

struct KindSpec {
  Kind kind;
  std::string_view name;  // "all_reduce"
  std::string_view test;  // nccl-tests program, "all_reduce_perf"
  bool reduces;           // redop sum (else none)
  bool rooted;            // broadcast, reduce
  bool split_by_rank;     // S is n per-rank parts (reduce-scatter, all-gather, all-to-all)
  BusRule bus;
  Algo preferred;  // auto algorithm within one node
};

std::span<const KindSpec> kind_table();
const KindSpec& kind_spec(Kind k);
// Bus-bandwidth factor of `k` over n ranks.
double busbw_factor(Kind k, int ranks);
// Parses the config spelling or the nccl-tests program name; ConfigError naming `what` if unknown.
Kind parse_kind(const std::string& s, const std::string& what);

}  // namespace t3sim::collectives
