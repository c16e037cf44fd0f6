// The fused GEMM's tile (models/t3/fused_tile.h): a fixed preset keeps its tile (lowered to split
// when it must); a heuristic preset takes the library's choice when that has no split-K and
// splits into the chunks, and otherwise the cheapest candidate that does.
#include "models/t3/fused_tile.h"

#include <gtest/gtest.h>

#include <vector>

#include "models/gpu/tile_select.h"
#include "models/t3/fused_plan.h"

namespace t3sim::t3 {
namespace {

// An MI300X-like spec: 304 CUs, 2048 FLOP/cycle, 2.1 GHz, the preset's candidate tiles.
gpu::GpuSpec mi300x_like() {
  gpu::GpuSpec s;
  s.cus = 304;
  s.clock = Frequency::mhz(2100);
  s.flops_per_cu_cycle = 2048;
  s.efficiency = 0.523;
  s.tile_m = 256;
  s.tile_n = 256;
  s.tile_select = gpu::TileSelect::kHeuristic;
  s.tiles = {{256, 256}, {256, 128}, {128, 128}, {128, 64}, {64, 64}};
  s.max_split_k = 4;
  s.wg_overhead = Duration::us(2) + Duration::ns(500);
  return s;
}

// The result splits into `chunks` and no splittable candidate is modelled faster.
void expect_cheapest_splittable(const gpu::GpuSpec& s, const gpu::GemmShape& shape,
                                uint32_t chunks) {
  const gpu::TileShape t = fused_tile(s, shape, 2, s.cus, chunks);
  ASSERT_TRUE(splittable(shape, t.m, t.n, chunks));
  const Duration mine = gpu::estimate_time(s, shape, 2, s.cus, t, 1);
  for (const gpu::TileShape c : s.tiles) {
    if (!splittable(shape, c.m, c.n, chunks)) continue;
    EXPECT_LE(mine, gpu::estimate_time(s, shape, 2, s.cus, c, 1)) << c.m << "x" << c.n;
  }
}

TEST(FusedTile, FixedPresetKeepsItsTile) {
  gpu::GpuSpec s = mi300x_like();
  s.tile_select = gpu::TileSelect::kFixed;
  const gpu::TileShape t = fused_tile(s, {2048, 12288, 6144}, 2, s.cus, 8);
  EXPECT_EQ(t.m, 256u);
  EXPECT_EQ(t.n, 256u);
  // 768 x 256: 3 x 1 tiles do not split 8 ways; the height drops to 32 (96 rows per chunk).
  const gpu::TileShape low = fused_tile(s, {768, 256, 256}, 2, s.cus, 8);
  EXPECT_EQ(low.m, 32u);
  EXPECT_EQ(low.n, 256u);
}

TEST(FusedTile, TakesTheLibraryChoiceOfTheIsolatedGemm) {
  const gpu::GpuSpec s = mi300x_like();
  int same = 0;
  for (const gpu::GemmShape shape : std::vector<gpu::GemmShape>{
           {8192, 12288, 6144}, {16384, 16384, 2048}, {4096, 8192, 1024}, {2048, 4096, 512}}) {
    const gpu::TileChoice lib = gpu::select_tile(s, shape, 2, s.cus);
    if (lib.split_k != 1 || !splittable(shape, lib.tile_m, lib.tile_n, 8)) continue;
    const gpu::TileShape t = fused_tile(s, shape, 2, s.cus, 8);
    EXPECT_EQ(t.m, lib.tile_m) << shape.m << "x" << shape.n << "x" << shape.k;
    EXPECT_EQ(t.n, lib.tile_n) << shape.m << "x" << shape.n << "x" << shape.k;
    ++same;
  }
  EXPECT_GE(same, 2);
  // GPT-3 FC-2 at TP 8: 384 tiles of 256 x 256 fill 304 CUs badly; a smaller tile is cheaper.
  const gpu::TileShape fc2 = fused_tile(s, {2048, 12288, 6144}, 2, s.cus, 8);
  EXPECT_LT(static_cast<uint64_t>(fc2.m) * fc2.n, 256u * 256u);
}

TEST(FusedTile, NoSplitKAndOnlySplittableTiles) {
  const gpu::GpuSpec s = mi300x_like();
  const gpu::GemmShape few{512, 512, 16384};  // few tiles, long K: the library splits K
  ASSERT_GT(gpu::select_tile(s, few, 2, s.cus).split_k, 1u);
  expect_cheapest_splittable(s, few, 8);
  // 7 chunks: only tiles whose grid has a dimension divisible by 7 qualify.
  const gpu::GemmShape seven{1792, 4096, 4096};  // 1792 = 7 x 256
  expect_cheapest_splittable(s, seven, 7);
  expect_cheapest_splittable(s, {2048, 12288, 6144}, 8);
}

TEST(FusedTile, DirectChunksFitTheTracker) {
  const gpu::GpuSpec s = mi300x_like();
  const gpu::GemmShape fc2{2048, 12288, 6144};
  for (const uint64_t bound : {uint64_t{96}, uint64_t{48}}) {
    const gpu::TileShape t = fused_tile(s, fc2, 2, s.cus, 8, bound);
    const uint64_t tiles = (fc2.m / t.m) * (fc2.n / t.n);
    EXPECT_LE(tiles / 8, bound) << bound;
    // No candidate within the bound is modelled faster.
    for (const gpu::TileShape c : s.tiles) {
      if ((fc2.m / c.m) * (fc2.n / c.n) / 8 > bound) continue;
      EXPECT_LE(gpu::estimate_time(s, fc2, 2, s.cus, t, 1),
                gpu::estimate_time(s, fc2, 2, s.cus, c, 1));
    }
  }
  // 48 tiles per chunk: only 256 x 256 (384 tiles) qualifies; below that none does, and the
  // preset tile is kept.
  for (const uint64_t bound : {uint64_t{48}, uint64_t{24}}) {
    const gpu::TileShape big = fused_tile(s, fc2, 2, s.cus, 8, bound);
    EXPECT_EQ(big.m, 256u) << bound;
    EXPECT_EQ(big.n, 256u) << bound;
  }
}

}  // namespace
}  // namespace t3sim::t3
