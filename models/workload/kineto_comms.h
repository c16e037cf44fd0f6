// The collective behind one NCCL/RCCL kernel of a Kineto trace. Its kind comes from, in order:
// the launching record_param_comms "Collective name", a "c10d::"/"nccl:" host op around the launch,
// the kernel name (ncclDevKernel_Generic names none). Its size from: the kernel's own "In/Out msg
// nelems" + "dtype" (PyTorch >= 2.1), the record_param_comms' nelems, the [output, input] "Input
// Dims" of c10d::_allgather_base_ / _reduce_scatter_base_ (full buffer and shard: their ratio is
// the group), else the "Input Dims" and "Input type" of the nccl:/record_param_comms op (older
// PyTorch: the input tensor; an all-gather's input is one shard). Its group from "Group size",
// else that ratio, else the trace's distributedInfo.world_size.
// A send or recv (named so by its "Collective name" or c10d op) becomes a send/recv op whose peer
// is the other side's position in the group relative to this rank (`own_rank`: the profile's
// distributedInfo.rank), and each op keeps its group's global ranks (kineto_groups.h).
// Exact when the fields are present; a kernel that lacks any of them is reported, not guessed.
// Source: PyTorch ProcessGroupNCCL record_param_comms; HolisticTraceAnalysis tests/data traces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/kineto_events.h"
#include "models/workload/kineto_launch.h"
#include "models/workload/op.h"

namespace t3sim::workload {

struct CommOutcome {
  std::optional<Op> op;    // a collective op (kind, bytes, dtype, tp_group, name); else unmodelled
  std::string reason;      // why not, the same text for every kernel of that reason
  std::string detail;      // this kernel's particulars
  std::string pointer;     // where the missing or unusable field is
  std::vector<int> ranks;  // the group's global ranks in group order (kineto_groups.h); empty:
                           // the profile does not say
};

// `kernel` is events[index]; `events` the whole array, or the events kept from it (`original`:
// each kept event's index in the file's traceEvents, for error pointers; nullptr: the same).
CommOutcome collective_of_kernel(const KinetoEvents& events, std::size_t index,
                                 const KernelLaunch& launch, std::optional<std::int64_t> world_size,
                                 const std::vector<std::size_t>* original = nullptr,
                                 std::optional<int> own_rank = std::nullopt);

bool is_comm_kernel(std::string_view kernel_name);

}  // namespace t3sim::workload
