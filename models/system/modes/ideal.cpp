// The ideal mode: the GEMM, the CU ring reduce-scatter and the all-gather each simulated alone,
// composed as perfect overlap of the first two (t3-paper.md §4.4 [inferred]). A row of mode.cpp.
#include "models/system/mode_runners.h"

namespace t3sim::system {

ModeSpec ideal_mode() {
  return {
      .name = "ideal",
      .description =
          "max(GEMM alone, CU RS alone) + AG: perfect overlap, no contention (t3 can beat it: its "
          "NMC RS moves less data than the CU RS)",
      .paragraph =
          "Composed, not simulated together: the GEMM alone, the CU ring reduce-scatter alone and "
          "the all-gather alone are simulated, and the total is max(GEMM, RS) + AG. That is "
          "perfect overlap of the GEMM with a CU reduce-scatter, with no contention for CUs, HBM "
          "or links.",
      .bound =
          "Lower bound for modes that overlap the GEMM with that same CU reduce-scatter (cu-split, "
          "decomposed). Not a bound for t3: t3 does a different reduce-scatter. Its GEMM stores "
          "are NMC updates that add partial sums beside the DRAM banks, and tracker-triggered DMAs "
          "forward finished tiles, so no CU kernel reads, adds and writes back every chunk. t3 "
          "moves less data through HBM and uses no CUs for communication, so it can finish before "
          "ideal. Compare t3 with ideal-nmc.",
      .simulated = false,
      .run = &run_composed,
      .compose = &compose_ideal,
  };
}

}  // namespace t3sim::system
