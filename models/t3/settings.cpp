#include "models/t3/settings.h"

#include "models/tracker/tracker.h"

namespace t3sim::t3 {

Params t3_params() {
  Params p = tracker::tracker_params();
  p.optional("rs_direction", ParamKind::kString, "backward",
             "fused reduce-scatter ring: backward = GPU g sends to g-1 (t3-paper.md §3.8), "
             "forward = to g+1; a forward ring does not fold (simulates every GPU)")
      .one_of({"backward", "forward"});
  return p;
}

T3Settings bind_t3(const ConfigNode& node) {
  const BoundParams b = bind(t3_params(), node);
  T3Settings s;
  s.tracker_entries = static_cast<uint32_t>(b.integer("tracker_entries"));
  s.rs_forward = b.str("rs_direction") == "forward";
  return s;
}

}  // namespace t3sim::t3
