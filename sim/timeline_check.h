// Structural check of a Chrome/Perfetto trace (the timeline contract of sim/timeline.h, applied to
// any trace): complete slices on one track nest or are disjoint, never partially overlap; async
// slices of one id alternate begin/end; every flow arrow has a start and an end; every counter's
// samples rise strictly in time; every track and process with events is named. `t3sim check` runs
// it on Chrome traces, and the timeline tests run it on what the models record.
// Contract: returns the problems found (at most `limit`), empty when the trace is sound.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace t3sim {

std::vector<std::string> check_timeline(const nlohmann::json& trace, size_t limit = 20);

}  // namespace t3sim
