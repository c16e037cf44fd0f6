// The streams and dependencies of a Kineto import (kineto_import.h): CUDA streams renumbered to
// t3sim streams (the lowest without collectives 0, the lowest with collectives 1, the rest 2, 3,
// ... in id order), each op after its stream predecessor, and, when inferred, after the latest op
// of every other stream that ended before it started (Kineto records no cross-stream waits). Each
// op's idle time is its start minus the time it could have started. Invariant: ops keep their
// order (GPU events by start time); only stream numbers, deps and idle_us are written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/op.h"

namespace t3sim::workload {

// One imported GPU event on its way into the trace.
struct KinetoPending {
  Op op;
  std::int64_t cuda_stream = 0;
  double start_us = 0;
  double end_us = 0;
  std::vector<int> ranks = {};  // communication: the group's global ranks (empty: not recorded)
};

struct KinetoStreamTiming {
  std::int64_t streams = 0;
  double idle_us = 0;  // summed over ops, kept in op.idle_us when keep_idle
  double span_us = 0;  // first start to last end
};

// Writes op.stream, op.deps and (when keep_idle) op.idle_us of `pending` (not empty, in start
// order). A ConfigError naming `file` when there are more CUDA streams than a trace holds.
KinetoStreamTiming assign_kineto_streams(std::vector<KinetoPending>& pending, bool infer_cross,
                                         bool keep_idle, const std::string& file);

}  // namespace t3sim::workload
