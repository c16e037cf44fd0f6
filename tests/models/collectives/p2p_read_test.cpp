// NCCL's P2P read mode ("p2p_read"): over NVLink between compute-capability 8.0 GPUs NCCL's P2P
// transport puts the Simple buffer with the sender and lets the receiver load from it, and in that
// mode it hands out no direct pointers to unregistered buffers (validation/reference/
// nccl-tuning.md §7). So p2p_direct, which needs a write-mode connection, is void: every receive
// of a ring copies its slice out of the buffer, as with p2p_direct off.
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

Outcome run(int gpus, bool direct, bool read, uint64_t bytes) {
  Simulator sim;
  MachineOptions mo;
  mo.gpus = gpus;
  mo.hbm_latency = Duration::ns(1000);
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

TEST(P2pRead, IsOffUnlessTheLibrarySetsIt) {
  EXPECT_FALSE(library().p2p_read);
  EXPECT_TRUE(library({{"p2p_read", true}}).p2p_read);
}

// With read mode the final receive of a 2-GPU ring copies its chunk again: S / 2 read from the
// buffer and S / 2 stored per GPU, 2 S over the pair, exactly what p2p_direct saved.
TEST(P2pRead, TheFinalReceiveCopiesEvenWithDirectPointersAsked) {
  const uint64_t S = 16 << 20;
  const Outcome direct = run(2, true, false, S);
  const Outcome read = run(2, true, true, S);
  const Outcome copy = run(2, false, false, S);
  EXPECT_EQ(read.hbm_bytes - direct.hbm_bytes, 2 * S);
  EXPECT_EQ(read.hbm_bytes, copy.hbm_bytes);
  EXPECT_DOUBLE_EQ(read.us, copy.us);
  EXPECT_GT(read.us, direct.us);
}

// Read mode leaves LL/LL128 alone and does nothing without p2p_direct.
TEST(P2pRead, WithoutDirectPointersItChangesNothing) {
  const uint64_t S = 4 << 20;
  const Outcome copy = run(4, false, false, S);
  const Outcome read = run(4, false, true, S);
  EXPECT_EQ(read.hbm_bytes, copy.hbm_bytes);
  EXPECT_DOUBLE_EQ(read.us, copy.us);
}

}  // namespace
}  // namespace t3sim::collectives
