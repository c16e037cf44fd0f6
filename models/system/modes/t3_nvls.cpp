// The t3-nvls mode (t3-paper.md §7.4): the fused GEMM-RS with the reduction in the NVSwitch, run
// by run_fused (fused_run.cpp). A row of mode.cpp.
#include "models/system/mode_runners.h"

namespace t3sim::system {

ModeSpec t3_nvls_mode() {
  return {
      .name = "t3-nvls",
      .description =
          "fused GEMM-RS with in-switch reduction: the tracker triggers each tile's copy into the "
          "NVSwitch, which reduces all GPUs' copies and writes one to the chunk owner",
      .paragraph =
          "T3 with the switch doing the reduction (NVLink SHARP) instead of NMC. Each GPU computes "
          "its chunks in t3-direct's order and writes every tile to its own memory; the tracker "
          "sees the write and fires a DMA that sends the tile up into the NVSwitch as one copy of "
          "an in-switch reduction. The switch counts the N copies of each tile, reduces them at "
          "its ports' reduce_bandwidth and sends one reduced copy to the chunk owner, whose memory "
          "takes a plain write (no UPDATE) that its tracker counts. Needs a switch with "
          "reduce_bandwidth and the packet fabric; runs unfolded. Simulated as one run.",
      .bound =
          "Not faster than the GEMM alone (plus the all-gather), and no slower than sequential "
          "when the overlap pays; t3-direct is the NMC-update alternative on the same switch.",
      .fused_rs = RsFusion::kNvls,
      .run = &run_fused,
  };
}

}  // namespace t3sim::system
