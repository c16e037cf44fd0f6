#include "models/t3/settings.h"

#include <string>

#include "models/tracker/tracker.h"

namespace t3sim::t3 {

Params t3_params() {
  Params p = tracker::tracker_params();
  p.optional("rs_direction", ParamKind::kString, "planned",
             "fused reduce-scatter: backward = one ring, GPU g sends to g-1 (t3-paper.md §3.8), "
             "forward = to g+1 (does not fold), rings = the rings the collective planner finds "
             "on the fabric's links (several: every link carries a share; does not fold), "
             "planned = direct updates to the chunk owner on a full mesh, else as rings; both "
             "keep the backward ring where the planner finds one ring or the GPUs span nodes")
      .one_of({"backward", "forward", "rings", "planned"});
  return p;
}

T3Settings bind_t3(const ConfigNode& node) {
  const BoundParams b = bind(t3_params(), node);
  T3Settings s;
  s.tracker_entries = static_cast<uint32_t>(b.integer("tracker_entries"));
  const std::string dir = b.str("rs_direction");
  s.rs_rings = dir == "forward"    ? RsRings::kForward
               : dir == "backward" ? RsRings::kBackward
               : dir == "rings"    ? RsRings::kRings
                                   : RsRings::kPlanned;
  return s;
}

}  // namespace t3sim::t3
