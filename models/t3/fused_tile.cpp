#include "models/t3/fused_tile.h"

#include <vector>

#include "models/gpu/tile_select.h"
#include "models/t3/fused_plan.h"

namespace t3sim::t3 {

gpu::TileShape fused_tile(const gpu::GpuSpec& spec, const gpu::GemmShape& shape,
                          uint32_t elem_bytes, uint32_t cus, uint32_t chunks,
                          uint64_t max_chunk_tiles) {
  const gpu::TileShape preset{spec.tile_m, spec.tile_n};
  std::vector<gpu::TileShape> candidates{preset};
  if (spec.tile_select == gpu::TileSelect::kHeuristic && !spec.tiles.empty()) {
    candidates = spec.tiles;  // largest first: ties keep the larger tile, as tile_select does
  }
  bool found = false;
  gpu::TileShape best = preset;
  Duration best_time = Duration::max();
  for (const gpu::TileShape t : candidates) {
    if (!splittable(shape, t.m, t.n, chunks)) continue;
    const uint64_t tiles = ((shape.m + t.m - 1) / t.m) * ((shape.n + t.n - 1) / t.n);
    if (max_chunk_tiles != 0 && tiles / chunks > max_chunk_tiles) continue;
    const Duration e = gpu::estimate_time(spec, shape, elem_bytes, cus, t, 1);
    if (!found || e < best_time) {
      best = t;
      best_time = e;
      found = true;
    }
  }
  if (!found) best.m = chunk_compatible_tile_m(shape.m, chunks, preset.m);
  return best;
}

}  // namespace t3sim::t3
