// T3's settings of one machine (a system config's "t3" object): the tracker table size
// (t3-paper.md §3.3) and the direction of the fused reduce-scatter's ring (§3.8: GPU g sends its
// partial sums to g-1; "forward" sends to g+1, on the other wires of a bidirectional ring).
// Bound once, when the System is built; mode runners read the struct.
// Contract: bind_t3() binds strictly (ConfigError naming the file and JSON pointer).
#pragma once

#include <cstdint>

#include "sim/config.h"
#include "sim/params.h"

namespace t3sim::t3 {

struct T3Settings {
  uint32_t tracker_entries = 0;  // tracker table entries per GPU
  bool rs_forward = false;       // fused RS ring: GPU g sends to g+1 (false: to g-1)
};

// Every key of the "t3" object (the tracker's parameters).
Params t3_params();
T3Settings bind_t3(const ConfigNode& node);

}  // namespace t3sim::t3
