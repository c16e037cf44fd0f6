// Timeline of a trace replay (sim/timeline.h): one process for the replayed GPU, one track per
// stream, one slice per op at its scheduled start and duration, and an arrow from each fused GEMM
// to its all-reduce. Ops are simulated in isolation (replay.h), so the replay's timeline is at op
// level; `t3sim sublayer --trace-out` shows the resources inside one fused pair.
// Contract: slices on one stream never overlap (a stream runs its ops in order).
#pragma once

#include "models/system/replay.h"
#include "models/system/replay_ranks.h"
#include "sim/timeline.h"

namespace t3sim::system {

void record_replay(Timeline& tl, const ReplayResult& r);
// A multi-rank replay: one process per rank (pid = rank), the same tracks and slices per rank.
void record_replay(Timeline& tl, const MultiRankReplay& m);

}  // namespace t3sim::system
