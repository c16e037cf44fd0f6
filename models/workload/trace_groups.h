// Process groups in a t3sim trace: which global ranks each communication op runs with. The
// metadata holds the trace's own `rank` and a table `process_groups` (each the global ranks of one
// communicator in group-rank order); a communication op names its row by `process_group`. An op
// without one runs on ranks 0 .. tp_group - 1, as before the table existed (traces of format
// version 1 without these keys read unchanged). Invariants checked on reading: every row holds
// distinct ranks in [0, 2^20), holds the trace's rank when it is given, and is not repeated; an
// op's row exists and its size is the op's tp_group (which defaults to it). Spec: traces/README.md.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/workload/trace.h"
#include "sim/strict_json.h"

namespace t3sim::workload {

constexpr int kMaxRank = (1 << 20) - 1;

// metadata "rank" and "process_groups" from the metadata object `r` into `m`.
void read_rank_and_groups(const ObjectReader& r, TraceMetadata& m);

// An op's "process_group" (communication ops only), checked against `metadata`; sets
// op.process_group and, when the op gives none, op.tp_group to the group's size.
void read_op_group(const ObjectReader& r, Op& op, const TraceMetadata& metadata);

// The row of `ranks` in metadata.process_groups, appended when new (importers).
int intern_process_group(TraceMetadata& metadata, std::vector<int> ranks);

// The global ranks `op` runs with: its process group's row, or empty when it names none.
std::span<const int> op_group_ranks(const Trace& trace, const Op& op);

// Per op of `trace`, op_group_ranks (the form models/system/replay_ranks.h takes).
std::vector<std::vector<int>> trace_group_ranks(const Trace& trace);

// For traces built in memory (check_trace calls it): every op's process_group names a row and
// matches its tp_group. ConfigError naming /ops/<i>/process_group.
void check_process_groups(const Trace& trace, const std::string& file);

}  // namespace t3sim::workload
