// Collectives on a machine of fakes (test_machine.h): conservation, bandwidth and latency limits,
// algorithm and protocol effects, determinism.
#include <gtest/gtest.h>

#include <numeric>

#include "models/collectives/collective.h"
#include "sim/errors.h"
#include "test_machine.h"

namespace t3sim::collectives {
namespace {

using testing::library;
using testing::MachineOptions;
using testing::TestMachine;

struct Outcome {
  double us = 0;
  std::vector<uint64_t> sent;
  std::vector<uint64_t> received;
  uint64_t events = 0;
};

Outcome run(const MachineOptions& mo, const LibraryConfig& lib, CollectiveSpec spec) {
  Simulator sim;
  TestMachine tm(sim, mo);
  Collective c(sim, &sim.root(), "coll", tm.machine(), lib, std::move(spec));
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  EXPECT_TRUE(c.done());
  Outcome r;
  r.us = c.elapsed().to_us();
  for (int g = 0; g < mo.gpus; ++g) {
    r.sent.push_back(c.bytes_sent(g));
    r.received.push_back(c.bytes_received(g));
  }
  r.events = sim.events();
  return r;
}

CollectiveSpec spec(Kind k, uint64_t bytes, Protocol p = Protocol::kSimple, uint32_t channels = 4) {
  CollectiveSpec s;
  s.kind = k;
  s.bytes = bytes;
  s.proto = p;
  s.channels = channels;
  return s;
}

// No launch or per-step costs: what is left is data movement and the fabric/HBM latencies.
LibraryConfig free_sync() {
  return library({{"link_efficiency", 1.0},
                  {"simple_step_latency", "0 ns"},
                  {"simple_base_latency", "0 ns"},
                  {"ll_step_latency", "0 ns"},
                  {"ll_base_latency", "0 ns"},
                  {"ll128_step_latency", "0 ns"},
                  {"ll128_base_latency", "0 ns"}});
}

double busbw_ar(uint64_t bytes, int n, double us) {
  return static_cast<double>(bytes) / (us * 1e3) * 2.0 * (n - 1) / n;
}

TEST(Collective, RingAllReduceSendsTwoNMinusOneOverNPerGpu) {
  MachineOptions mo;
  const uint64_t S = 16 << 20;
  const Outcome r = run(mo, library(), spec(Kind::kAllReduce, S));
  for (int g = 0; g < mo.gpus; ++g) {
    EXPECT_EQ(r.sent[g], 2 * (mo.gpus - 1) * S / mo.gpus);
    EXPECT_EQ(r.received[g], r.sent[g]);  // symmetric ring: conservation per GPU
  }
}

TEST(Collective, LargeSizesApproachLinkBandwidthTimesProtocolEfficiency) {
  MachineOptions mo;  // 100 GB/s links, 2 TB/s HBM
  const uint64_t S = 256 << 20;
  const double simple = busbw_ar(S, 8, run(mo, free_sync(), spec(Kind::kAllReduce, S)).us);
  EXPECT_GT(simple, 0.90 * 100);
  EXPECT_LT(simple, 1.00 * 100);
  const double ll128 =
      busbw_ar(S, 8, run(mo, free_sync(), spec(Kind::kAllReduce, S, Protocol::kLL128, 8)).us);
  EXPECT_GT(ll128, 0.88 * 93.75);
  EXPECT_LT(ll128, 93.75);
  const uint64_t small = 32 << 20;
  const double ll =
      busbw_ar(small, 8, run(mo, free_sync(), spec(Kind::kAllReduce, small, Protocol::kLL, 8)).us);
  EXPECT_GT(ll, 0.85 * 50);
  EXPECT_LT(ll, 50);
}

TEST(Collective, SmallSizesScaleWithStepsTimesStepLatency) {
  MachineOptions mo;
  const uint64_t S = 64 << 10;
  auto with = [&](const char* lat, int gpus) {
    MachineOptions m = mo;
    m.gpus = gpus;
    return run(m, library({{"ll_step_latency", lat}}), spec(Kind::kAllReduce, S, Protocol::kLL, 2))
        .us;
  };
  // LL: one slice per chunk; each lane runs 2(n-1)+1 ops in a row, each paying the step latency.
  const double d8 = with("3.6 us", 8) - with("0.6 us", 8);
  EXPECT_NEAR(d8, 15 * 3.0, 0.1 * 15 * 3.0);
  const double d4 = with("3.6 us", 4) - with("0.6 us", 4);
  EXPECT_NEAR(d4, 7 * 3.0, 0.1 * 7 * 3.0);
}

TEST(Collective, DirectBeatsRingOnASwitchForSmallSizes) {
  MachineOptions mo;
  const LibraryConfig lib = library({{"ll_base_latency", "0 ns"}});
  CollectiveSpec ring = spec(Kind::kAllReduce, 32 << 10, Protocol::kLL, 4);
  CollectiveSpec direct = ring;
  direct.algo = Algo::kDirect;
  ring.algo = Algo::kRing;
  const Outcome r = run(mo, lib, ring);
  const Outcome d = run(mo, lib, direct);
  EXPECT_LT(d.us, 0.5 * r.us);
  // Same volume in total (LL's interleaved chunks spread it unevenly over the ring's GPUs).
  EXPECT_EQ(std::accumulate(d.sent.begin(), d.sent.end(), uint64_t{0}),
            std::accumulate(r.sent.begin(), r.sent.end(), uint64_t{0}));
}

TEST(Collective, FewerChannelsAreSlowerWhenEachCuIsLatencyBound) {
  MachineOptions mo;
  mo.link = Bandwidth::gbps(1000);
  // The window covers a piece's loads (its stores are posted): Little's law on the load latency,
  // ~16 KiB / ~4 us = ~4 GB/s per CU.
  mo.hbm_latency = Duration::us(4);
  mo.cu_window = Bytes::kib(16);
  const uint64_t S = 32 << 20;
  const double c2 = run(mo, free_sync(), spec(Kind::kAllReduce, S, Protocol::kSimple, 2)).us;
  const double c8 = run(mo, free_sync(), spec(Kind::kAllReduce, S, Protocol::kSimple, 8)).us;
  EXPECT_GT(c2 / c8, 3.0);
  MachineOptions wide = mo;
  wide.cu_window = Bytes::kib(256);
  const double w2 = run(wide, free_sync(), spec(Kind::kAllReduce, S, Protocol::kSimple, 2)).us;
  EXPECT_LT(w2, 0.5 * c2);  // a larger window hides the latency
}

TEST(Collective, PieceSizeIsAConvergedFidelityKnob) {
  MachineOptions mo;
  for (const Protocol p : {Protocol::kSimple, Protocol::kLL128}) {
    const CollectiveSpec s = spec(Kind::kAllReduce, 64 << 20, p, 8);
    const double full = run(mo, library({{"piece", "16 KiB"}}), s).us;
    const double half = run(mo, library({{"piece", "8 KiB"}}), s).us;
    EXPECT_NEAR(half / full, 1.0, 0.02) << to_string(p);
  }
}

TEST(Collective, NcclShrinksTheChannelCountForSmallSizes) {
  Simulator sim;
  TestMachine tm(sim, MachineOptions{});
  const LibraryConfig lib = library({{"channels", 24}});
  CollectiveSpec s = spec(Kind::kAllReduce, 64 << 10, Protocol::kLL, 0);
  EXPECT_EQ(Collective(sim, &sim.root(), "a", tm.machine(), lib, s).channels(), 2u);  // 4 KiB x 8
  s.bytes = 1 << 20;
  s.proto = Protocol::kSimple;
  EXPECT_EQ(Collective(sim, &sim.root(), "b", tm.machine(), lib, s).channels(), 24u);
  s.channels = 3;  // explicit counts are kept
  EXPECT_EQ(Collective(sim, &sim.root(), "c", tm.machine(), lib, s).channels(), 3u);
}

TEST(Collective, ResultsAreDeterministic) {
  MachineOptions mo;
  CollectiveSpec s = spec(Kind::kAllReduce, (8 << 20) + 4096, Protocol::kLL128, 3);
  const Outcome a = run(mo, library(), s);
  const Outcome b = run(mo, library(), s);
  EXPECT_EQ(a.us, b.us);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.sent, b.sent);
}

TEST(Collective, HierarchicalAcrossNodes) {
  MachineOptions mo;
  const uint64_t S = 8 << 20;
  const LibraryConfig lib = library({{"gpus_per_node", 4}});
  CollectiveSpec s = spec(Kind::kAllReduce, S, Protocol::kAuto, 2);
  s.algo = Algo::kHierarchical;  // auto would run NCCL's Tree (tree_max)
  Simulator sim;
  TestMachine tm(sim, mo);
  Collective c(sim, &sim.root(), "coll", tm.machine(), lib, s);
  EXPECT_EQ(c.algo(), Algo::kHierarchical);
  EXPECT_EQ(c.protocol(), Protocol::kSimple);  // LL128 is NVLink-only; 8 MiB > ll_max
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  ASSERT_TRUE(c.done());
  for (int g = 0; g < 8; ++g) EXPECT_EQ(c.bytes_sent(g), 2 * 3 * S / 4 + S / 4);
}

TEST(Collective, RejectsImpossibleRequests) {
  Simulator sim;
  TestMachine tm(sim, MachineOptions{});
  const LibraryConfig lib = library();
  CollectiveSpec bad = spec(Kind::kReduceScatter, (1 << 20) + 4);  // not divisible by 8 x 4 B
  EXPECT_THROW(Collective(sim, &sim.root(), "a", tm.machine(), lib, bad), ConfigError);
  CollectiveSpec dup = spec(Kind::kAllReduce, 1 << 20);
  dup.group = {0, 1, 1};
  EXPECT_THROW(Collective(sim, &sim.root(), "b", tm.machine(), lib, dup), ConfigError);
  CollectiveSpec hier = spec(Kind::kAllReduce, 1 << 20);
  hier.algo = Algo::kHierarchical;  // gpus_per_node = 0: one node
  EXPECT_THROW(Collective(sim, &sim.root(), "c", tm.machine(), lib, hier), ConfigError);
}

}  // namespace
}  // namespace t3sim::collectives
