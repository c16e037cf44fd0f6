// The structural check of a Chrome/Perfetto trace (sim/timeline_check.h: slices of one track nest
// or are disjoint, async slices of one id alternate begin/end, every flow has a start and an end,
// counters rise in time, every used track and process is named) on a file of any size, streamed
// (models/workload/json_stream.h). Memory is bounded by the trace's tracks, async ids, counters and
// flows, not by its events: a track whose slices arrive in start order is checked with a stack of
// its open slices. A track or async id whose events arrive out of order is checked as the
// whole-document check does, from its events gathered in a second pass over the file.
// Contract: the same verdict as check_timeline(read_json_file(path)) (problems may come in another
// order); a file that is not JSON is a ConfigError naming the file and the pointer.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace t3sim::workload {

// Problems found (at most `limit`); empty when the trace is sound.
std::vector<std::string> check_timeline_file(const std::filesystem::path& path,
                                             std::size_t limit = 20);

}  // namespace t3sim::workload
