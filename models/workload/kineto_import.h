// Imports a PyTorch profiler (Kineto) Chrome trace: each GPU kernel, memcpy and memset becomes
// one op on its CUDA stream, in timestamp order. A kernel is linked to the host ops that launched
// it through its correlation id and runtime launch (kineto_launch.h). Kernels of aten::mm/addmm/
// matmul/linear/bmm/baddbmm become gemm ops (shape from "Input Dims"; split kernels merged; FP32
// on TF32 kernels becomes tf32; kineto_gemm.h); NCCL/RCCL all-reduce, reduce-scatter and
// all-gather kernels become collectives (kineto_comms.h); kernels of element-wise, normalization,
// softmax, reduction, embedding and copy ops, device-to-device copies and device memsets become
// memory ops of their bytes (kineto_memory.h, kineto_copies.h; an op's bytes split evenly over
// the kernels it launched); all else becomes a fixed op of its measured time.
// Lenient by default: an op that should be modelled but cannot be (no shape, no message size, a
// collective the library lacks, a CUDA-graph kernel) stays a fixed op and is counted in a grouped
// warning; `strict` makes the first such op a ConfigError. Idle time on each stream (after an
// op's deps and stream predecessor ended, before it started) is kept as the op's idle_us unless
// dropped, and the summary says which. Fidelity: Kineto records no cross-stream waits; they are
// inferred from timestamps. Source: pytorch/kineto libkineto/src/output_json.cpp; traces/README.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/kineto_events.h"
#include "models/workload/kineto_summary.h"
#include "models/workload/trace.h"

namespace t3sim::workload {

struct KinetoImportOptions {
  // An op also waits for the latest op of every other stream that ended before it started.
  bool infer_cross_stream_deps = true;
  // An op that cannot be modelled is a ConfigError instead of a fixed op with a warning.
  bool strict = false;
  // Record each op's idle_us (else drop idle time; the summary reports how much).
  bool keep_idle = true;
};

// The trace's metadata.rank is the profile's global rank (distributedInfo.rank) when recorded,
// and each communication op whose profile names its process group points at that group's global
// ranks in metadata.process_groups (trace_groups.h), so the ranks' traces replay together with
// each group on its own GPUs (models/system/replay_ranks.h), from memory or from saved files.
struct KinetoImport {
  Trace trace;
  ImportSummary summary;
};

// Streams are renumbered: the lowest CUDA stream without collectives becomes 0, the lowest with
// collectives 1, the rest 2, 3, ... in id order. Op ids read "s<cuda stream>.<n>.<kind>".
// Malformed input (no "traceEvents", no GPU event, a GPU event without ts/dur) is a ConfigError
// naming the JSON pointer, in either mode.
KinetoImport import_kineto_profile(const nlohmann::json& chrome_trace, const std::string& file,
                                   const KinetoImportOptions& options = {});
Trace import_kineto(const nlohmann::json& chrome_trace, const std::string& file,
                    const KinetoImportOptions& options = {});

// Reads the profile at `path` and imports it. A file starting with '{' is streamed
// (json_stream.h): only the events the import reads are kept (GPU kernels, memcpys and memsets,
// runtime launches, cpu_ops and user annotations), with only the members and args it reads, so
// memory follows those events, not the file (a 300 MB profile of 200k kernels: see
// docs/traces.md); the result equals import_kineto_profile of the whole document. Other files
// (gzip) are read whole within sim/json_file.h's limits.
KinetoImport import_kineto_file(const std::filesystem::path& path,
                                const KinetoImportOptions& options = {});

// The import of `events`, the events kept from a profile's traceEvents (kineto_events.h; freed
// once every GPU event is added);
// `original` holds each one's index there (for error pointers); `world_size` comes from the
// profile's distributedInfo.
KinetoImport import_kineto_events(KinetoEvents events, const std::vector<std::size_t>& original,
                                  std::optional<std::int64_t> world_size, const std::string& file,
                                  const KinetoImportOptions& options,
                                  std::optional<int> rank = std::nullopt);

}  // namespace t3sim::workload
