// Folding a collective schedule for a rotation-symmetric run (models/common/mirror.h): keep GPU 0's
// lanes and ops only; each of GPU 0's sending connections (0 -> d) also becomes the connection it
// receives on by symmetry ((-d) -> 0, the same connection rotated by -d), so GPU 0's receiving lane
// consumes exactly what GPU 0's sending lane produced, as it would consume GPU -d's identical
// output. The data still crosses the link 0 -> d (remote_memory.h lands it back at GPU 0).
// Contract: the input is finalized and spans GPUs [0, gpus); FoldError unless every GPU g's lanes
// equal GPU 0's (same channels, op sizes, flags, fan-out, dependencies) with every connection
// rotated by g, and no receive uses per-peer addressing. The result is finalized. "Rotated by g"
// is GpuRotation's (models/common/mirror.h): plain modulo N, or node and local index apart.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/collectives/schedule.h"
#include "models/common/mirror.h"

namespace t3sim::collectives {

Schedule fold_schedule(const Schedule& s, const common::GpuRotation& rot);

// For the ops of fold_schedule(s, gpus), in its order: the offset of the same op (same lane index,
// same op index) on every GPU, gpus entries per op (GPU r's entry at [op * gpus + r]). Executors
// whose data crosses every GPU's memory at once (NVLS) use it to land GPU r's part of a
// multi-GPU access in GPU 0's memory where its rotation puts it. Contract: as fold_schedule.
// The folded schedule of `s` once its symmetry is proven, shared by fold_schedule and FoldStream:
// GPU 0's lanes `lanes0` (ids in s, in order), GPU 0's sending connections renumbered, every
// receive rewired onto the sending connection it rotates to; rotate(c, by) names connection c
// rotated by `by`. FoldError if a connection does not rotate onto one of GPU 0's, or an op depends
// on a later one.
Schedule fold_onto_gpu0(const Schedule& s, const std::vector<uint32_t>& lanes0,
                        const common::GpuRotation& rot,
                        const std::function<uint32_t(uint32_t, int)>& rotate);

std::vector<uint64_t> fold_offsets(const Schedule& s, const common::GpuRotation& rot);

}  // namespace t3sim::collectives
