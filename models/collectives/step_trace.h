// Timeline hook of the collective executors: one slice per step (an op of a lane, from its start
// checks to its flag) on the track of its GPU's channel, named by phase and step number, so the
// reduce-scatter and all-gather steps line up per channel in the Perfetto view (sim/timeline.h).
// Contract: called only when the simulator records a timeline.
#pragma once

#include <string>

#include "models/collectives/schedule.h"
#include "sim/timeline.h"

namespace t3sim::collectives {

inline void trace_step(Timeline& tl, const Lane& lane, const Op& op, uint32_t step, Tick start,
                       Tick end) {
  const bool rs = op.phase == Phase::kReduceScatter;
  const uint32_t track = tl.track(lane.gpu, "collective channel " + std::to_string(lane.channel));
  tl.slice(track, (rs ? "RS step " : "AG step ") + std::to_string(step), start, end);
}

}  // namespace t3sim::collectives
