// The cu-split mode (t3-paper.md §2.4, Fig. 6): the GEMM on cus - ar_cus CUs and the ring
// all-reduce kernel on ar_cus CUs start together and contend for memory and links. When the
// all-reduce ends first, its CUs go back to the GEMMs still running (the hardware scheduler hands
// free CUs to the remaining kernel's waiting workgroups).
#include <vector>

#include "models/system/collective_launch.h"
#include "models/system/mode_runners.h"
#include "models/system/scenario.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace {

SublayerResult run_cu_split(const ModeRun& run) {
  const SublayerSpec& s = run.spec;
  SublayerResult r;
  Scenario sc(run.doc, s.seed, run.tracer, run.fold);
  sc.allocate(s.shape, s.elem_bytes);
  if (s.ar_cus == 0 || s.ar_cus >= sc.spec().cus) {
    throw ConfigError(
        "", "/ar_cus",
        "cu-split needs 1 <= ar_cus < " + std::to_string(sc.spec().cus) + " (the GPU's CUs)");
  }
  Join join(sc.active(), nullptr);
  std::vector<gpu::GemmKernel*> gemms;
  for (int g = 0; g < sc.active(); ++g) {
    gemms.push_back(
        &sc.launch_local_gemm(g, s.shape, s.elem_bytes, sc.spec().cus - s.ar_cus, &join));
  }
  auto give_back = [&gemms, cus = s.ar_cus] {
    for (gpu::GemmKernel* k : gemms) {
      if (!k->finished()) k->add_cus(cus);
    }
  };
  auto ar = launch_collective(sc, CollOp::kAllReduce, CollExec::kCu, output_bytes(s), s.elem_bytes,
                              sc.c_addrs(), s.ar_cus, give_back);
  sc.run();
  absorb_into(r, sc);
  keep_outputs(r, sc, run.opts);
  r.gemm_us = (sc.last_gemm_done() - Tick{}).to_us();
  r.rs_us = (ar->finished() - ar->started()).to_us();  // the whole all-reduce here
  r.total_us = (max(sc.last_gemm_done(), ar->finished()) - Tick{}).to_us();
  r.rs_exposed_us = std::max(0.0, r.total_us - r.gemm_us);
  return r;
}

}  // namespace

ModeSpec cu_split_mode() {
  return {
      .name = "cu-split",
      .description = "GEMM and the all-reduce kernel concurrently, AR on ar_cus CUs",
      .paragraph =
          "The GEMM and an all-reduce CU kernel run at the same time: the all-reduce on --ar-cus "
          "CUs, the GEMM on the rest. The overlap is bought with compute. Simulated as one run.",
      .bound =
          "A realistic point; ideal is its lower bound, and sequential should be its upper bound "
          "unless the GEMM loses more to the missing CUs than the overlap saves.",
      .run = &run_cu_split,
      .rs_piece = Piece::kArCu,
  };
}

}  // namespace t3sim::system
