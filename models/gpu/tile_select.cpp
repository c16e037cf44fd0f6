#include "models/gpu/tile_select.h"

#include <algorithm>
#include <vector>

namespace t3sim::gpu {

Duration tile_compute_time(const GpuSpec& spec, uint32_t tile_m, uint32_t tile_n, uint64_t k,
                           Precision precision) {
  const U128 flops = static_cast<U128>(2) * tile_m * tile_n * k;
  const uint32_t rate = std::max<uint32_t>(1, matrix_rate(spec, precision));
  const double per_cycle = rate * spec.efficiency / spec.wgs_per_cu;
  const auto cycles = static_cast<uint64_t>(static_cast<double>(flops) / per_cycle + 0.999999);
  return spec.clock.cycles(cycles);
}

Duration phase_time(const GpuSpec& spec, uint32_t tile_m, uint32_t tile_n, uint64_t k,
                    uint32_t elem_bytes, Precision precision) {
  const Duration compute = tile_compute_time(spec, tile_m, tile_n, k, precision);
  if (spec.l2_bandwidth.bytes_per_second() == 0) return compute;
  const Bandwidth share = spec.l2_bandwidth / (static_cast<uint64_t>(spec.cus) * spec.wgs_per_cu);
  const Bytes input(static_cast<uint64_t>(tile_m + tile_n) * k * elem_bytes);
  return std::max(compute, transfer_time(input, share));
}

Duration estimate_time(const GpuSpec& spec, const GemmShape& shape, uint32_t elem_bytes,
                       uint32_t cus, TileShape tile, uint32_t split_k) {
  const uint64_t tiles =
      ((shape.m + tile.m - 1) / tile.m) * ((shape.n + tile.n - 1) / tile.n) * shape.batch;
  const uint64_t slots = std::max<uint64_t>(1, static_cast<uint64_t>(cus) * spec.wgs_per_cu);
  const uint64_t waves = (tiles * split_k + slots - 1) / slots;
  // The kernel computes each split's K in k_phases_for() phases of ceil(K / phases) each.
  const uint64_t per_wg = k_phases_for(spec, (shape.k + split_k - 1) / split_k);
  const uint64_t phases = static_cast<uint64_t>(split_k) * per_wg;
  const uint64_t k = (shape.k + phases - 1) / phases;
  const Duration wg =
      phase_time(spec, tile.m, tile.n, k, elem_bytes, shape.precision) * per_wg + spec.wg_overhead;
  if (split_k == 1) return wg * waves;
  // Split-K: the reducing WG's extra epilogue, reading the other splits' FP32 partials back
  // through its L2 share (an estimate: the simulator sends them to HBM).
  Duration reduce = spec.wg_overhead;
  if (spec.l2_bandwidth.bytes_per_second() != 0) {
    const Bandwidth share = spec.l2_bandwidth / (static_cast<uint64_t>(spec.cus) * spec.wgs_per_cu);
    reduce += transfer_time(
        Bytes(static_cast<uint64_t>(split_k - 1) * tile.m * tile.n * kPartialElemBytes), share);
  }
  return wg * waves + reduce;
}

TileChoice select_tile(const GpuSpec& spec, const GemmShape& shape, uint32_t elem_bytes,
                       uint32_t cus) {
  TileChoice best{spec.tile_m, spec.tile_n, 1, Duration::max()};
  if (spec.tile_select == TileSelect::kFixed) {
    best.estimate = estimate_time(spec, shape, elem_bytes, cus, {spec.tile_m, spec.tile_n}, 1);
    return best;
  }
  std::vector<TileShape> tiles = spec.tiles;
  if (tiles.empty()) tiles.push_back({spec.tile_m, spec.tile_n});
  for (const TileShape t : tiles) {
    for (uint32_t s = 1; s <= spec.max_split_k; ++s) {
      if (s > 1 && shape.k < s * kMinSplitK) break;
      const Duration e = estimate_time(spec, shape, elem_bytes, cus, t, s);
      if (e < best.estimate) best = {t.m, t.n, s, e};
    }
  }
  return best;
}

}  // namespace t3sim::gpu
