#include "models/workload/kineto_fixed.h"

#include <array>
#include <optional>

#include "models/workload/kineto_memory.h"
#include "models/workload/kineto_names.h"

namespace t3sim::workload {
namespace {

struct ReasonInfo {
  std::string_view key;
  std::string_view text;
  std::string_view hint;
};

constexpr std::array<ReasonInfo, kFixedReasons> kReasons = {{
    {"no_shapes", "no shapes recorded (record_shapes off)", "profile with record_shapes=True"},
    {"conv_no_stride", "convolution without stride/padding",
     "record_shapes=True on PyTorch >= 2.1 records them (\"Concrete Inputs\"); t3sim does not "
     "simulate convolutions yet"},
    {"convolution", "convolution (not modelled)", ""},
    {"unknown_kernel", "kernel linked to no host op",
     "profile with activities=[CPU, CUDA] so launches and ops are recorded"},
    {"cuda_graph", "CUDA graph replay (no op per kernel)",
     "profile a step without CUDA graphs (e.g. torch.compile mode=\"default\")"},
    {"copy", "memcpy / memset without direction or bytes", ""},
    {"host_copy", "host/peer copy (PCIe, peer link not modelled)", ""},
    {"other_kernel", "op outside the memory-op table (not modelled)", ""},
    {"unusable_gemm", "matmul the import cannot use", "see the import's warnings"},
    {"unusable_comm", "NCCL kernel the import cannot use", "see the import's warnings"},
    {"unusable_memory", "memory-bound op the import cannot size", "see the import's warnings"},
}};

const ReasonInfo& info(FixedReason r) { return kReasons[static_cast<std::size_t>(r)]; }

bool has_arg(const nlohmann::json& event, const char* key) {
  const nlohmann::json* args = kineto_args(event);
  return args != nullptr && args->contains(key);
}

// The innermost op around the launch that `pick` accepts, or nullopt.
template <typename Pick>
std::optional<nlohmann::json> innermost(const KernelLaunch& launch, const KinetoEvents& events,
                                        Pick pick) {
  for (auto it = launch.stack.rbegin(); it != launch.stack.rend(); ++it) {
    nlohmann::json op = events[*it];
    if (pick(kineto_string(op, "name"))) return op;
  }
  return std::nullopt;
}

bool any_shapes(const KernelLaunch& launch, const KinetoEvents& events) {
  for (const std::size_t i : launch.stack) {
    if (has_arg(events[i], "Input Dims")) return true;
  }
  return false;
}

FixedReason kernel_reason(KernelCategory category, const nlohmann::json* kernel_args,
                          const KernelLaunch& launch, const KinetoEvents& events) {
  switch (category) {
    case KernelCategory::kConvolution: {
      const std::optional<nlohmann::json> conv = innermost(launch, events, is_conv_op);
      if (!conv || !has_arg(*conv, "Input Dims")) return FixedReason::kNoShapes;
      return has_arg(*conv, "Concrete Inputs") ? FixedReason::kConvolution
                                               : FixedReason::kConvNoStride;
    }
    case KernelCategory::kGemmUnmodelled: {
      const std::optional<nlohmann::json> aten =
          innermost(launch, events, [](std::string_view n) { return n.starts_with("aten::"); });
      if (!aten) return FixedReason::kUnknownKernel;
      return has_arg(*aten, "Input Dims") ? FixedReason::kUnusableGemm : FixedReason::kNoShapes;
    }
    case KernelCategory::kMemoryUnmodelled: {
      const std::optional<nlohmann::json> aten = innermost(launch, events, memory_family);
      return aten && has_arg(*aten, "Input Dims") ? FixedReason::kUnusableMemory
                                                  : FixedReason::kNoShapes;
    }
    case KernelCategory::kCollectiveUnmodelled: {
      const bool sized = kernel_args != nullptr && kernel_args->contains("In msg nelems");
      return sized || any_shapes(launch, events) ? FixedReason::kUnusableComm
                                                 : FixedReason::kNoShapes;
    }
    default:
      return FixedReason::kOtherKernel;
  }
}

}  // namespace

std::string_view to_string(FixedReason r) { return info(r).key; }
std::string_view describe(FixedReason r) { return info(r).text; }
std::string_view fix_hint(FixedReason r) { return info(r).hint; }

FixedReason fixed_reason(KernelCategory category, const nlohmann::json* kernel_args,
                         const KernelLaunch& launch, const KinetoEvents& events) {
  if (category == KernelCategory::kMemcpy || category == KernelCategory::kMemset) {
    return FixedReason::kCopy;
  }
  if (category == KernelCategory::kHostCopy) return FixedReason::kHostCopy;
  if (category == KernelCategory::kGraph) return FixedReason::kGraph;
  if (launch.stack.empty() && category != KernelCategory::kCollectiveUnmodelled) {
    return FixedReason::kUnknownKernel;
  }
  return kernel_reason(category, kernel_args, launch, events);
}

}  // namespace t3sim::workload
