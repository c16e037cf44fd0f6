#include "models/system/gemm_limits.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/system/system.h"
#include "sim/errors.h"
#include "sim/units.h"

namespace t3sim::system {
namespace {

using Wide = U128;  // (sim/units.h) products of three 64-bit counts cannot wrap

// The kernel's bounds (models/gpu/gemm_plan.h): they bound its memory per simulated GPU.
constexpr Wide kMaxWgs = gpu::kMaxWorkGroups;
constexpr Wide kMaxSlices = gpu::kMaxOperandSlices;
constexpr Wide kMaxSlotPhases = gpu::kMaxSlotPhases;
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
  if (wgs > kMaxWgs) {
    return fmt::format("{} x {} tiles of {}x{}{} make {} work-groups, above the model's {}",
                       text(tiles_m), text(tiles_n), tile_m, tile_n,
                       split > 1 ? fmt::format(" (split-K up to {})", split) : "", text(wgs),
                       text(kMaxWgs));
  }
  // The most phases (x splits) any split-K takes: each split rounds its share of K up once.
  const Wide phases = gpu::k_phases_for(spec, shape.k) + split - 1;
  if ((tiles_m + tiles_n) * batch * phases > kMaxSlices) {
    return fmt::format(
        "K = {} in {} phases over {} tile rows and columns makes {} operand "
        "slices, above the model's {}",
        text(k), text(phases), text((tiles_m + tiles_n) * batch),
        text((tiles_m + tiles_n) * batch * phases), text(kMaxSlices));
  }
  const Wide slots = Wide{spec.cus} * spec.wgs_per_cu;
  if (slots * phases > kMaxSlotPhases) {
    return fmt::format(
        "K = {} in {} phases on {} WG slots makes {} phase slots, above the "
        "model's {}",
        text(k), text(phases), text(slots), text(slots * phases), text(kMaxSlotPhases));
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
