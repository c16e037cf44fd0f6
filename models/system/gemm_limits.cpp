#include "models/system/gemm_limits.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/system/system.h"
#include "sim/errors.h"
#include "sim/units.h"

namespace t3sim::system {
namespace {

using Wide = U128;  // (sim/units.h) products of three 64-bit counts cannot wrap

// Work-groups (tiles x split-K) and the K-phase slices of one tile row or column: below 2^31, so
// the kernel's 32-bit counts and their sums stay exact.
constexpr Wide kMaxCount = Wide{1} << 31;
// Bytes of A, B, C (and a split-K workspace) on one GPU: far beyond any HBM, well inside 64 bits.
constexpr Wide kMaxBytes = Wide{1} << 60;

Wide ceil_div(Wide a, Wide b) { return (a + b - 1) / b; }

std::string text(Wide v) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return digits;
}

}  // namespace

std::string gemm_beyond_model(const gpu::GpuSpec& spec, const gpu::GemmShape& shape,
                              uint32_t elem_bytes) {
  uint32_t tile_m = spec.tile_m;
  uint32_t tile_n = spec.tile_n;
  uint32_t split = 1;
  if (spec.tile_select == gpu::TileSelect::kHeuristic) {
    for (const gpu::TileShape& t : spec.tiles) {
      tile_m = std::min(tile_m, t.m);
      tile_n = std::min(tile_n, t.n);
    }
    split = std::max<uint32_t>(1, spec.max_split_k);
  }
  const Wide m = shape.m, n = shape.n, k = shape.k, e = elem_bytes, batch = shape.batch;
  const Wide tiles_m = ceil_div(m, tile_m);
  const Wide tiles_n = ceil_div(n, tile_n);
  const Wide wgs = tiles_m * tiles_n * batch * split;  // over every product of a batch
  if (wgs >= kMaxCount) {
    return fmt::format("{} x {} tiles of {}x{}{} make {} work-groups, above the model's 2^31",
                       text(tiles_m), text(tiles_n), tile_m, tile_n,
                       split > 1 ? fmt::format(" (split-K up to {})", split) : "", text(wgs));
  }
  const Wide per_phase = spec.pipeline == gpu::Pipeline::kPhases ? 0 : std::max(1u, spec.bk);
  const Wide phases = per_phase == 0 ? Wide{spec.k_phases} : ceil_div(k, per_phase);
  if ((tiles_m + tiles_n) * batch * phases >= kMaxCount) {
    return fmt::format(
        "K = {} in {} phases over {} tile rows and columns makes {} operand "
        "slices, above the model's 2^31",
        text(k), text(phases), text((tiles_m + tiles_n) * batch),
        text((tiles_m + tiles_n) * batch * phases));
  }
  const Wide workspace = split > 1 ? wgs * tile_m * tile_n * gpu::kPartialElemBytes : 0;
  const Wide bytes = (m * k + k * n + m * n) * e * batch + workspace;
  if (bytes >= kMaxBytes) {
    return fmt::format("its buffers take {} bytes per GPU, above the model's 2^60", text(bytes));
  }
  return "";
}

void check_gemm_fits(const gpu::GpuSpec& spec, const gpu::GemmShape& shape, uint32_t elem_bytes,
                     const std::string& file, const std::string& pointer) {
  const std::string why = gemm_beyond_model(spec, shape, elem_bytes);
  if (why.empty()) return;
  throw ConfigError(
      file, pointer,
      fmt::format("a GEMM of M x N x K = {} x {} x {}{} is beyond the GPU model: {}; "
                  "split it into smaller GEMMs (fewer rows or columns)",
                  shape.m, shape.n, shape.k,
                  shape.batch > 1 ? fmt::format(" (batch {})", shape.batch) : "", why));
}

gpu::GpuSpec system_gpu_spec(const ConfigDoc& doc) {
  return gpu::bind_gpu(bind(system_params(), ConfigNode::root(doc)).node("gpu"));
}

}  // namespace t3sim::system
