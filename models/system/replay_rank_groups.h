// Process groups of a multi-rank replay (replay_ranks.h): which global ranks each communication
// op of a rank runs with. A trace records only the group's size (`tp_group`); a Kineto profile
// also its ranks (workload::KinetoImport::groups), so groups narrower than the system (TP inside
// a node, DP across nodes) land on their own GPUs: rank r on GPU r. An op whose group is not
// named spans every rank in order, as before.
// Contract: fills Rank::members and named_group; a named group that does not hold the rank, has
// a rank outside the system, repeats a rank or differs from the op's tp_group, and an unnamed one
// whose tp_group is not the system's GPUs, are ConfigErrors naming the file and /ops/<i>.
#pragma once

#include <vector>

#include "models/system/replay_rank_state.h"

namespace t3sim::system::replay_detail {

// `named`: per op, the group's global ranks (empty: not named; may be empty for every op).
void resolve_groups(Rank& k, int rank, int gpus, const std::vector<std::vector<int>>& named);

// Fused GEMM + collective pairs whose collective runs on a sub-group are split: the sublayer
// runner fuses over every GPU only.
void unfuse_subgroups(Rank& k);

}  // namespace t3sim::system::replay_detail
