// Tile selection for a baseline GEMM launch, cuBLAS/Tensile-like: a library picks, per shape, the
// macro-tile and split-K that fill the GPU, not one fixed tile. Each candidate (a preset tile x a
// split s in 1..max_split_k, with every split keeping >= kMinSplitK of K) is costed by the
// modelled time  waves x (K loop of one WG + wg_overhead)  [+ one more wg_overhead when s > 1:
// the reducing WG's extra epilogue], waves = ceil(tiles x s / (cus x wgs_per_cu)); a K phase
// takes the longer of its matrix compute and its input stream through the WG's share of
// l2_bandwidth (small tiles need more input bytes per FLOP). The cheapest wins; ties keep the
// earlier candidate (presets list tiles largest first; smaller s first). HBM traffic is not
// costed: the simulator runs the chosen plan with its real traffic, split-K's included.
// Fixed mode returns the preset tile with s = 1. Only baseline plans are re-tiled at launch; T3's
// fused plans take their tile when planned (models/t3/fused_tile.h: these candidates at s = 1,
// because its tracker counts one contribution per tile and GPU, which split-K partials would
// break, t3-paper.md §7.7).
#pragma once

#include <cstdint>

#include "models/gpu/gemm_plan.h"
#include "models/gpu/gpu_spec.h"
#include "sim/units.h"

namespace t3sim::gpu {

// Smallest K a split may keep (4 K-blocks of 64: shorter splits are all prologue and epilogue).
inline constexpr uint64_t kMinSplitK = 256;

struct TileChoice {
  uint32_t tile_m = 128;
  uint32_t tile_n = 128;
  uint32_t split_k = 1;
  Duration estimate;  // the heuristic's modelled time (not the simulated time)
};

// Matrix compute time of a tile_m x tile_n x k slice on one WG slot at the precision's rate
// (gpu_spec.h matrix_rate), in whole CU cycles (the full tile is computed even at the edges: the
// matrix units run whole tiles). Batched shapes count tiles x batch in the estimates below.
Duration tile_compute_time(const GpuSpec& spec, uint32_t tile_m, uint32_t tile_n, uint64_t k,
                           Precision precision = Precision::kFp16);

// Time of one K phase of depth k: max(matrix compute, (tile_m + tile_n) x k x elem_bytes of input
// through l2_bandwidth / (cus x wgs_per_cu)); the compute time alone when l2_bandwidth is 0.
Duration phase_time(const GpuSpec& spec, uint32_t tile_m, uint32_t tile_n, uint64_t k,
                    uint32_t elem_bytes, Precision precision = Precision::kFp16);

// Contract: deterministic; kFixed -> {tile_m, tile_n, 1}; kHeuristic -> a candidate of spec.tiles
// (or the preset tile when the list is empty) and 1 <= split_k <= max_split_k with
// shape.k >= split_k x kMinSplitK. `cus` is the number of CUs the kernel is launched on.
TileChoice select_tile(const GpuSpec& spec, const GemmShape& shape, uint32_t elem_bytes,
                       uint32_t cus);

// The heuristic's modelled time of one candidate (exposed for tests and reports).
Duration estimate_time(const GpuSpec& spec, const GemmShape& shape, uint32_t elem_bytes,
                       uint32_t cus, TileShape tile, uint32_t split_k);

}  // namespace t3sim::gpu
