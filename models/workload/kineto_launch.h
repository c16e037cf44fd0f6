// Links each GPU kernel of a PyTorch profiler (Kineto) trace to the host ops that launched it:
// kernel -> "correlation" -> the runtime launch event (cudaLaunchKernel, cudaGraphLaunch,
// hipExtModuleLaunchKernel, ...) with the same correlation -> every cpu_op and user_annotation
// (PyTorch writes "nccl:all_reduce" as one) on the launching thread whose span encloses that launch
// (the op stack, outermost first). Kernels of a CUDA graph replay share the cudaGraphLaunch's
// correlation and are marked `graph`. When a trace has no runtime event for a kernel, the kernel's
// own "External id" is matched to a cpu_op's (the older linking, correct when Kineto kept the op's
// id on the kernel; in traces re-numbered by Holistic Trace Analysis the kernel's External id is
// its correlation id and matches nothing). Fidelity: exact for well-nested host spans; overlapping
// spans on one thread are treated as nested by start time. Source: pytorch/kineto
// libkineto/src/output_json.cpp (correlation and External id fields);
// facebookresearch/HolisticTraceAnalysis tests/data (re-numbered ids).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/kineto_events.h"

namespace t3sim::workload {

// The string member `key` of the event object `e`, or "" when absent or not a string.
std::string kineto_string(const nlohmann::json& e, std::string_view key);
// The "args" object of an event, or nullptr.
const nlohmann::json* kineto_args(const nlohmann::json& e);
// An integer member of args ("External id", "correlation"); either spelling of "External id".
std::optional<std::int64_t> kineto_id(const nlohmann::json* args, std::string_view key);
// A complete ("ph": "X") event whose lower-cased "cat" is one of `cats`.
bool is_kineto_complete(const nlohmann::json& e, std::initializer_list<std::string_view> cats);

struct KernelLaunch {
  std::optional<std::size_t> runtime;  // index of the launch event in traceEvents
  std::vector<std::size_t> stack;      // enclosing cpu_ops, outermost first
  bool graph = false;                  // launched by a CUDA/HIP graph replay
};

class LaunchIndex {
 public:
  explicit LaunchIndex(const KinetoEvents& events);

  // The launch of the kernel whose args are `kernel_args` (nullptr: none known).
  KernelLaunch launch_of(const nlohmann::json* kernel_args) const;
  std::size_t runtime_events() const { return runtime_.size(); }

 private:
  std::unordered_map<std::int64_t, std::size_t> runtime_;             // correlation -> event
  std::unordered_map<std::size_t, std::vector<std::size_t>> stacks_;  // runtime event -> ops
  std::unordered_map<std::int64_t, std::size_t> cpu_by_external_;     // External id -> cpu_op
  const KinetoEvents& events_;
};

}  // namespace t3sim::workload
