// Imports a PyTorch profiler (Kineto) Chrome trace recorded with record_shapes=True: each GPU
// kernel, memcpy and memset becomes one op on its CUDA stream, in timestamp order. Kernels of
// aten::mm/addmm/matmul/linear/bmm/baddbmm become gemm ops (shape from "Input Dims"; split kernels
// merged); NCCL all-reduce/reduce-scatter/all-gather kernels become collectives sized by "In/Out
// msg nelems" x "dtype" (kernel args or record_param_comms); all else becomes a fixed op of its
// measured time. Fidelity: Kineto records no cross-stream waits; they are inferred from timestamps.
// Source: pytorch/kineto libkineto/src/output_json.cpp; format notes: traces/README.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/workload/trace.h"

namespace t3sim::workload {

struct KinetoImportOptions {
  // An op also waits for the latest op of every other stream that ended before it started.
  bool infer_cross_stream_deps = true;
};

// Streams are renumbered: the lowest CUDA stream without collectives becomes 0, the lowest with
// collectives 1, the rest 2, 3, ... in id order. Op ids read "s<cuda stream>.<n>.<kind>".
// Malformed input (missing "traceEvents", a GEMM without "Input Dims", an NCCL kernel without
// message sizes) is a ConfigError naming the event's JSON pointer.
Trace import_kineto(const nlohmann::json& chrome_trace, const std::string& file,
                    const KinetoImportOptions& options = {});

}  // namespace t3sim::workload
