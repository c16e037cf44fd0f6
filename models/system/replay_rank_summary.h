// Per-rank totals of a multi-rank replay (replay_ranks.h) from its placed ops: total, idle,
// communication time (the union of communication ops' spans, waiting included), compute time
// (the union of the other ops' spans), wait and exposed communication (communication while no
// compute runs). Internal to models/system/replay_rank*.cpp.
// Contract: spans are merged before they are measured, so overlapping ops count once.
#pragma once

#include <vector>

#include "models/system/replay_ranks.h"

namespace t3sim::system::replay_detail {

// `unsimulated[i]`: op i kept its measured time (counted in unsimulated_comm_*).
RankReplay summarise_rank(const std::vector<ReplayOp>& ops, const std::vector<char>& unsimulated);

}  // namespace t3sim::system::replay_detail
