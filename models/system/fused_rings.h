// How T3's fused reduce-scatter travels on one machine (the system's t3.rs_direction, as
// models/t3/settings.h). backward / forward: one ring over the GPUs in id order (t3-paper.md
// §3.8). rings: the rings the collective library's channel planner finds on the fabric's directed
// links (models/collectives/channel_plan.h: a bidirectional ring's two directions, a cube mesh's or
// torus's rings), with its weights, each run so that partial sums follow the planner's hops.
// planned: on a full mesh (every GPU one link from every other) direct UPDATEs to the chunk owner,
// which load every link alike with no partial sum read back and forwarded; elsewhere as rings.
// Where the planner finds one ring (a switch) or the GPUs span nodes (the planner keeps the
// group's order there) the paper's backward ring is kept, which folds.
// Contract: every ring is a permutation of 0..gpus-1 in models/t3's convention (position i sends
// to position i-1), the first starting at GPU 0; weights has one entry per ring.
#pragma once

#include <cstdint>
#include <vector>

#include "models/system/system.h"

namespace t3sim::system {

struct FusedRoute {
  bool direct = false;  // direct UPDATEs (the rings then only number the chunks)
  std::vector<std::vector<int>> rings;
  std::vector<uint32_t> weights;
};

// The route of a ring-fused mode (t3, t3-mca). A direct-fused mode takes the one ring in GPU
// order (`ring_mode` false; planned reads as backward), which only numbers its chunks.
FusedRoute fused_route(System& sys, bool ring_mode);

}  // namespace t3sim::system
