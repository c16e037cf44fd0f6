// NCCL's P2P direct pointers ("p2p_direct"): with one process driving every GPU, a ring's last
// copy is stored straight into the receiver's output, so the final receive-only step of each loop
// waits for its flag and moves no data. Without it, that step copies a chunk out of the slot
// while no channel sends (the channels run in lock-step), which a 2-GPU ring, one sending step
// in three, pays far more than an 8-GPU one (14 in 15): busbw then falls with fewer GPUs on a
// switch, where NCCL's bus bandwidth is the same for every count (validation/reference/hardware.md
// §5.5). NCCL's P2P read mode ("p2p_read"): over NVLink between compute-capability 8.0 GPUs the
// receiver loads from the sender's buffer, and in that mode NCCL hands out no direct pointers to
// unregistered buffers (validation/reference/nccl-tuning.md §7), so p2p_direct is void: every
// receive of a ring copies its slice out of the buffer, as with p2p_direct off.
#include <gtest/gtest.h>

#include "models/collectives/collective.h"
#include "test_machine.h"

namespace t3sim::collectives {
namespace {

using testing::library;
using testing::MachineOptions;
using testing::TestMachine;

struct Outcome {
  double us = 0;
  uint64_t hbm_bytes = 0;  // every class and command, all GPUs
};

Outcome run(int gpus, bool direct, uint64_t bytes, bool read = false) {
  Simulator sim;
  MachineOptions mo;
  mo.gpus = gpus;
  mo.hbm_latency = Duration::ns(1000);  // a CU copies at 64 KiB / 1 us, A100's order (gpu presets)
  TestMachine tm(sim, mo);
  const LibraryConfig lib = library({{"fair_share", true},
                                     {"p2p_direct", direct},
                                     {"p2p_read", read},
                                     {"link_efficiency", 1.0},
                                     {"simple_step_latency", "4 us"},
                                     {"simple_base_latency", "0 ns"}});
  CollectiveSpec s;
  s.kind = Kind::kAllReduce;
  s.bytes = bytes;
  s.proto = Protocol::kSimple;
  s.algo = Algo::kRing;
  s.channels = 8;
  Collective c(sim, &sim.root(), "coll", tm.machine(), lib, std::move(s));
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  EXPECT_TRUE(c.done());
  Outcome r;
  r.us = c.elapsed().to_us();
  for (size_t k = 0; k < common::kNumTrafficClasses; ++k) {
    const auto cls = static_cast<common::TrafficClass>(k);
    r.hbm_bytes += tm.bytes(cls, common::MemCmd::kRead) + tm.bytes(cls, common::MemCmd::kWrite);
  }
  return r;
}

double busbw(int n, uint64_t bytes, double us) {
  return static_cast<double>(bytes) / (us * 1e3) * 2.0 * (n - 1) / n;
}

TEST(P2pDirect, IsOffUnlessTheLibrarySetsIt) {
  EXPECT_FALSE(library().p2p_direct);
  EXPECT_TRUE(library({{"p2p_direct", true}}).p2p_direct);
}

// Each GPU's final receive covers one chunk in n of every loop: S / n read from the slot and
// S / n stored into the output, 2 S over the group whatever n.
TEST(P2pDirect, TheFinalReceiveMovesNoBytes) {
  const uint64_t S = 16 << 20;
  for (const int n : {2, 4, 8}) {
    const Outcome copy = run(n, false, S);
    const Outcome direct = run(n, true, S);
    EXPECT_EQ(copy.hbm_bytes - direct.hbm_bytes, 2 * S) << n << " GPUs";
    EXPECT_LT(direct.us, copy.us) << n << " GPUs";
  }
}

// On a switch the ring's bus bandwidth at a large size is the same for any GPU count once the
// final receive is free; the copy costs a 2-GPU ring (one step in three) more than an 8-GPU one.
TEST(P2pDirect, BusBandwidthOfTwoFourAndEightGpusAgree) {
  const uint64_t S = 256 << 20;
  auto bw = [&](int n, bool direct) { return busbw(n, S, run(n, direct, S).us); };
  const double eight = bw(8, true);
  EXPECT_NEAR(bw(2, true), eight, 0.03 * eight);
  EXPECT_NEAR(bw(4, true), eight, 0.03 * eight);
  const double copy2 = bw(2, false);
  EXPECT_LT(copy2, 0.97 * bw(8, false));
  EXPECT_GT(bw(2, true) / copy2, eight / bw(8, false) + 0.03);
}

TEST(P2pRead, IsOffUnlessTheLibrarySetsIt) {
  EXPECT_FALSE(library().p2p_read);
  EXPECT_TRUE(library({{"p2p_read", true}}).p2p_read);
}

// With read mode the final receive of a 2-GPU ring copies its chunk again: S / 2 read from the
// buffer and S / 2 stored per GPU, 2 S over the pair, exactly what p2p_direct saved.
TEST(P2pRead, TheFinalReceiveCopiesEvenWithDirectPointersAsked) {
  const uint64_t S = 16 << 20;
  const Outcome direct = run(2, true, S);
  const Outcome read = run(2, true, S, true);
  const Outcome copy = run(2, false, S);
  EXPECT_EQ(read.hbm_bytes - direct.hbm_bytes, 2 * S);
  EXPECT_EQ(read.hbm_bytes, copy.hbm_bytes);
  EXPECT_DOUBLE_EQ(read.us, copy.us);
  EXPECT_GT(read.us, direct.us);
}

// Read mode leaves LL/LL128 alone and does nothing without p2p_direct.
TEST(P2pRead, WithoutDirectPointersItChangesNothing) {
  const uint64_t S = 4 << 20;
  const Outcome copy = run(4, false, S);
  const Outcome read = run(4, false, S, true);
  EXPECT_EQ(read.hbm_bytes, copy.hbm_bytes);
  EXPECT_DOUBLE_EQ(read.us, copy.us);
}

}  // namespace
}  // namespace t3sim::collectives
