// The t3 mode (Pati et al., ASPLOS'24; t3-paper.md §3): the fused GEMM-RS on the planner's rings,
// run by run_fused (fused_run.cpp). A row of mode.cpp.
#include "models/system/mode_runners.h"

namespace t3sim::system {

ModeSpec t3_mode() {
  return {
      .name = "t3",
      .description =
          "fused GEMM-RS: tracker, triggered DMA and NMC on the ring (the planner's rings; direct "
          "UPDATEs on a full mesh); then AG",
      .paragraph =
          "T3's fused GEMM and reduce-scatter (Pati et al., ASPLOS'24). The GEMM runs a staggered "
          "schedule: on GPU g, stage s computes chunk (g + s - 1) mod N. Its output tiles go out "
          "as NMC UPDATEs into the next GPU's memory around the ring. The tracker at each memory "
          "controller counts the updates per tile and fires a pre-programmed DMA when a tile is "
          "complete. The controllers arbitrate FR-FCFS, and the all-gather runs afterwards. Where "
          "the collective planner finds several rings (both directions of a ring, a cube mesh, a "
          "torus), each carries a share of every chunk; on a full mesh (MI300X) every tile goes "
          "straight to its chunk's owner, as in t3-direct (the system's t3.rs_direction picks; the "
          "paper's machine keeps one ring). The GEMM takes the library's tile for its shape, "
          "without split-K. Simulated as one run, with every contention.",
      .bound =
          "Neither bound: a realistic point. Expect sequential >= t3, and t3 close to ideal-nmc "
          "when contention is low.",
      .fused_rs = RsFusion::kRing,
      .run = &run_fused,
  };
}

}  // namespace t3sim::system
