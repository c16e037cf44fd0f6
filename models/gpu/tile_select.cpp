#include "models/gpu/tile_select.h"

#include <algorithm>
#include <vector>

namespace t3sim::gpu {

Duration tile_compute_time(const GpuSpec& spec, uint32_t tile_m, uint32_t tile_n, uint64_t k) {
  const U128 flops = static_cast<U128>(2) * tile_m * tile_n * k;
  const double per_cycle = spec.flops_per_cu_cycle * spec.efficiency / spec.wgs_per_cu;
  const auto cycles = static_cast<uint64_t>(static_cast<double>(flops) / per_cycle + 0.999999);
  return spec.clock.cycles(cycles);
}

Duration estimate_time(const GpuSpec& spec, const GemmShape& shape, uint32_t cus, TileShape tile,
                       uint32_t split_k) {
  const uint64_t tiles = ((shape.m + tile.m - 1) / tile.m) * ((shape.n + tile.n - 1) / tile.n);
  const uint64_t slots = std::max<uint64_t>(1, static_cast<uint64_t>(cus) * spec.wgs_per_cu);
  const uint64_t waves = (tiles * split_k + slots - 1) / slots;
  // The kernel computes K in k_phases phases of ceil(K / (split_k x k_phases)) each.
  const uint64_t phases = static_cast<uint64_t>(split_k) * spec.k_phases;
  const Duration wg =
      tile_compute_time(spec, tile.m, tile.n, (shape.k + phases - 1) / phases) * spec.k_phases +
      spec.wg_overhead;
  return wg * waves + (split_k > 1 ? spec.wg_overhead : Duration{});
}

TileChoice select_tile(const GpuSpec& spec, const GemmShape& shape, uint32_t cus) {
  TileChoice best{spec.tile_m, spec.tile_n, 1, Duration::max()};
  if (spec.tile_select == TileSelect::kFixed) {
    best.estimate = estimate_time(spec, shape, cus, {spec.tile_m, spec.tile_n}, 1);
    return best;
  }
  std::vector<TileShape> tiles = spec.tiles;
  if (tiles.empty()) tiles.push_back({spec.tile_m, spec.tile_n});
  for (const TileShape t : tiles) {
    for (uint32_t s = 1; s <= spec.max_split_k; ++s) {
      if (s > 1 && shape.k < s * kMinSplitK) break;
      const Duration e = estimate_time(spec, shape, cus, t, s);
      if (e < best.estimate) best = {t.m, t.n, s, e};
    }
  }
  return best;
}

}  // namespace t3sim::gpu
