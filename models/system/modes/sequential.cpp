// The sequential mode: the GEMM on all CUs; when it has ended on every GPU, the ring reduce-scatter
// and then the ring all-gather run as CU kernels (t3-paper.md §4.4's baseline).
#include "models/system/collective_launch.h"
#include "models/system/mode_runners.h"
#include "models/system/scenario.h"

namespace t3sim::system {
namespace {

SublayerResult run_sequential(const ModeRun& run) {
  const SublayerSpec& s = run.spec;
  SublayerResult r;
  Scenario sc(run.doc, s.seed, run.tracer, run.fold);
  sc.allocate(s.shape, s.elem_bytes);
  std::unique_ptr<CollectiveRun> rs, ag;
  const auto addrs = sc.c_addrs();
  const uint64_t bytes = output_bytes(s);
  Join join(sc.active(), [&] {
    rs = launch_collective(sc, CollOp::kReduceScatter, CollExec::kCu, bytes, s.elem_bytes, addrs, 0,
                           [&] {
                             ag = launch_collective(sc, CollOp::kAllGather, CollExec::kCu, bytes,
                                                    s.elem_bytes, addrs, 0, nullptr);
                           });
  });
  for (int g = 0; g < sc.active(); ++g) {
    sc.launch_local_gemm(g, s.shape, s.elem_bytes, sc.spec().cus, &join);
  }
  sc.run();
  absorb_into(r, sc);
  keep_outputs(r, sc, run.opts);
  const Tick gemm_end = sc.last_gemm_done();
  r.gemm_us = (gemm_end - Tick{}).to_us();
  r.rs_us = (rs->finished() - rs->started()).to_us();
  r.rs_exposed_us = (rs->finished() - gemm_end).to_us();
  r.ag_us = (ag->finished() - ag->started()).to_us();
  r.total_us = (ag->finished() - Tick{}).to_us();
  return r;
}

}  // namespace

ModeSpec sequential_mode() {
  return {
      .name = "sequential",
      .description = "GEMM on all CUs, then ring RS and ring AG (CU kernels)",
      .paragraph =
          "The baseline without overlap. The GEMM runs alone on every CU; when it ends, a ring "
          "reduce-scatter and then a ring all-gather run as NCCL-style CU kernels. Simulated: each "
          "piece is a simulation of the whole machine, and the total is their sum.",
      .bound =
          "Upper bound for every overlapping mode: overlap that makes a sublayer slower than this "
          "is contention costing more than the overlap saves.",
      .run = &run_sequential,
      .compose = &compose_sequential,
  };
}

}  // namespace t3sim::system
