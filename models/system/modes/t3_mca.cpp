// The t3-mca mode (t3-paper.md §3.7): t3 with MCA arbitrating the HBM during the fused GEMM-RS
// (models/hbm/policies/mca.h), run by run_fused (fused_run.cpp). A row of mode.cpp.
#include "models/system/mode_runners.h"

namespace t3sim::system {

ModeSpec t3_mca_mode() {
  return {
      .name = "t3-mca",
      .description = "t3 with MCA memory-controller arbitration during the fused GEMM-RS",
      .paragraph =
          "t3 with memory-controller arbitration (MCA) during the fused GEMM-RS. Compute requests "
          "go first. Communication is admitted only while the queued bytes are below a threshold "
          "set from the first stage's memory intensity, and a starvation limit bounds its wait.",
      .bound =
          "A realistic point. It beats t3 where GEMM traffic suffers from communication in the "
          "memory queues; ideal-nmc is its reference.",
      .fused_rs = RsFusion::kRing,
      .policy = "mca",
      .run = &run_fused,
  };
}

}  // namespace t3sim::system
