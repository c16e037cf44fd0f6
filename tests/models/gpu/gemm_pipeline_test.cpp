// Tests of the GEMM kernel's stage pipeline and its L2 front end with an inline GPU spec and a fake
// DRAM (tests/models/gpu/gemm_rig.h), no presets: a GEMM stalls for memory when its slices' miss
// queues fill behind a slow DRAM; the stall breakdown adds up; k_group halving converges; the
// lookahead never exceeds stages - 1 K-steps; add_cus() speeds up a running kernel.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/models/gpu/gemm_rig.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

using testing::Rig;
using testing::small_gpu;

const GemmShape kShape{512, 512, 2048};

TEST(GemmPipeline, StallsWhenTheMissQueueIsFull) {
  GpuSpec spec = small_gpu();
  spec.partition.miss_queue = 4_KiB;
  spec.partition.mshr = 4_KiB;
  Rig fast(spec, 50_ns, 64, kShape);
  const Duration t_fast = fast.run(4);
  Rig slow(spec, 2_us, 1, kShape);  // DRAM takes one request at a time: the miss queue fills
  const Duration t_slow = slow.run(4);
  EXPECT_GT(t_slow, t_fast);
  EXPECT_GT(slow.part.refusals(), 0u);
  EXPECT_GT(slow.kernel->memory_stall_ps(), fast.kernel->memory_stall_ps());
  EXPECT_GT(slow.kernel->phase_stalls(), 0u);
}

TEST(GemmPipeline, StallBreakdownAddsUpToWgTime) {
  const GpuSpec spec = small_gpu();
  Rig r(spec, 200_ns, 64, kShape);
  r.run(4);
  // 16 tiles x phases x the matrix time of one phase (bk x (stages - 1) of K).
  const uint32_t phases = r.kernel->phases_per_wg();
  EXPECT_EQ(phases, 2048u / (32u * 2u));
  const Duration phase = spec.clock.cycles(2ULL * 128 * 128 * 64 / 1024);
  EXPECT_EQ(r.kernel->compute_ps(), 16ULL * phases * phase.count_ps());
  EXPECT_GT(r.kernel->pipeline_ps(), 0u);   // every WG waits for its first phase
  EXPECT_GT(r.kernel->l2_hit_rate(), 0.5);  // 4 tile rows x 4 tile columns share panels
  EXPECT_LT(r.kernel->l2_hit_rate(), 1.0);
}

TEST(GemmPipeline, KGroupHalvingConverges) {
  GpuSpec two = small_gpu();
  two.stages = 5;
  two.k_group = 2;
  GpuSpec one = two;
  one.k_group = 1;
  Rig a(two, 300_ns, 16, kShape);
  Rig b(one, 300_ns, 16, kShape);
  const double ta = a.run(4).to_us();
  const double tb = b.run(4).to_us();
  EXPECT_LT(std::abs(ta - tb) / tb, 0.02) << ta << " vs " << tb;
}

TEST(GemmPipeline, LookaheadIsStagesMinusOneKSteps) {
  GpuSpec s = small_gpu();
  s.stages = 4;
  s.k_group = 0;
  EXPECT_EQ(k_phases_for(s, 2048), 2048u / (32u * 3u) + 1u);
  EXPECT_EQ(lookahead_phases(s), 1u);
  s.k_group = 1;
  EXPECT_EQ(lookahead_phases(s), 3u);
  s.k_group = 2;  // 3 K-steps ahead cannot be split into whole phases of 2: round down, >= 1
  EXPECT_EQ(lookahead_phases(s), 1u);
}

TEST(GemmPipeline, AddCusSpeedsUpARunningKernel) {
  const GpuSpec spec = small_gpu();
  Rig two(spec, 100_ns, 64, kShape);
  const Duration t_two = two.run(2);
  Rig grown(spec, 100_ns, 64, kShape);
  grown.kernel->launch(2);
  grown.sim.run_until(Tick{} + 5_us);
  grown.kernel->add_cus(2);
  grown.sim.run();
  grown.sim.finish();
  const Duration t_grown = grown.kernel->done() - grown.kernel->start();
  EXPECT_LT(t_grown, t_two);
}

}  // namespace
}  // namespace t3sim::gpu
