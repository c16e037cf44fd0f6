// Send/recv matching for trace replay (replay.h). Every rank runs the trace's program, so rank r's
// `send` with peer d is received by rank r + d's `recv` with peer g - d (g: the group): the k-th
// send of (d, bytes, group) in trace order matches the k-th such recv. A matched recv finishes
// when the send's data has arrived (an eager send, as ASTRA-sim's p2p: the sender does not wait
// for the receiver), so replay places the send first. A pair whose send waits, through its deps
// and streams, for the recv (every rank receiving before it sends: a deadlock on hardware) stays
// unmatched, and an unmatched recv is replayed as its own transfer.
// Contract: match[i] is the matched send of recv i, else -1; matching never makes a cycle.
#pragma once

#include <vector>

#include "models/workload/trace.h"

namespace t3sim::system::replay_detail {

// `succs`: each op's successors (deps and stream order); `partner`: fused pairs (-1 none), run
// as one unit, so a path through either op of a pair counts.
std::vector<int> match_sends(const workload::Trace& trace,
                             const std::vector<std::vector<int>>& succs,
                             const std::vector<int>& partner);

}  // namespace t3sim::system::replay_detail
