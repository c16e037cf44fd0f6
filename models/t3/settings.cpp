#include "models/t3/settings.h"

#include "models/tracker/tracker.h"

namespace t3sim::t3 {

Params t3_params() { return tracker::tracker_params(); }

T3Settings bind_t3(const ConfigNode& node) {
  const BoundParams b = bind(t3_params(), node);
  T3Settings s;
  s.tracker_entries = static_cast<uint32_t>(b.integer("tracker_entries"));
  return s;
}

}  // namespace t3sim::t3
