// The ideal-nmc mode: as ideal with T3's reduce-scatter (DMA engines and NMC UPDATEs) as the
// isolated piece, the reference for the fused modes. A row of mode.cpp.
#include "models/system/mode_runners.h"

namespace t3sim::system {

ModeSpec ideal_nmc_mode() {
  return {
      .name = "ideal-nmc",
      .description = "as ideal with an NMC (DMA + UPDATE) reduce-scatter",
      .paragraph =
          "As ideal, but with T3's reduce-scatter running alone: DMA engines forward the chunks "
          "and NMC UPDATEs add them in memory. Composed: max(GEMM alone, NMC RS alone) + AG.",
      .bound =
          "The reference for t3, t3-mca and t3-direct: the same reduce-scatter with perfect "
          "overlap and no contention. The gap between a fused mode and ideal-nmc is what "
          "contention costs. It is not a strict bound: a fused run can save work that the separate "
          "pieces each do.",
      .simulated = false,
      .run = &run_composed,
      .compose = &compose_ideal,
      .rs_piece = Piece::kRsNmc,
  };
}

}  // namespace t3sim::system
