// GpuSpec: the compute side of one GPU as bound from a preset: CU count and clock, matrix
// throughput per CU per cycle, the GEMM kernel's tiling (macro-tile, K streaming pipeline:
// physical shared-memory stages x BK or the legacy K phases) and how a baseline GEMM picks it
// (tile_select: the preset tile, or a heuristic over candidate tiles and split-K, tile_select.h),
// the per-WG overhead and L2 -> CU bandwidth, L2 capacity and its memory-partition front end
// (mem_partition.h), memory transaction size and request windows, kernel launch overhead, DMA
// engines, and how a GEMM's grid is launched (gemm_launch: one CTA per tile, or a persistent grid
// of CTAs each walking a list of tiles, gemm_kernel.h). Every value comes from a preset whose
// "source" object cites its origin or names it a t3sim modelling choice.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "models/gpu/dma_engine.h"
#include "models/gpu/gemm_alignment.h"
#include "models/gpu/gemm_plan.h"
#include "models/gpu/power.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::gpu {

// How a baseline (local) GEMM chooses its macro-tile: kFixed uses tile_m x tile_n and no split-K
// (the T3 presets); kHeuristic picks among `tiles` and split-K 1..max_split_k (tile_select.h).
enum class TileSelect { kFixed, kHeuristic };

// How a GEMM kernel's grid is formed. kPerTile: one CTA (WG) per work item; the hardware block
// scheduler hands items to free WG slots in plan order (Tensile, CUTLASS sm80-style kernels).
// kPersistent: min(items, cus x wgs_per_cu) CTAs, sized for the whole GPU whatever is free at
// launch; each CTA holds its WG slot until its item list is done (cuBLAS/CUTLASS sm90 persistent
// kernels). Its schedule: kStatic (CTA j takes items j, j+G, j+2G, ... in plan order) or kDynamic
// (a CTA takes the next item from a shared counter when it finishes one).
enum class GemmLaunch { kPerTile, kPersistent };
enum class PersistentSchedule { kStatic, kDynamic };

struct TileShape {
  uint32_t m = 128;
  uint32_t n = 128;
};

// How a GEMM WG streams its K loop. kStages (physical): a shared-memory pipeline of `stages`
// buffers of one K-step (bk) each; loads run at most stages - 1 K-steps ahead of the math, k_group
// K-steps form one simulated phase (gemm_kernel.h). kPhases (legacy, coarse): K in k_phases phases
// with prefetch_phases phases requested ahead (deep lookahead; kept for ablation).
enum class Pipeline { kStages, kPhases };

// The memory-partition front end in front of the GPU's HBM (mem_partition.h), per L2 slice.
struct PartitionSpec {
  bool enabled = false;
  Bandwidth hit_bandwidth;  // all slices together (0: l2_bandwidth)
  Duration hit_latency;
  Bytes miss_queue;  // L2 -> DRAM queue per slice
  Bytes mshr;        // read-miss bytes outstanding per slice
  Bytes dirty;       // write-back buffer per slice (0: write-back stores go straight to DRAM)
  // How communication allocates in the L2 (l2_residency.h): allocate, evict-first, no-allocate.
  common::L2Policy comm_policy = common::L2Policy::kAllocate;
};

struct GpuSpec {
  uint32_t cus = 0;
  Frequency clock;
  uint32_t flops_per_cu_cycle = 0;       // dense FP16/BF16 matrix FLOP per CU per cycle
  uint32_t flops_per_cu_cycle_tf32 = 0;  // dense TF32 matrix rate (0: none)
  uint32_t flops_per_cu_cycle_fp32 = 0;  // FP32 without tensor cores (SIMT; 0: not given)
  uint32_t flops_per_cu_cycle_fp8 = 0;   // dense FP8/INT8 matrix rate (0: none)
  double efficiency = 1.0;               // fraction of the matrix peak a WG's inner loop reaches
  Bytes l2;
  uint32_t tile_m = 128;
  uint32_t tile_n = 128;
  uint32_t k_phases = 8;         // K loop split into this many streamed phases (fidelity knob)
  uint32_t prefetch_phases = 2;  // phases of input requested ahead of compute (LDS buffering)
  Pipeline pipeline = Pipeline::kPhases;
  uint32_t stages = 3;      // shared-memory stages per WG (kStages)
  uint32_t bk = 64;         // K-step of one stage (kStages)
  uint32_t k_group = 0;     // K-steps per simulated phase (0: stages - 1), a fidelity knob
  Bytes cu_inflight;        // GEMM input bytes one CU may have outstanding (0: unlimited)
  PartitionSpec partition;  // L2 slices in front of HBM
  uint32_t wgs_per_cu = 1;
  uint32_t group_m = 8;  // tile rows per dispatch group (L2 swizzle)
  TileSelect tile_select = TileSelect::kFixed;
  std::vector<TileShape> tiles;  // heuristic candidates, largest first (empty: tile_m x tile_n)
  uint32_t max_split_k = 1;      // largest K split the heuristic may choose
  Duration wg_overhead;          // fixed time per WG beyond its K loop (pipeline fill + drain)
  Bandwidth l2_bandwidth;        // L2 -> CU bandwidth, shared evenly by all WG slots (0: unlimited)
  Duration launch_overhead;
  Bytes txn;                   // memory transaction size (fidelity knob)
  uint32_t read_window = 256;  // GEMM load requests in flight per GPU (MSHRs)
  uint32_t store_window = 256;
  Bytes cu_window;  // bytes a collective kernel's CU keeps in flight (Little's law bandwidth)
  DmaSpec dma;
  // The GEMM grid and, when persistent, its tile schedule.
  GemmLaunch gemm_launch = GemmLaunch::kPerTile;
  PersistentSchedule persistent_schedule = PersistentSchedule::kStatic;
  // kDynamic only: CTA j's first R items are j, j+G, ..., j+(R-1)G (assigned by CTA index, as a
  // tile-counter loop that starts from blockIdx does), then the counter serves it from R x G on.
  // 0: every item from the counter. Late CTAs (no free SM at launch) still owe their R items.
  uint32_t persistent_static_rounds = 0;
  PowerSpec power;  // board power and clock control (disabled: the clock stays fixed)
  // Kernel classes for operand rows not 16-byte aligned (gemm_alignment.h), largest alignment
  // first; empty: every GEMM gets the aligned kernels.
  std::vector<UnalignedKernel> unaligned_kernels;
};

// FLOP per CU per cycle of `precision` (0: the preset gives none; a GEMM of it is refused).
uint32_t matrix_rate(const GpuSpec& spec, Precision precision);
std::string_view to_string(Precision precision);  // "fp16", "tf32", "fp32", "fp8", "bf16"

// Phases per WG for a K of `k` (one split) and phases requested ahead (>= 1), per the pipeline.
uint64_t k_phases_for(const GpuSpec& spec, uint64_t k);
uint32_t lookahead_phases(const GpuSpec& spec);

Params gpu_params();
GpuSpec bind_gpu(const ConfigNode& node);

}  // namespace t3sim::gpu
