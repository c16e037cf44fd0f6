// Which kernel class a library GEMM gets from its operands' row alignment. Hopper's fast GEMM
// kernels load operand tiles with the tensor memory accelerator, which needs every row of a
// row-major operand to start on a 16-byte boundary; when A's rows (K elements) or B's and C's
// rows (N elements) are only 8, 4 or 2 bytes aligned, cuBLAS runs other kernels (narrower vector
// loads, synchronous matrix instructions or none) at a fraction of the dense matrix rate. The
// GPU preset's `unaligned_kernels` gives that fraction per alignment; it is data about the library
// on that GPU, as the tile choice is. Layout: row-major C[M x N] = A[M x K] B[K x N], as
// validation/cuda/gemm_bench runs it (batched products have the same rows).
#pragma once

#include <cstdint>
#include <vector>

#include "models/gpu/gemm_plan.h"
#include "sim/config.h"
#include "sim/units.h"

namespace t3sim::gpu {

// The kernel class for operand rows aligned to `alignment` bytes but not to twice that.
struct UnalignedKernel {
  Bytes alignment;            // 8, 4, 2 or 1 B
  double matrix_share = 1.0;  // share of the aligned kernels' matrix rate it reaches
};

// Bytes to which every operand row is aligned: the largest power of two dividing K x elem and
// N x elem, capped at 16 (aligned).
uint64_t row_alignment(const GemmShape& shape, uint32_t elem_bytes);

// The matrix share of the kernel class `shape` gets: 1 when its rows are 16-byte aligned or the
// preset lists no class for its alignment (then the nearest listed class below it, if any).
double unaligned_matrix_share(const std::vector<UnalignedKernel>& classes, const GemmShape& shape,
                              uint32_t elem_bytes);

// Binds {"8": share, "4": share, "2": share} (alignment in bytes, a power of two below 16; share in
// (0, 1]), sorted by alignment, largest first.
std::vector<UnalignedKernel> bind_unaligned_kernels(const ConfigNode& node);

}  // namespace t3sim::gpu
