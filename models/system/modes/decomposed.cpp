// The decomposed mode (Wang et al. ASPLOS'23 / Async-TP style software decomposition): the GEMM
// runs in k row chunks; when a chunk has ended on every GPU, its ring reduce-scatter runs on the
// library's default channel count of CUs while the next chunk's GEMM uses the rest; one all-gather
// of the whole output follows the last reduce-scatter.
#include <memory>
#include <vector>

#include "models/system/collective_launch.h"
#include "models/system/mode_runners.h"
#include "models/system/scenario.h"
#include "sim/errors.h"

namespace t3sim::system {
namespace {

SublayerResult run_decomposed(const ModeRun& run) {
  const SublayerSpec& s = run.spec;
  SublayerResult r;
  Scenario sc(run.doc, s.seed, run.tracer, run.fold);
  sc.allocate(s.shape, s.elem_bytes);
  const int n = sc.gpus();
  const uint32_t k = s.decompose_chunks;
  if (k == 0 || s.shape.m % k != 0 || (s.shape.m / k) % static_cast<uint64_t>(n) != 0) {
    throw ConfigError("", "/decompose_chunks",
                      "decomposed needs tokens divisible by chunks x GPUs (" + std::to_string(k) +
                          " x " + std::to_string(n) + ")");
  }
  gpu::GemmShape part = s.shape;
  part.m /= k;
  const uint64_t part_bytes = part.m * part.n * s.elem_bytes;
  const uint32_t rs_cus = default_channels(sc);
  std::vector<std::unique_ptr<CollectiveRun>> rs(k);
  std::unique_ptr<CollectiveRun> ag;
  std::vector<std::unique_ptr<Join>> joins;
  uint32_t rs_left = k;
  Tick gemm_end{};
  std::function<void(int, uint32_t)> launch_part;
  for (uint32_t j = 0; j < k; ++j) {
    joins.push_back(std::make_unique<Join>(sc.active(), [&, j] {
      gemm_end = sc.sim().now();
      std::vector<uint64_t> addrs = sc.c_addrs();
      for (auto& a : addrs) a += j * part_bytes;
      rs[j] = launch_collective(
          sc, CollOp::kReduceScatter, CollExec::kCu, part_bytes, s.elem_bytes, addrs, 0, [&] {
            if (--rs_left == 0) {
              ag = launch_collective(sc, CollOp::kAllGather, CollExec::kCu, part_bytes * k,
                                     s.elem_bytes, sc.c_addrs(), 0, nullptr);
            }
          });
    }));
  }
  // Per-GPU stream: part j+1 starts when this GPU's part j is done, leaving CUs to the RS.
  class PartHooks : public gpu::GemmHooks {
   public:
    PartHooks(Join& j, std::function<void()> next) : join_(j), next_(std::move(next)) {}
    void kernel_done() override {
      join_.arrive();
      if (next_) next_();
    }

   private:
    Join& join_;
    std::function<void()> next_;
  };
  std::vector<std::unique_ptr<PartHooks>> part_hooks;
  launch_part = [&](int g, uint32_t j) {
    std::function<void()> next;
    if (j + 1 < k) next = [&launch_part, g, j] { launch_part(g, j + 1); };
    part_hooks.push_back(std::make_unique<PartHooks>(*joins[j], next));
    const uint32_t cus = j == 0 ? sc.spec().cus : sc.spec().cus - rs_cus;
    sc.launch_local_gemm(g, part, s.elem_bytes, cus, part_hooks.back().get(), j * part_bytes);
  };
  for (int g = 0; g < sc.active(); ++g) launch_part(g, 0);
  sc.run();
  absorb_into(r, sc);
  keep_outputs(r, sc, run.opts);
  r.gemm_us = (gemm_end - Tick{}).to_us();
  r.ag_us = (ag->finished() - ag->started()).to_us();
  r.rs_exposed_us = (ag->started() - gemm_end).to_us();
  r.total_us = (ag->finished() - Tick{}).to_us();
  return r;
}

}  // namespace

ModeSpec decomposed_mode() {
  return {
      .name = "decomposed",
      .description = "GEMM in k chunks, each chunk's RS overlapped with the next chunk's GEMM",
      .paragraph =
          "The GEMM is split into --chunks row chunks, and each chunk's CU reduce-scatter overlaps "
          "the next chunk's GEMM, as in fine-grained decomposition schemes. Smaller GEMMs lose "
          "efficiency, and the pieces contend. Simulated as one run.",
      .bound = "A realistic point; ideal is its lower bound.",
      .run = &run_decomposed,
  };
}

}  // namespace t3sim::system
