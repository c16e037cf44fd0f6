#include "models/gpu/gemm_alignment.h"

#include <algorithm>
#include <string>

namespace t3sim::gpu {
namespace {

constexpr uint64_t kAligned = 16;  // bytes a row must start on for the fast kernels

uint64_t pow2_alignment(uint64_t bytes) {
  if (bytes == 0) return kAligned;
  return std::min<uint64_t>(kAligned, bytes & (~bytes + 1));  // lowest set bit
}

}  // namespace

uint64_t row_alignment(const GemmShape& shape, uint32_t elem_bytes) {
  return std::min(pow2_alignment(shape.k * elem_bytes), pow2_alignment(shape.n * elem_bytes));
}

double unaligned_matrix_share(const std::vector<UnalignedKernel>& classes, const GemmShape& shape,
                              uint32_t elem_bytes) {
  const uint64_t a = row_alignment(shape, elem_bytes);
  if (a >= kAligned) return 1.0;
  for (const UnalignedKernel& c : classes) {  // largest alignment first
    if (c.alignment.count() <= a) return c.matrix_share;
  }
  return classes.empty() ? 1.0 : classes.back().matrix_share;
}

std::vector<UnalignedKernel> bind_unaligned_kernels(const ConfigNode& node) {
  if (!node.json().is_object()) node.fail("must be an object {\"8\": share, \"4\": share, ...}");
  std::vector<UnalignedKernel> out;
  for (const auto& [key, value] : node.json().items()) {
    if (is_annotation_key(key)) continue;
    const ConfigNode v = node.child(key);
    uint64_t bytes = 0;
    try {
      size_t used = 0;
      bytes = std::stoull(key, &used);
      if (used != key.size()) bytes = 0;
    } catch (const std::exception&) {
      bytes = 0;
    }
    if (bytes == 0 || bytes >= kAligned || (bytes & (bytes - 1)) != 0) {
      v.fail("key must be a row alignment in bytes: 1, 2, 4 or 8");
    }
    if (!value.is_number() || value.get<double>() <= 0 || value.get<double>() > 1) {
      v.fail("must be the kernel's share of the matrix rate, in (0, 1]");
    }
    out.push_back({Bytes(bytes), value.get<double>()});
  }
  std::sort(out.begin(), out.end(), [](const UnalignedKernel& a, const UnalignedKernel& b) {
    return a.alignment.count() > b.alignment.count();
  });
  return out;
}

}  // namespace t3sim::gpu
