// The sequential-nmc mode: sequential with T3's reduce-scatter (DMA engines forwarding chunks,
// NMC UPDATEs adding them in memory) in place of the CU kernel, and no overlap. Composed from the
// isolated pieces the reproduction already runs (GEMM, Piece::kRsNmc, AG) by compose_sequential,
// so its reduce-scatter time is that piece's. A row of mode.cpp.
#include "models/system/mode_runners.h"

namespace t3sim::system {

ModeSpec sequential_nmc_mode() {
  return {
      .name = "sequential-nmc",
      .description = "GEMM, then the NMC (DMA + UPDATE) reduce-scatter, then AG: no overlap",
      .paragraph =
          "Sequential with T3's reduce-scatter: the GEMM runs alone on every CU; when it ends, DMA "
          "engines forward the chunks around the ring and NMC UPDATEs add them beside the DRAM "
          "banks, and then the ring all-gather runs as a CU kernel. Composed: the GEMM alone, the "
          "NMC reduce-scatter alone and the all-gather alone are simulated, and the total is "
          "their sum. It isolates what near-memory reduction gives without overlap.",
      .bound =
          "Upper bound for t3 on the same machine: t3 runs this reduce-scatter fused with the "
          "GEMM. Its gap to sequential is what NMC saves without overlap; its gap to t3 is what "
          "the overlap adds.",
      .simulated = false,
      .run = &run_composed,
      .compose = &compose_sequential,
      .rs_piece = Piece::kRsNmc,
  };
}

}  // namespace t3sim::system
