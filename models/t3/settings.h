// T3's settings of one machine (a system config's "t3" object): the tracker table size
// (t3-paper.md §3.3) and how the fused reduce-scatter travels: one ring in GPU order (§3.8: GPU g
// sends its partial sums to g-1; "forward" sends to g+1, on the other wires of a bidirectional
// ring), the rings the collective planner finds on the fabric ("rings"), or "planned": direct
// updates on a full mesh, else the planner's rings (models/system/fused_rings.h).
// Bound once, when the System is built; mode runners read the struct.
// Contract: bind_t3() binds strictly (ConfigError naming the file and JSON pointer).
#pragma once

#include <cstdint>

#include "sim/config.h"
#include "sim/params.h"

namespace t3sim::t3 {

// The fused reduce-scatter's path: one ring in GPU order (g -> g-1 or g -> g+1), the planner's
// rings, or planned from the topology.
enum class RsRings : uint8_t { kBackward, kForward, kRings, kPlanned };

struct T3Settings {
  uint32_t tracker_entries = 0;  // tracker table entries per GPU
  RsRings rs_rings = RsRings::kPlanned;
};

// Every key of the "t3" object (the tracker's parameters).
Params t3_params();
T3Settings bind_t3(const ConfigNode& node);

}  // namespace t3sim::t3
