// Element types of workload tensors and their storage widths, as written in model configs and
// traces ("fp16", "bf16", ...). Exact: widths are the storage sizes of the formats (fp8 covers both
// e4m3 and e5m2; tf32 is stored as fp32). Invariant: parse_dtype(to_string(d)) == d for every
// Dtype. Source: workloads.md §1 (B = 2 bytes per element for FP16/BF16).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace t3sim::workload {

// kTf32: FP32 storage whose GEMMs run on TF32 tensor cores (the kernel, not the tensor, decides).
enum class Dtype { kFp64, kFp32, kFp16, kBf16, kFp8, kInt64, kInt32, kInt8, kTf32 };

int bytes_per_element(Dtype dtype);
std::string_view to_string(Dtype dtype);
std::optional<Dtype> parse_dtype(std::string_view name);
// All names accepted by parse_dtype, for error messages.
std::vector<std::string> dtype_names();

}  // namespace t3sim::workload
