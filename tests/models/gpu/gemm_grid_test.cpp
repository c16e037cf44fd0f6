// Tests of the GEMM kernel's grid (models/gpu/gemm_kernel.h, gpu_spec.h GemmLaunch) on the inline
// 4-CU GPU of tests/models/gpu/gemm_rig.h: a GEMM of 8 equal tiles launched on 3 of the 4 CUs.
// per_tile spreads the 8 tiles over 3 slots (3 rounds). A persistent grid has G = 4 CTAs (the
// whole GPU's slots) of 2 tiles each: under the static schedule CTA 3 finds no slot and starts only
// when a resident CTA ends its list, so its 2 tiles run as rounds 3 and 4; under the dynamic
// schedule the 3 resident CTAs drain the shared counter (3 rounds) and CTA 3 finds nothing left.
// add_cus() starts a waiting CTA at once. Split-K and a refusing admit() hook keep working.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "tests/models/gpu/gemm_rig.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

using testing::Rig;
using testing::small_gpu;

const GemmShape kEight{256, 512, 256};  // 2 x 4 tiles of 128x128, 4 phases of 64 K each

// Records when each tile was computed; optionally admits at most `limit` tiles not yet computed
// (a tracker with `limit` entries), asking the kernel to retry as tiles complete.
class RecordingHooks : public GemmHooks {
 public:
  explicit RecordingHooks(uint32_t limit = 0) : limit_(limit) {}
  bool admit(uint32_t tile) override {
    if (limit_ != 0 && open_ >= limit_) {
      ++refusals;
      return false;
    }
    ++open_;
    ++admits[tile];
    return true;
  }
  void tile_computed(uint32_t tile) override {
    ++computed[tile];
    at[tile] = kernel->now();
    if (limit_ != 0) {
      --open_;
      kernel->admit_retry();
    }
  }
  GemmKernel* kernel = nullptr;
  std::map<uint32_t, int> admits, computed;
  std::map<uint32_t, Tick> at;
  int refusals = 0;

 private:
  uint32_t limit_;
  uint32_t open_ = 0;
};

GpuSpec grid_gpu(GemmLaunch launch, PersistentSchedule schedule = PersistentSchedule::kStatic) {
  GpuSpec s = small_gpu();
  s.gemm_launch = launch;
  s.persistent_schedule = schedule;
  return s;
}

struct GridRun {
  Duration time;
  uint32_t ctas = 0;
  std::vector<Tick> item_done;  // per work item in plan order: when its tile was computed
};

// Runs kEight on `cus` CUs; with add_at > 0, `add` more CUs are given back at that time.
GridRun run_grid(const GpuSpec& spec, uint32_t cus, Duration add_at = Duration{},
                 uint32_t add = 0) {
  RecordingHooks hooks;
  Rig rig(spec, 100_ns, 64, kEight, &hooks);
  hooks.kernel = rig.kernel.get();
  rig.kernel->launch(cus);
  if (add > 0) {
    rig.sim.run_until(Tick{} + add_at);
    rig.kernel->add_cus(add);
  }
  rig.sim.run();
  rig.sim.finish();
  GridRun r;
  r.time = rig.kernel->done() - rig.kernel->start();
  r.ctas = rig.kernel->ctas();
  for (const uint32_t tile : rig.kernel->plan().order) r.item_done.push_back(hooks.at[tile]);
  return r;
}

double ratio(Duration a, Duration b) { return a.to_us() / b.to_us(); }

TEST(GemmGrid, PerTileIsTheDefaultAndSpreadsTilesOverTheLaunchedCus) {
  EXPECT_EQ(GpuSpec{}.gemm_launch, GemmLaunch::kPerTile);
  const GridRun three = run_grid(small_gpu(), 3);
  const GridRun four = run_grid(small_gpu(), 4);
  EXPECT_EQ(three.ctas, 8u);  // one CTA per tile
  // 3 rounds on 3 CUs against 2 on 4: taking one CU costs half a round of 8 tiles' work.
  EXPECT_NEAR(ratio(three.time, four.time), 1.5, 0.03);
  // Tiles start in plan order: item 3 is in round 2, so it is computed before item 6 (round 3).
  EXPECT_LT(three.item_done[3], three.item_done[6]);
}

TEST(GemmGrid, StaticPersistentWaitingCtaRunsItsListAfterAResidentList) {
  const GpuSpec spec = grid_gpu(GemmLaunch::kPersistent);
  const GridRun r = run_grid(spec, 3);
  EXPECT_EQ(r.ctas, 4u);  // the whole GPU's slots, not the 3 CUs free at launch
  // CTA 3 holds items 3 and 7; it starts when CTA 0, 1 or 2 has done items j and j + 4.
  for (const size_t resident : {0, 1, 2, 4, 5, 6}) {
    EXPECT_GT(r.item_done[3], r.item_done[resident]) << resident;
  }
  EXPECT_GT(r.item_done[7], r.item_done[3]);
  // Resident lists (2 rounds) then the waiting CTA's list (2 rounds): 4 rounds, as 8 tiles on 2
  // CUs, against 3 rounds per tile on the same 3 CUs.
  const GridRun per_tile = run_grid(small_gpu(), 3);
  const GridRun two = run_grid(small_gpu(), 2);
  EXPECT_NEAR(ratio(r.time, per_tile.time), 4.0 / 3.0, 0.03);
  EXPECT_NEAR(ratio(r.time, two.time), 1.0, 0.02);
  // On the whole GPU no CTA waits: the same time as per tile.
  EXPECT_NEAR(ratio(run_grid(spec, 4).time, run_grid(small_gpu(), 4).time), 1.0, 0.02);
}

TEST(GemmGrid, DynamicPersistentHasNearlyNoTail) {
  const GpuSpec spec = grid_gpu(GemmLaunch::kPersistent, PersistentSchedule::kDynamic);
  const GridRun r = run_grid(spec, 3);
  EXPECT_EQ(r.ctas, 4u);
  const GridRun per_tile = run_grid(small_gpu(), 3);
  EXPECT_NEAR(ratio(r.time, per_tile.time), 1.0, 0.02);
  // Items leave the shared counter in plan order: item 3 is in round 2, not after round 2.
  EXPECT_LT(r.item_done[3], r.item_done[6]);
}

TEST(GemmGrid, DynamicStaticRoundsLeaveTheWaitingCtaItsOwnItems) {
  GpuSpec spec = grid_gpu(GemmLaunch::kPersistent, PersistentSchedule::kDynamic);
  spec.persistent_static_rounds = 1;
  const GridRun one = run_grid(spec, 3);
  // Items 0-2 by index, then the counter from item 4 (= G): the resident CTAs run 4, 5, 6 in
  // round 2 and one of them 7 in round 3, when CTA 3 has a slot and runs its own item 3.
  for (const size_t earlier : {0, 1, 2, 4, 5, 6}) {
    EXPECT_GT(one.item_done[3], one.item_done[earlier]) << earlier;
  }
  const Tick t3 = one.item_done[3], t7 = one.item_done[7];
  EXPECT_GT(t7, one.item_done[6]);
  EXPECT_LT((std::max(t3, t7) - std::min(t3, t7)).to_us(), 2.0) << "a round is about 8 us";
  EXPECT_NEAR(ratio(one.time, run_grid(small_gpu(), 3).time), 1.0, 0.02);  // still 3 rounds
  // Two rounds cover all 8 items (2 x G): the schedule is the static one, and so is the tail.
  spec.persistent_static_rounds = 2;
  EXPECT_NEAR(ratio(run_grid(spec, 3).time, run_grid(grid_gpu(GemmLaunch::kPersistent), 3).time),
              1.0, 0.01);
  // On the whole GPU nobody waits: the rounds change nothing.
  EXPECT_NEAR(ratio(run_grid(spec, 4).time, run_grid(small_gpu(), 4).time), 1.0, 0.02);
}

TEST(GemmGrid, AddCusStartsAWaitingCta) {
  const GpuSpec spec = grid_gpu(GemmLaunch::kPersistent);
  // One CU given back 1 us in (a round is about 8 us): CTA 3 starts then, in round 1.
  const GridRun r = run_grid(spec, 3, 1_us, 1);
  EXPECT_LT(r.item_done[3], r.item_done[4]);
  const GridRun four = run_grid(spec, 4);
  EXPECT_GT(r.time, four.time);
  EXPECT_LT(r.time.to_us(), four.time.to_us() + 1.5);
  // Given back after the resident lists are done, it changes nothing: CTA 3 has started already.
  const GridRun late = run_grid(spec, 3, 20_us, 1);
  EXPECT_NEAR(ratio(late.time, run_grid(spec, 3).time), 1.0, 0.01);
}

TEST(GemmGrid, PersistentSplitKAdmitsAndComputesEachTileOnce) {
  // 2 x 2 tiles split 2 ways = 8 items over G = 4 CTAs on 3 CUs; a 2-entry tracker refuses tiles.
  const GemmShape shape{256, 256, 1024};
  for (const PersistentSchedule schedule :
       {PersistentSchedule::kStatic, PersistentSchedule::kDynamic}) {
    const GpuSpec spec = grid_gpu(GemmLaunch::kPersistent, schedule);
    RecordingHooks hooks(2);
    Rig run(spec, 100_ns, 64, shape, &hooks, 2);
    hooks.kernel = run.kernel.get();
    run.kernel->launch(3);
    run.sim.run();
    run.sim.finish();
    ASSERT_TRUE(run.kernel->finished()) << static_cast<int>(schedule);
    EXPECT_EQ(run.kernel->ctas(), 4u);
    EXPECT_EQ(hooks.admits.size(), 4u);
    EXPECT_EQ(hooks.computed.size(), 4u);
    for (const auto& [tile, n] : hooks.admits) EXPECT_EQ(n, 1) << tile;
    for (const auto& [tile, n] : hooks.computed) EXPECT_EQ(n, 1) << tile;
    EXPECT_GT(hooks.refusals, 0);
    EXPECT_EQ(run.kernel->partial_bytes(), shape.m * shape.n * kPartialElemBytes);
  }
}

}  // namespace
}  // namespace t3sim::gpu
