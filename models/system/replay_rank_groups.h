// Process groups of a multi-rank replay (replay_ranks.h): which global ranks each communication
// op of a rank runs with. An op that names a process group (workload/trace_groups.h: Kineto
// imports record them) runs on exactly those ranks, so groups narrower than the system (TP inside
// a node, DP across nodes) land on their own GPUs: rank r on GPU r. An op whose group is not
// named spans every rank in order, as before.
// Contract: fills Rank::members and named_group; a named group that does not hold the rank, has
// a rank outside the system, repeats a rank or differs from the op's tp_group, and an unnamed one
// whose tp_group is not the system's GPUs, are ConfigErrors naming the file and /ops/<i>.
#pragma once

#include <vector>

#include "models/system/replay_rank_state.h"

namespace t3sim::system::replay_detail {

// The groups of rank `rank`'s ops, from its trace's process groups.
void resolve_groups(Rank& k, int rank, int gpus);

// Fused GEMM + collective pairs whose collective runs on a sub-group are split: the sublayer
// runner fuses over every GPU only.
void unfuse_subgroups(Rank& k);

}  // namespace t3sim::system::replay_detail
