// The t3-direct mode (t3-paper.md §7.1): the fused GEMM-RS with UPDATEs straight to each chunk's
// owner, run by run_fused (fused_run.cpp). A row of mode.cpp.
#include "models/system/mode_runners.h"

namespace t3sim::system {

ModeSpec t3_direct_mode() {
  return {
      .name = "t3-direct",
      .description = "fused GEMM-RS with direct UPDATEs to the chunk owner (switch)",
      .paragraph =
          "T3 on a switch or fully connected fabric: every GPU sends each UPDATE straight to the "
          "GPU that owns the chunk, instead of around a ring. The owner's tracker counts all N - 1 "
          "contributions. Simulated as one run.",
      .bound = "A realistic point; ideal-nmc is its reference, as for t3.",
      .fused_rs = RsFusion::kDirect,
      .run = &run_fused,
  };
}

}  // namespace t3sim::system
