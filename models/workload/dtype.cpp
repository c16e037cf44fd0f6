#include "models/workload/dtype.h"

#include <array>
#include <cstddef>

namespace t3sim::workload {
namespace {

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;
  int bytes;
};

constexpr std::array<DtypeInfo, 9> kDtypes = {{
    {Dtype::kFp64, "fp64", 8},
    {Dtype::kFp32, "fp32", 4},
    {Dtype::kFp16, "fp16", 2},
    {Dtype::kBf16, "bf16", 2},
    {Dtype::kFp8, "fp8", 1},
    {Dtype::kInt64, "int64", 8},
    {Dtype::kInt32, "int32", 4},
    {Dtype::kInt8, "int8", 1},
    {Dtype::kTf32, "tf32", 4},
}};

// kDtypes is indexed by the enum value.
const DtypeInfo& info(Dtype dtype) { return kDtypes.at(static_cast<std::size_t>(dtype)); }

}  // namespace

int bytes_per_element(Dtype dtype) { return info(dtype).bytes; }

std::string_view to_string(Dtype dtype) { return info(dtype).name; }

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& entry : kDtypes) {
    if (entry.name == name) return entry.dtype;
  }
  return std::nullopt;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> names;
  for (const auto& entry : kDtypes) names.emplace_back(entry.name);
  return names;
}

}  // namespace t3sim::workload
