// Folding a collective schedule for a rotation-symmetric run (models/common/mirror.h): keep the
// representatives' lanes (GPU 0's; node 0's GPUs under whole-node rotations). Connection c sent by
// GPU s is rep(s)'s connection rotated by shift(s), so a receive on c is rewired onto that one: the
// kept lanes consume what they sent, as they would consume GPU s's identical output; the data still
// crosses the link it names (remote_memory.h lands it back at a representative).
// Contract: the input is finalized and spans GPUs [0, gpus); FoldError unless every GPU g's lanes
// equal rep(g)'s (channels, op sizes, flags, fan-out, dependencies) with every connection rotated
// by shift(g), and no receive uses per-peer addressing. The result is finalized.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/collectives/schedule.h"
#include "models/common/mirror.h"

namespace t3sim::collectives {

Schedule fold_schedule(const Schedule& s, const common::GpuRotation& rot);

// The folded schedule of `s` once its symmetry is proven, shared by fold_schedule and FoldStream:
// the representatives' lanes `kept` (ids in s, in order), the representatives' sending connections
// renumbered, every receive rewired onto the representative's connection it rotates to;
// rotate(c, by) names connection c rotated by `by`. FoldError if a connection does not rotate onto
// its sender's representative's, or an op depends on a later op or another GPU's.
Schedule fold_onto_reps(const Schedule& s, const std::vector<uint32_t>& kept,
                        const common::GpuRotation& rot,
                        const std::function<uint32_t(uint32_t, int)>& rotate);

// For the ops of fold_schedule(s, gpus), in its order: the offset of the same op (same lane index,
// same op index) on every GPU, gpus entries per op (GPU r's entry at [op * gpus + r]). Executors
// whose data crosses every GPU's memory at once (NVLS) use it to land GPU r's part of a
// multi-GPU access in GPU 0's memory where its rotation puts it. Contract: as fold_schedule, with
// one representative (FoldError for whole-node rotations).
std::vector<uint64_t> fold_offsets(const Schedule& s, const common::GpuRotation& rot);

}  // namespace t3sim::collectives
