// One collective of the collectives library (models/collectives/collective.h) alone on a system,
// as `t3sim nccl-tests` runs it: any of the library's kinds (broadcast, reduce, all-to-all,
// send/recv as well as the reducing collectives), on the library's own algorithm, protocol and
// executor choice. Fidelity: the library's schedule on the full fabric and memory model; folded
// onto GPU 0 (models/common/mirror.h) when the run is rotation-symmetric, else every GPU runs.
// Trace replay (replay.h) uses it for the kinds the sublayer runner does not run.
// Contract: deterministic; ConfigError for a request the library refuses (size not whole
// elements per rank, a group that is not the system's GPUs).
#pragma once

#include "models/collectives/collective.h"
#include "sim/config.h"

namespace t3sim::system {

// The collective's time in microseconds, from start to every GPU holding its result.
double run_library_collective(const ConfigDoc& system_doc, collectives::CollectiveSpec spec);

}  // namespace t3sim::system
