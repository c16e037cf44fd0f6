// GemmPlan: what a GEMM kernel does, as data. Shape and element size; the macro-tile and split-K;
// the dispatch order of output tiles (the WG schedule; T3 staggers it per GPU); and, per tile,
// where its output store goes (the output address map: local or a remote GPU, WRITE or NMC UPDATE,
// traffic class, tracker tile id, cached or uncached). The baseline GEMM and every T3 variant
// differ only in this data. A baseline plan (local_gemm_plan) is marked `retile`: its launch may
// re-tile it per the preset's tile_select (tile_select.h); T3's fused plans never are.
// Invariant: order is a permutation of [0, tiles); stores.size() == tiles; split_k >= 1; batched
// plans (batch > 1) are baseline plans only (T3's fused plans hold one product).
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/memory.h"

namespace t3sim::gpu {

// Which matrix rate of the GPU a GEMM's inner loop runs at (gpu_spec.h): FP16/BF16 tensor math,
// TF32 tensor math on FP32 data, FP32 without tensor cores (SIMT), FP8 (and INT8) tensor math.
// Operand formats of the matrix units. kFp16 and kBf16 run at the same dense rate (gpu_spec.h
// flops_per_cu_cycle) but differ in energy per FLOP (power.h matrix_energy).
enum class Precision { kFp16, kTf32, kFp32, kFp8, kBf16 };
// Every precision, in enum order (for tables keyed by precision).
inline constexpr Precision kPrecisions[] = {Precision::kFp16, Precision::kTf32, Precision::kFp32,
                                            Precision::kFp8, Precision::kBf16};

// A GEMM problem: `batch` independent C[m x n] = A[m x k] B[k x n] products (each with its own
// A, B and C, laid out one after another), at `precision`.
struct GemmShape {
  uint64_t m = 0;
  uint64_t n = 0;
  uint64_t k = 0;
  uint64_t batch = 1;
  Precision precision = Precision::kFp16;
};

struct TileStore {
  int dst_gpu = 0;
  uint64_t addr = 0;
  common::MemCmd cmd = common::MemCmd::kWrite;
  common::TrafficClass cls = common::TrafficClass::kGemmWrite;
  uint32_t tracker_tile = common::kNoTile;
  bool cached = true;  // written through the L2 (takes capacity) or uncached
};

struct GemmPlan {
  GemmShape shape;
  uint32_t elem_bytes = 2;
  uint32_t tile_m = 128;
  uint32_t tile_n = 128;
  uint32_t split_k = 1;  // WGs per output tile, each over 1/split_k of K (partials reduced)
  uint64_t a_addr = 0;
  uint64_t b_addr = 0;
  uint64_t c_addr = 0;          // output base of a local plan (tile-major)
  uint64_t workspace_addr = 0;  // split-K FP32 partial tiles: split_k slots per tile
  bool retile = false;  // set by local_gemm_plan: the launch may rebuild it (tile_select); clear
                        // it after editing order or stores
  std::vector<uint32_t> order;
  std::vector<TileStore> stores;

  // Counts in 64 bits (a wide shape cannot wrap them); check_gemm_counts() bounds them before a
  // plan or kernel holds per-tile state, so each tile id fits the 32-bit ids below.
  uint64_t tiles_m() const { return shape.m / tile_m + (shape.m % tile_m != 0 ? 1 : 0); }
  uint64_t tiles_n() const { return shape.n / tile_n + (shape.n % tile_n != 0 ? 1 : 0); }
  uint64_t batch() const { return shape.batch; }
  // Tiles of one product; tile t belongs to product t / tiles_per_batch().
  uint64_t tiles_per_batch() const { return tiles_m() * tiles_n(); }
  uint64_t tiles() const { return tiles_per_batch() * batch(); }
  // Operand panels: A row panels of every product, then B column panels of every product.
  uint64_t panels() const { return (tiles_m() + tiles_n()) * batch(); }
  uint64_t tile_rows(uint32_t t) const;
  uint64_t tile_cols(uint32_t t) const;
  uint64_t tile_bytes(uint32_t t) const { return tile_rows(t) * tile_cols(t) * elem_bytes; }
};

// Bounds of one GEMM in the kernel model. Its state grows with these counts (~80 B per
// work-group: the plan's store and order entries and an L2 entry; 32 B per operand slice; 9 B per
// WG slot and K phase), so they bound its memory (about 170 + 130 + 150 MB per simulated GPU at
// the limits), and every 32-bit id below them is exact. models/system/gemm_limits.h refuses an
// input beyond them before anything is built.
inline constexpr uint64_t kMaxWorkGroups = uint64_t{1} << 21;     // output tiles x split-K
inline constexpr uint64_t kMaxOperandSlices = uint64_t{1} << 22;  // (tile rows + cols) x phases
inline constexpr uint64_t kMaxSlotPhases = uint64_t{1} << 24;     // WG slots x phases per WG

// ModelError naming `who` when a GEMM of `tiles_m` x `tiles_n` tiles, split-K `split_k` and
// `phases` K phases per work-group passes a bound above (products computed without wrapping).
void check_gemm_counts(const char* who, uint64_t tiles_m, uint64_t tiles_n, uint64_t split_k,
                       uint64_t phases);

// Bytes of one split-K partial tile element (FP32 accumulators).
inline constexpr uint32_t kPartialElemBytes = 4;

// A plan whose stores all go to local memory as cached WRITEs at `c_addr` (tile-major layout),
// dispatched in grouped order (the baseline GEMM), marked `retile`. With split_k > 1 the FP32
// partials go to a workspace right after C (the simulator carries no data: the address only picks
// HBM channels).
GemmPlan local_gemm_plan(GemmShape shape, uint32_t elem_bytes, uint32_t tile_m, uint32_t tile_n,
                         uint32_t group_m, int gpu, uint64_t a_addr, uint64_t b_addr,
                         uint64_t c_addr, uint32_t split_k = 1);

// Appends tile ids of tile rows [row_begin, row_end) in grouped order: blocks of `group_m` tile
// rows are walked column by column, so a wave of WGs shares a few A row-panels and B column-panels
// (Tensile's WorkGroupMapping / Triton's GROUP_M swizzle; improves L2 reuse).
void append_grouped_order(std::vector<uint32_t>& order, uint32_t tiles_n, uint32_t row_begin,
                          uint32_t row_end, uint32_t group_m);

}  // namespace t3sim::gpu
