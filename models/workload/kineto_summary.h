// What a Kineto import made of a profile: GPU time per category (simulated by the models or kept
// as fixed, measured durations), the idle time between kernels (kept in the trace as each op's
// idle_us, or dropped), and the grouped warnings for ops that could not be modelled. The import
// prints it, so a trace in which nothing is simulated never passes for a simulated one.
// Contract: shares are of the summed GPU event time (streams counted separately); categories are
// listed in a fixed order; warnings in the order their reason first occurred.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace t3sim::workload {

enum class KernelCategory {
  kGemm,                  // simulated: a GEMM with its shape
  kCollective,            // simulated: an all-reduce / reduce-scatter / all-gather
  kMemory,                // simulated: bytes through HBM (element-wise ops, device copies, sets)
  kGemmUnmodelled,        // fixed: a matmul whose shape or type is unknown
  kCollectiveUnmodelled,  // fixed: a collective without size, or send/recv, gather, scatter
  kConvolution,           // fixed: convolutions (not modelled)
  kGraph,                 // fixed: kernels of a CUDA/HIP graph replay
  kMemcpy,                // fixed: memory copies
  kMemset,                // fixed: memory sets
  kHostCopy,              // fixed: host (PCIe) and peer copies
  kMemoryUnmodelled,      // fixed: a memory-bound op whose sizes are unknown or unusable
  kOther,                 // fixed: every other kernel (ops outside kineto_memory.h's table)
};
inline constexpr std::size_t kKernelCategories = 12;

// Why fixed GPU time is not simulated (kineto_fixed.h names and classifies them).
enum class FixedReason {
  kNoShapes,        // the launching op has no "Input Dims"
  kConvNoStride,    // a convolution with shapes but no stride/padding
  kConvolution,     // a convolution with everything recorded: not modelled
  kUnknownKernel,   // linked to no host op
  kGraph,           // replayed by a CUDA/HIP graph
  kCopy,            // memcpy / memset without a direction or byte count
  kHostCopy,        // host (PCIe) or peer copy: not modelled
  kOtherKernel,     // an op outside the memory-op table (kineto_memory.h): not modelled
  kUnusableGemm,    // a matmul with shapes the import cannot use (see the warnings)
  kUnusableComm,    // an NCCL kernel unusable for another reason (see the warnings)
  kUnusableMemory,  // a memory-bound op with shapes the import cannot use (see the warnings)
};
inline constexpr std::size_t kFixedReasons = 11;

std::string_view to_string(KernelCategory c);
bool is_simulated(KernelCategory c);

struct ImportWarning {
  std::string reason;   // the message, the same for every op it covers
  std::string detail;   // the first op's particulars (kernel name, parser message)
  std::string pointer;  // JSON pointer of the first op's unusable field
  std::int64_t count = 0;
  double gpu_us = 0;
};

// Counts one more op under `reason` in `warnings` (a new warning when the reason is new).
void add_warning(std::vector<ImportWarning>& warnings, const std::string& reason,
                 const std::string& detail, const std::string& pointer, double dur_us);
// One line per warning: "warning: FILE: N <noun>s (X us<of>): REASON; kept as <kept_as> (first:
// DETAIL at POINTER; --strict fails instead)"; the importers' shared wording.
std::vector<std::string> format_warning_lines(const std::vector<ImportWarning>& warnings,
                                              const std::string& file, std::string_view noun,
                                              std::string_view of, std::string_view kept_as);
// The warnings as JSON, the time under `time_key`.
nlohmann::ordered_json warnings_json(const std::vector<ImportWarning>& warnings,
                                     std::string_view time_key);

struct ImportSummary {
  struct Category {
    std::int64_t ops = 0;
    double gpu_us = 0;
  };
  std::array<Category, kKernelCategories> categories{};
  std::int64_t gpu_events = 0;
  std::int64_t streams = 0;
  double span_us = 0;                   // first GPU event start to last end
  double gpu_us = 0;                    // summed GPU event time
  double idle_us = 0;                   // stream idle time after each op's deps were met
  bool idle_kept = true;                // idle_us is in the trace (else dropped)
  std::int64_t linked_by_launch = 0;    // kernels linked through their runtime launch
  std::int64_t linked_by_external = 0;  // kernels linked through their External id
  std::vector<ImportWarning> warnings;
  // The fixed GPU time by why it is not simulated (summing to the fixed categories' time).
  std::array<Category, kFixedReasons> fixed_reasons{};
  // GPU events (kernel, memcpy, memset) with no "ph": not complete events, so not in the trace.
  std::int64_t without_ph = 0;
  double without_ph_us = 0;      // their summed "dur"
  std::string first_without_ph;  // JSON pointer of the first

  void add(KernelCategory c, double dur_us);
  void add_fixed(FixedReason r, double dur_us);
  void warn(const std::string& reason, const std::string& detail, const std::string& pointer,
            double dur_us);
  double simulated_share() const;  // of gpu_us
};

// Human-readable lines (no trailing newline on the last), e.g.
// "GPU time 606.5 ms in 1204 events on 5 streams; simulated 12.3 % (gemm 10.1 %, ...)".
std::string format_summary(const ImportSummary& s);
// One line per warning: "warning: FILE: N kernels (X us): REASON; kept as fixed ops (first: DETAIL
// at POINTER)".
std::vector<std::string> format_warnings(const ImportSummary& s, const std::string& file);
nlohmann::ordered_json to_json(const ImportSummary& s);

}  // namespace t3sim::workload
