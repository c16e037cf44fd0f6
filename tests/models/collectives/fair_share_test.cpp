// The CU executor's link sharing ("fair_share"): the channels that send over one link share it
// equally, so a channel's step synchronisation is paid in every slice instead of being hidden
// behind the other channels' traffic, while the link's bandwidth is still used in full.
#include <gtest/gtest.h>

#include "models/collectives/collective.h"
#include "test_machine.h"

namespace t3sim::collectives {
namespace {

using testing::library;
using testing::MachineOptions;
using testing::TestMachine;

double run_us(const MachineOptions& mo, const LibraryConfig& lib, uint64_t bytes,
              uint32_t channels) {
  Simulator sim;
  TestMachine tm(sim, mo);
  CollectiveSpec s;
  s.kind = Kind::kAllReduce;
  s.bytes = bytes;
  s.proto = Protocol::kSimple;
  s.algo = Algo::kRing;
  s.channels = channels;
  Collective c(sim, &sim.root(), "coll", tm.machine(), lib, std::move(s));
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  EXPECT_TRUE(c.done());
  return c.elapsed().to_us();
}

LibraryConfig lib(bool fair, const char* step) {
  return library({{"fair_share", fair},
                  {"link_efficiency", 1.0},
                  {"simple_step_latency", step},
                  {"simple_base_latency", "0 ns"}});
}

double busbw(uint64_t bytes, double us) { return static_cast<double>(bytes) / (us * 1e3) * 1.75; }

TEST(FairShare, IsOffUnlessTheLibrarySetsIt) {
  EXPECT_FALSE(library().fair_share);
  EXPECT_TRUE(library({{"fair_share", true}}).fair_share);
}

// One loop of a ring all-reduce on 8 GPUs: every lane runs 2n-1 = 15 ops of 2 slices each, and
// in lock-step the whole ring waits out each slice's step latency: 30 x the added latency.
TEST(FairShare, EverySliceOfTheLockStepRingPaysTheStepLatency) {
  const MachineOptions mo;  // 100 GB/s links
  const uint64_t S = 16 << 20;
  const double added = run_us(mo, lib(true, "5 us"), S, 8) - run_us(mo, lib(true, "1 us"), S, 8);
  EXPECT_NEAR(added, 30 * 4.0, 0.1 * 30 * 4.0);
  // Unpaced, a channel that posted its slice first finishes first and the channels drift apart:
  // the others' traffic fills the link while one synchronises, hiding much of the latency.
  const double hidden = run_us(mo, lib(false, "5 us"), S, 8) - run_us(mo, lib(false, "1 us"), S, 8);
  EXPECT_LT(hidden, 0.3 * added);
}

// The latency-bound pipeline: slice time = slice / (link / channels) + step latency. Growing the
// size grows the slice (until NCCL's 1 MiB slice), so busbw ramps with size; the slice's transfer
// time does not depend on the channel count (more channels: smaller slices, smaller shares).
TEST(FairShare, BusBandwidthRampsWithTheSliceSize) {
  const MachineOptions mo;
  auto bw = [&](uint64_t bytes, uint32_t ch) {
    return busbw(bytes, run_us(mo, lib(true, "4 us"), bytes, ch));
  };
  const uint64_t S = 16 << 20;  // one loop: 8 x 8 chunks of 256 KiB, slices of 128 KiB
  // 128 KiB at 100/8 GB/s is 10.5 us per slice, plus 4 us: about 72 % of the link.
  const double small = bw(S, 8);
  EXPECT_GT(small, 0.62 * 100);
  EXPECT_LT(small, 0.78 * 100);
  EXPECT_GT(bw(4 * S, 8), small * 1.15);
  EXPECT_NEAR(bw(S, 4), small, 0.08 * small);
}

// With nothing to synchronise, pacing at the share loses no bandwidth: the channels together
// still fill the link.
TEST(FairShare, SharesAddUpToTheLink) {
  const MachineOptions mo;
  const uint64_t S = 128 << 20;
  const double paced = busbw(S, run_us(mo, lib(true, "0 ns"), S, 8));
  EXPECT_GT(paced, 0.9 * 100);
  EXPECT_LE(paced, 100.0);
}

}  // namespace
}  // namespace t3sim::collectives
