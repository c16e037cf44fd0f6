// GpuSpec: the compute side of one GPU as bound from a preset: CU count and clock, matrix
// throughput per CU per cycle, the GEMM kernel's tiling (macro-tile, K phases, prefetch depth),
// L2 capacity, memory transaction size and request windows, kernel launch overhead, DMA engines.
// Every value comes from a preset whose "source" object cites its origin (hardware.md,
// t3-paper.md §4.1) or names it a t3sim modelling choice.
#pragma once

#include <cstdint>

#include "models/gpu/dma_engine.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::gpu {

struct GpuSpec {
  uint32_t cus = 0;
  Frequency clock;
  uint32_t flops_per_cu_cycle = 0;  // dense FP16/BF16 matrix FLOP per CU per cycle
  double efficiency = 1.0;          // fraction of the matrix peak a WG's inner loop reaches
  Bytes l2;
  uint32_t tile_m = 128;
  uint32_t tile_n = 128;
  uint32_t k_phases = 8;         // K loop split into this many streamed phases (fidelity knob)
  uint32_t prefetch_phases = 2;  // phases of input requested ahead of compute (LDS buffering)
  uint32_t wgs_per_cu = 1;
  uint32_t group_m = 8;  // tile rows per dispatch group (L2 swizzle)
  Duration launch_overhead;
  Bytes txn;                   // memory transaction size (fidelity knob)
  uint32_t read_window = 256;  // GEMM load requests in flight per GPU (MSHRs)
  uint32_t store_window = 256;
  Bytes cu_window;  // bytes a collective kernel's CU keeps in flight (Little's law bandwidth)
  DmaSpec dma;
};

Params gpu_params();
GpuSpec bind_gpu(const ConfigNode& node);

}  // namespace t3sim::gpu
