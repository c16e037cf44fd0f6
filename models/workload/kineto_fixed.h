// Why a Kineto import keeps a GPU event's time fixed instead of simulating it, as a few counted
// reasons each paired with what to change in the profiler: no shapes recorded (record_shapes
// off), a convolution without its stride/padding ("Concrete Inputs", which PyTorch records with
// record_shapes from 2.1), a kernel linked to no host op (an unknown kernel), a CUDA-graph
// replay, copies and sets without direction or bytes, host or peer copies, ops outside the
// memory-op table (kineto_memory.h), and matmuls, NCCL kernels or memory-bound ops unusable for
// another reason (the import's warnings say which). Invariant: every fixed GPU event has exactly
// one reason, so the reasons' time sums to the fixed time.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include "models/workload/kineto_events.h"
#include "models/workload/kineto_launch.h"
#include "models/workload/kineto_summary.h"

namespace t3sim::workload {

std::string_view to_string(FixedReason r);  // "no_shapes", "conv_no_stride", ...
std::string_view describe(FixedReason r);   // "no shapes recorded (record_shapes off)"
std::string_view fix_hint(FixedReason r);   // what to turn on, or "" when nothing would help

// The reason a GPU event of `category` (not simulated) stays fixed; `kernel_args` its args,
// `launch` what launched it, `events` the profile's events `launch` indexes.
FixedReason fixed_reason(KernelCategory category, const nlohmann::json* kernel_args,
                         const KernelLaunch& launch, const KinetoEvents& events);

}  // namespace t3sim::workload
