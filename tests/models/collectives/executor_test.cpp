// Executor contracts: the CU executor holds exactly `channels` CUs per GPU while it runs and routes
// its traffic through HBM with the right classes; the DMA executor reduces by NMC UPDATE with no
// CU, and without NMC runs only all-gather.
#include <gtest/gtest.h>

#include "models/collectives/collective.h"
#include "sim/errors.h"
#include "test_machine.h"

namespace t3sim::collectives {
namespace {

using common::MemCmd;
using common::TrafficClass;
using testing::library;
using testing::MachineOptions;
using testing::TestMachine;

CollectiveSpec spec(Kind k, uint64_t bytes, Executor e, uint32_t channels = 4) {
  CollectiveSpec s;
  s.kind = k;
  s.bytes = bytes;
  s.exec = e;
  s.channels = channels;
  return s;
}

TEST(CuExecutor, HoldsExactlyItsChannelsWhileRunning) {
  MachineOptions mo;
  Simulator sim;
  TestMachine tm(sim, mo);
  Collective c(sim, &sim.root(), "coll", tm.machine(), library(),
               spec(Kind::kAllReduce, 32 << 20, Executor::kCu, 6));
  sim.elaborate();
  for (const auto& g : tm.machine().gpus) EXPECT_EQ(g.cus->available(), mo.cus);
  c.start(nullptr, 0);
  sim.run_until(Tick::from_ps(Duration::us(50).count_ps()));
  ASSERT_FALSE(c.done());
  for (const auto& g : tm.machine().gpus) EXPECT_EQ(g.cus->available(), mo.cus - 6);
  sim.run();
  sim.finish();
  ASSERT_TRUE(c.done());
  for (const auto& g : tm.machine().gpus) EXPECT_EQ(g.cus->available(), mo.cus);
}

TEST(CuExecutor, ReduceScatterTrafficGoesThroughHbmAsRsClasses) {
  MachineOptions mo;
  Simulator sim;
  TestMachine tm(sim, mo);
  const uint64_t S = 8 << 20;
  CollectiveSpec s = spec(Kind::kReduceScatter, S, Executor::kCu);
  s.proto = Protocol::kSimple;
  Collective c(sim, &sim.root(), "coll", tm.machine(), library(), s);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  const uint64_t n = 8;
  // Per GPU: n-1 sends read own data, n-2 of them also a received slot; the final step reads both.
  EXPECT_EQ(tm.bytes(TrafficClass::kRsRead, MemCmd::kRead), n * (2 * n - 1) * S / n);
  // Received slices land in receive slots; the final reduction is stored once.
  EXPECT_EQ(tm.bytes(TrafficClass::kRsWrite, MemCmd::kWrite), n * ((n - 1) * S / n + S / n));
  EXPECT_EQ(tm.bytes(TrafficClass::kAgRead, MemCmd::kRead), 0u);
  EXPECT_EQ(tm.bytes(TrafficClass::kRsUpdate, MemCmd::kUpdate), 0u);
}

TEST(CuExecutor, LlDoublesTheWireBytes) {
  MachineOptions mo;
  Simulator sim;
  TestMachine tm(sim, mo);
  CollectiveSpec s = spec(Kind::kAllGather, 1 << 20, Executor::kCu);
  s.proto = Protocol::kLL;
  Collective c(sim, &sim.root(), "coll", tm.machine(), library({{"link_efficiency", 1.0}}), s);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  uint64_t sent = 0;
  for (int g = 0; g < 8; ++g) sent += c.bytes_sent(g);
  EXPECT_EQ(tm.bytes(TrafficClass::kAgWrite, MemCmd::kWrite), 2 * sent + 7 * (1 << 20));
}

TEST(DmaExecutor, NmcReduceScatterUsesUpdatesAndNoCu) {
  MachineOptions mo;
  mo.nmc = true;
  Simulator sim;
  TestMachine tm(sim, mo);
  const uint64_t S = 8 << 20;
  Collective c(sim, &sim.root(), "coll", tm.machine(), library(),
               spec(Kind::kReduceScatter, S, Executor::kDma));
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run_until(Tick::from_ps(Duration::us(5).count_ps()));
  for (const auto& g : tm.machine().gpus) EXPECT_EQ(g.cus->available(), mo.cus);
  sim.run();
  sim.finish();
  ASSERT_TRUE(c.done());
  const uint64_t n = 8;
  EXPECT_EQ(tm.bytes(TrafficClass::kRsUpdate, MemCmd::kUpdate), n * (n - 1) * S / n);
  EXPECT_EQ(tm.bytes(TrafficClass::kRsRead, MemCmd::kRead), n * (n - 1) * S / n);
  EXPECT_EQ(tm.bytes(TrafficClass::kRsWrite, MemCmd::kWrite), 0u);  // no receive buffers
  for (int g = 0; g < 8; ++g) EXPECT_EQ(c.bytes_sent(g), (n - 1) * S / n);
}

TEST(DmaExecutor, AllReduceWithNmcRunsRsThenAg) {
  MachineOptions mo;
  mo.nmc = true;
  Simulator sim;
  TestMachine tm(sim, mo);
  const uint64_t S = 4 << 20;
  Collective c(sim, &sim.root(), "coll", tm.machine(), library(),
               spec(Kind::kAllReduce, S, Executor::kDma, 2));
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  ASSERT_TRUE(c.done());
  const uint64_t n = 8;
  EXPECT_EQ(tm.bytes(TrafficClass::kRsUpdate, MemCmd::kUpdate), n * (n - 1) * S / n);
  EXPECT_EQ(tm.bytes(TrafficClass::kAgWrite, MemCmd::kWrite), n * (n - 1) * S / n);
}

TEST(DmaExecutor, WithoutNmcOnlyAllGather) {
  MachineOptions mo;
  Simulator sim;
  TestMachine tm(sim, mo);
  EXPECT_THROW(Collective(sim, &sim.root(), "rs", tm.machine(), library(),
                          spec(Kind::kReduceScatter, 1 << 20, Executor::kDma)),
               ConfigError);
  EXPECT_THROW(Collective(sim, &sim.root(), "ar", tm.machine(), library(),
                          spec(Kind::kAllReduce, 1 << 20, Executor::kDma)),
               ConfigError);
  CollectiveSpec ag = spec(Kind::kAllGather, 1 << 20, Executor::kDma);
  ag.algo = Algo::kDirect;
  Collective c(sim, &sim.root(), "ag", tm.machine(), library(), ag);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  ASSERT_TRUE(c.done());
  EXPECT_EQ(tm.bytes(TrafficClass::kAgWrite, MemCmd::kWrite), 8u * 7 * (1 << 20) / 8);
}

}  // namespace
}  // namespace t3sim::collectives
