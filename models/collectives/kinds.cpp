#include "models/collectives/kinds.h"

#include <array>

#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

// Sizes follow nccl-tests: all_reduce, broadcast, reduce and sendrecv report the per-rank buffer;
// reduce_scatter and all_gather the whole array (n parts); alltoall the per-rank send buffer (n
// parts). Source: NVIDIA/nccl-tests doc/PERFORMANCE.md (validation/reference/hardware.md §5.5).
constexpr std::array<KindSpec, 7> kKinds{{
    {Kind::kAllReduce, "all_reduce", "all_reduce_perf", true, false, false, BusRule::kTwoPasses,
     Algo::kRing},
    {Kind::kReduceScatter, "reduce_scatter", "reduce_scatter_perf", true, false, true,
     BusRule::kOnePass, Algo::kRing},
    {Kind::kAllGather, "all_gather", "all_gather_perf", false, false, true, BusRule::kOnePass,
     Algo::kRing},
    {Kind::kBroadcast, "broadcast", "broadcast_perf", false, true, false, BusRule::kUnity,
     Algo::kRing},
    {Kind::kReduce, "reduce", "reduce_perf", true, true, false, BusRule::kUnity, Algo::kRing},
    {Kind::kAllToAll, "all_to_all", "alltoall_perf", false, false, true, BusRule::kOnePass,
     Algo::kDirect},
    {Kind::kSendRecv, "send_recv", "sendrecv_perf", false, false, false, BusRule::kUnity,
     Algo::kDirect},
}};

}  // namespace

std::span<const KindSpec> kind_table() { return kKinds; }

const KindSpec& kind_spec(Kind k) {
  for (const KindSpec& row : kKinds) {
    if (row.kind == k) return row;
  }
  throw ModelError("collectives", "collective kind without a table row");
}

double busbw_factor(Kind k, int ranks) {
  const double n = ranks;
  switch (kind_spec(k).bus) {
    case BusRule::kTwoPasses:
      return 2.0 * (n - 1) / n;
    case BusRule::kOnePass:
      return (n - 1) / n;
    case BusRule::kUnity:
      break;
  }
  return 1.0;
}

}  // namespace t3sim::collectives
