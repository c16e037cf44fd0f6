// Contention: flows sharing a link get fair, work-conserving round-robin service; per-pair FIFO
// order holds under interleaving; credits back-pressure the upstream link.
#include <gtest/gtest.h>

#include "fabric_test_util.h"
#include "models/fabric/fabric.h"
#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

using testing::Harness;

constexpr uint64_t kPktPs = 1'024'000;  // 64 KiB at 64 GB/s
constexpr uint64_t kLatPs = 500'000;
constexpr uint64_t kPackets = 64;
constexpr uint64_t kBytes = kPackets * 65536;

TEST(FabricSharing, TwoFlowsFromOneGpuSplitTheLink) {
  Harness h(testing::ring_cfg(8));
  h.send(0, 1, kBytes, 1);  // link 0->1 only
  h.send(0, 2, kBytes, 2);  // link 0->1, then 1->2
  h.run();
  const size_t e = *h.fabric->find_link("gpu0", "gpu1");
  EXPECT_EQ(h.fabric->link(e).busy_until().ps(), 2 * kPackets * kPktPs);  // work-conserving
  // Fair: each finishes within a few packet times of 2P packet times, neither first at ~P.
  const double a = static_cast<double>(h.rx.at(1).ps() - kLatPs) / kPktPs;
  const double b = static_cast<double>(h.rx.at(2).ps() - 2 * kLatPs) / kPktPs;
  EXPECT_NEAR(a, 2.0 * kPackets, 3.0);
  EXPECT_NEAR(b, 2.0 * kPackets, 3.0);
}

TEST(FabricSharing, TransitAndLocalFlowsShareTheirCommonLink) {
  Harness h(testing::ring_cfg(8));
  h.send(0, 2, kBytes, 1);  // transits gpu1
  h.send(1, 2, kBytes, 2);  // starts at gpu1
  h.run();
  const double a = static_cast<double>(h.rx.at(1).ps()) / kPktPs;
  const double b = static_cast<double>(h.rx.at(2).ps()) / kPktPs;
  EXPECT_NEAR(a, 2.0 * kPackets, 4.0);
  EXPECT_NEAR(b, 2.0 * kPackets, 4.0);
}

TEST(FabricSharing, FourFlowsGetAQuarterEach) {
  Harness h(testing::ring_cfg(16));
  for (int d = 1; d <= 4; ++d) h.send(0, d, kBytes, static_cast<uint64_t>(d));
  h.run();
  for (int d = 1; d <= 4; ++d) {
    const double t = static_cast<double>(h.rx.at(static_cast<uint64_t>(d)).ps()) / kPktPs;
    EXPECT_NEAR(t, 4.0 * kPackets, 6.0) << d;
  }
}

TEST(FabricSharing, DeliveriesOfOnePairStayInSendOrder) {
  Harness h(testing::ring_cfg(8));
  for (uint64_t i = 0; i < 20; ++i) {
    h.send(0, 3, (20 - i) * 10'000, i);        // shrinking: a later one would finish first if
    h.send(1, 3, 5'000 + i * 3'000, 100 + i);  // messages overtook each other
  }
  h.run();
  uint64_t last_a = 0;
  uint64_t last_b = 100;
  int seen_a = 0;
  int seen_b = 0;
  for (const auto& d : h.rx.log) {
    if (d.tag < 100) {
      EXPECT_TRUE(seen_a == 0 || d.tag == last_a + 1);
      last_a = d.tag;
      ++seen_a;
    } else {
      EXPECT_TRUE(seen_b == 0 || d.tag == last_b + 1);
      last_b = d.tag;
      ++seen_b;
    }
  }
  EXPECT_EQ(seen_a, 20);
  EXPECT_EQ(seen_b, 20);
}

// gpu0 -(fast, `credits`)- gpu1 -(slow)- gpu2: the slow hop is the bottleneck.
Topology chain(uint32_t credits) {
  Topology t;
  t.kind = "chain";
  t.num_gpus = 3;
  t.packet_size = Bytes::kib(64);
  for (int g = 0; g < 3; ++g) t.add_node(NodeKind::kGpu, "gpu" + std::to_string(g));
  TopoEdge fast;
  fast.bandwidth = Bandwidth::gbps(100);
  fast.latency = Duration::ns(500);
  fast.credits = credits;
  TopoEdge slow = fast;
  slow.bandwidth = Bandwidth::gbps(25);
  slow.credits = 0;
  t.add_duplex(0, 1, fast, fast);
  t.add_duplex(1, 2, slow, slow);
  return t;
}

struct ChainResult {
  Tick done;
  Tick upstream_last_send_end;
  Duration upstream_busy;
};

ChainResult run_chain(uint32_t credits) {
  Simulator sim;
  Fabric f(sim, &sim.root(), "fabric", chain(credits));
  testing::Recorder rx(sim);
  f.send(0, 2, Bytes(kBytes), &rx, 1);
  sim.run();
  sim.finish();
  const size_t up = *f.find_link("gpu0", "gpu1");
  return {rx.at(1), f.link(up).busy_until(), f.link_busy(up)};
}

TEST(FabricSharing, CreditsBackPressureTheUpstreamLink) {
  const ChainResult free_run = run_chain(0);
  const ChainResult limited = run_chain(2);
  const uint64_t fast_pkt = transfer_time(Bytes::kib(64), Bandwidth::gbps(100)).count_ps();
  const uint64_t slow_pkt = transfer_time(Bytes::kib(64), Bandwidth::gbps(25)).count_ps();
  // Without credits the fast hop streams everything at its own rate.
  EXPECT_EQ(free_run.upstream_last_send_end.ps(), kPackets * fast_pkt);
  // With a 2-packet buffer it may run only ~2 packets ahead of the slow hop: it idles in between.
  EXPECT_GE(limited.upstream_last_send_end.ps(), (kPackets - 3) * slow_pkt);
  EXPECT_EQ(limited.upstream_busy, free_run.upstream_busy);  // same work, spread out
  // The bottleneck stays saturated, so the end-to-end time does not change.
  EXPECT_EQ(limited.done, free_run.done);
}

TEST(FabricSharing, CreditedRingCompletesNeighbourTraffic) {
  Harness h(testing::ring_cfg(8, testing::link_cfg("64 GB/s", "500 ns", "64 KiB", 1)));
  uint64_t tag = 0;
  for (int g = 0; g < 8; ++g) {
    h.send(g, (g + 7) % 8, kBytes, tag++);
    h.send(g, (g + 1) % 8, kBytes, tag++);
  }
  h.run();
  EXPECT_EQ(h.rx.log.size(), tag);
}

// Credits + multi-hop flows that chase each other round the ring: every link's only buffer slot
// holds a packet waiting for the next link's slot (no virtual channels). The run must not end
// silently: finish() names the credit deadlock.
TEST(FabricSharing, CyclicCreditDeadlockIsReported) {
  Harness h(testing::ring_cfg(8, testing::link_cfg("64 GB/s", "500 ns", "64 KiB", 1)));
  for (int g = 0; g < 8; ++g) h.send(g, (g + 2) % 8, kBytes, static_cast<uint64_t>(g));
  h.sim.run();
  try {
    h.sim.finish();
    FAIL() << "expected a deadlock report";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("credit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::fabric
