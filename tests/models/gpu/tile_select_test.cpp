// Tests of the tile-selection heuristic (models/gpu/tile_select.h) on hand-built specs and the
// presets: fixed mode returns the preset tile; the heuristic fills the CUs (a smaller tile or
// split-K for a few-tile, large-K shape; the big tile for a big shape); split-K respects its
// limits; the compute-time formula; the preset "tiles" list is parsed strictly.
#include "models/gpu/tile_select.h"

#include <gtest/gtest.h>

#include "models/system/system.h"
#include "sim/errors.h"
#include "tests/support/fixtures.h"

namespace t3sim::gpu {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

GpuSpec bind_system_gpu(const std::string& system, const std::vector<std::string>& sets = {}) {
  const ConfigDoc doc = system::load_system_config(system, kConfigs, sets);
  return bind_gpu(ConfigNode(doc, doc.root["gpu"], "/gpu"));
}

// An H100-like spec: 132 CUs, 4096 FLOP/cycle, 1.83 GHz.
GpuSpec h100_like(Duration overhead) {
  GpuSpec s;
  s.cus = 132;
  s.clock = Frequency::mhz(1830);
  s.flops_per_cu_cycle = 4096;
  s.efficiency = 0.9;
  s.tile_m = 128;
  s.tile_n = 256;
  s.k_phases = 8;
  s.tile_select = TileSelect::kHeuristic;
  s.tiles = {{128, 256}, {128, 128}, {64, 128}, {64, 64}};
  s.max_split_k = 4;
  s.wg_overhead = overhead;
  return s;
}

TEST(TileSelect, FixedReturnsThePresetTile) {
  GpuSpec s = h100_like(Duration::us(2));
  s.tile_select = TileSelect::kFixed;
  const TileChoice c = select_tile(s, {1024, 512, 4096}, 2, s.cus);
  EXPECT_EQ(c.tile_m, 128u);
  EXPECT_EQ(c.tile_n, 256u);
  EXPECT_EQ(c.split_k, 1u);
  EXPECT_EQ(c.estimate, estimate_time(s, {1024, 512, 4096}, 2, s.cus, {128, 256}, 1));
}

TEST(TileSelect, FewTilesLargeKPicksSmallerTileOrSplitK) {
  const GpuSpec s = h100_like(Duration::us(2));
  for (const GemmShape shape :
       {GemmShape{1024, 512, 4096}, GemmShape{1024, 1024, 4096}, GemmShape{256, 256, 16384}}) {
    const TileChoice c = select_tile(s, shape, 2, s.cus);
    EXPECT_TRUE(c.tile_m * c.tile_n < 128u * 256u || c.split_k > 1)
        << shape.m << "x" << shape.n << "x" << shape.k;
    EXPECT_LT(c.estimate, estimate_time(s, shape, 2, s.cus, {128, 256}, 1));
  }
  // 256x256x16384 has 16 tiles of 64x64 even at the smallest tile: only split-K fills the GPU.
  EXPECT_GT(select_tile(s, {256, 256, 16384}, 2, s.cus).split_k, 1u);
}

TEST(TileSelect, BigShapeKeepsTheBigTile) {
  const GpuSpec s = h100_like(Duration::us(2));
  for (const GemmShape shape : {GemmShape{8192, 8192, 8192}, GemmShape{4096, 4096, 4096}}) {
    const TileChoice c = select_tile(s, shape, 2, s.cus);
    EXPECT_EQ(c.tile_m, 128u);
    EXPECT_EQ(c.tile_n, 256u);
    EXPECT_EQ(c.split_k, 1u);
  }
}

TEST(TileSelect, SplitKRespectsItsLimits) {
  GpuSpec s = h100_like(Duration::us(2));
  // K = 512 allows at most 2 splits of >= kMinSplitK.
  EXPECT_LE(select_tile(s, {64, 64, 512}, 2, s.cus).split_k, 512 / kMinSplitK);
  s.max_split_k = 1;
  EXPECT_EQ(select_tile(s, {256, 256, 16384}, 2, s.cus).split_k, 1u);
}

TEST(TileSelect, FewerCusChangeTheChoiceOnlyThroughWaves) {
  const GpuSpec s = h100_like(Duration::us(2));
  const GemmShape shape{4096, 4096, 4096};
  // 512 big tiles on 132 CUs = 4 waves; on 116 CUs = 5 waves.
  EXPECT_LT(estimate_time(s, shape, 2, 132, {128, 256}, 1),
            estimate_time(s, shape, 2, 116, {128, 256}, 1));
}

TEST(TileSelect, ComputeTimeIsWholeCyclesOfTheTile) {
  const GpuSpec s = h100_like(Duration{});
  // 2 x 128 x 256 x 512 FLOP / (4096 x 0.9 FLOP/cycle) = 9102.2 -> 9103 cycles at 1.83 GHz.
  EXPECT_EQ(tile_compute_time(s, 128, 256, 512), s.clock.cycles(9103));
}

TEST(TileSelect, L2BandwidthBoundsSmallTilesOnly) {
  GpuSpec s = h100_like(Duration{});
  EXPECT_EQ(phase_time(s, 64, 64, 512, 2), tile_compute_time(s, 64, 64, 512));  // 0 = unlimited
  s.l2_bandwidth = Bandwidth::gbps(13'200);                                     // 100 GB/s per CU
  // 128x256: 768 B per K element, 4.97 us of compute per 512 K vs 3.9 us of input: compute-bound.
  EXPECT_EQ(phase_time(s, 128, 256, 512, 2), tile_compute_time(s, 128, 256, 512));
  // 64x64: 256 B per K element, 2.6 us of input vs 0.31 us of compute: input-bound.
  EXPECT_EQ(phase_time(s, 64, 64, 512, 2),
            transfer_time(Bytes(128 * 512 * 2), Bandwidth::gbps(100)));
  // So the heuristic keeps the big tile and splits K where it used to shrink the tile.
  const TileChoice c = select_tile(s, {1024, 512, 4096}, 2, s.cus);
  EXPECT_GT(c.tile_m * c.tile_n, 64u * 64u);
}

TEST(TileSelect, PresetsBindTheirTiles) {
  const GpuSpec h = bind_system_gpu("dgx-h100");
  EXPECT_EQ(h.tile_select, TileSelect::kHeuristic);
  ASSERT_FALSE(h.tiles.empty());
  EXPECT_EQ(h.tiles.front().m * h.tiles.front().n, h.tile_m * h.tile_n);
  const GpuSpec t3 = bind_system_gpu("t3-ring-8");
  EXPECT_EQ(t3.tile_select, TileSelect::kFixed);
  EXPECT_EQ(t3.wg_overhead, Duration{});
}

TEST(TileSelect, BadTileStringsAreConfigErrors) {
  for (const char* bad :
       {"[\"128\"]", "[\"128x\"]", "[\"8x8\"]", "[\"128x256x2\"]", "[128]", "[\"ax128\"]"}) {
    EXPECT_THROW(bind_system_gpu("dgx-h100", {std::string("gpu.tiles=") + bad}), ConfigError)
        << bad;
  }
  EXPECT_THROW(bind_system_gpu("dgx-h100", {"gpu.tile_select=heuristics"}), ConfigError);
}

}  // namespace
}  // namespace t3sim::gpu

namespace t3sim::gpu {
namespace {

// MI300X picks its tile per shape: a small-M GEMM (M = 141) must spread over many of the 304 CUs,
// not sit on the two 256-row tiles of the old fixed 256x256 tile.
TEST(TileSelect, Mi300xSmallMSpreadsOverTheCus) {
  const GpuSpec s = bind_system_gpu("mi300x-8");
  EXPECT_EQ(s.tile_select, TileSelect::kHeuristic);
  const GemmShape shape{141, 8192, 8192};
  const TileChoice c = select_tile(s, shape, 2, s.cus);
  const uint64_t work = ((141 + c.tile_m - 1) / c.tile_m) * ((8192 + c.tile_n - 1) / c.tile_n) *
                        static_cast<uint64_t>(c.split_k);
  EXPECT_GE(work, 150u) << c.tile_m << "x" << c.tile_n << " split " << c.split_k;
  EXPECT_LT(c.estimate, estimate_time(s, shape, 2, s.cus, {256, 256}, 1));
}

// Batched shapes: b products of a shape that fills the GPU exactly take b times as long; lower
// precisions run at their own matrix rate.
TEST(TileSelect, BatchAndPrecisionEnterTheEstimate) {
  GpuSpec s = h100_like(Duration{});
  s.flops_per_cu_cycle_tf32 = 2048;
  const TileShape t{128, 256};
  const GemmShape one{128 * 12, 256 * 11, 4096};  // 132 tiles: one full wave
  const GemmShape three{128 * 12, 256 * 11, 4096, 3};
  EXPECT_EQ(estimate_time(s, three, 2, s.cus, t, 1), estimate_time(s, one, 2, s.cus, t, 1) * 3);
  GemmShape tf32 = one;
  tf32.precision = Precision::kTf32;
  const Duration half_rate = tile_compute_time(s, 128, 256, 4096, Precision::kTf32);
  const Duration full_rate = tile_compute_time(s, 128, 256, 4096);
  EXPECT_GE(half_rate, full_rate * 2 - Duration::ps(2));  // whole cycles, rounded to picoseconds
  EXPECT_LE(half_rate, full_rate * 2 + Duration::ps(2));
  EXPECT_GT(estimate_time(s, tf32, 4, s.cus, t, 1), estimate_time(s, one, 2, s.cus, t, 1));
  EXPECT_EQ(matrix_rate(s, Precision::kFp8), 0u);  // not given: a GEMM of it is refused
}

}  // namespace
}  // namespace t3sim::gpu
