// Exact timing of links: serialisation + latency, per-packet store-and-forward pipelining over
// hops, short last packets, empty messages, local sends, switch traversal, busy-time stats.
#include <gtest/gtest.h>

#include "fabric_test_util.h"

namespace t3sim::fabric {
namespace {

using testing::Harness;
using testing::link_cfg;
using testing::ring_cfg;
using namespace t3sim::literals;

// 64 KiB at 64 GB/s = 1.024 us exactly.
constexpr uint64_t kPktPs = 1'024'000;
constexpr uint64_t kLatPs = 500'000;

TEST(FabricLink, OneSmallMessageIsSerialisationPlusLatency) {
  Harness h(ring_cfg(4));
  h.send(0, 1, 4096, 7);
  h.run();
  ASSERT_EQ(h.rx.log.size(), 1u);
  EXPECT_EQ(h.rx.log[0].tag, 7u);
  EXPECT_EQ(h.rx.log[0].at.ps(), 64'000 + kLatPs);  // 4096 B / 64 GB/s = 64 ns
}

TEST(FabricLink, SerialisationRoundsUpToThePicosecond) {
  Harness h(ring_cfg(4, link_cfg("75 GB/s")));
  h.send(0, 1, 1000, 1);
  h.run();
  EXPECT_EQ(h.rx.at(1).ps(), 13'334 + kLatPs);  // 1000 B / 75 GB/s = 13333.3 ps -> 13334
}

TEST(FabricLink, PacketsOnOneHopSerialiseBackToBack) {
  Harness h(ring_cfg(4));
  h.send(0, 1, 1 << 20, 1);  // 16 packets
  h.run();
  EXPECT_EQ(h.rx.at(1).ps(), 16 * kPktPs + kLatPs);
}

TEST(FabricLink, TwoHopsPipelinePackets) {
  Harness h(ring_cfg(8));
  constexpr uint64_t kPackets = 64;
  h.send(0, 2, kPackets * 65536, 1);
  h.run();
  EXPECT_EQ(h.fabric->hops(0, 2), 2);
  EXPECT_EQ(h.rx.at(1).ps(), (kPackets + 1) * kPktPs + 2 * kLatPs);
}

TEST(FabricLink, ShortLastPacketWaitsForTheNextHop) {
  Harness h(ring_cfg(8));
  h.send(0, 2, 3 * 65536 + 1000, 1);
  h.run();
  const uint64_t short_ps = 15'625;  // 1000 B / 64 GB/s
  EXPECT_EQ(h.rx.at(1).ps(), 4 * kPktPs + short_ps + 2 * kLatPs);
}

TEST(FabricLink, EmptyMessageTakesOnlyLatency) {
  Harness h(ring_cfg(8));
  h.send(0, 3, 0, 1);
  h.run();
  EXPECT_EQ(h.rx.at(1).ps(), 3 * kLatPs);
}

TEST(FabricLink, LocalSendSkipsLinks) {
  nlohmann::json cfg = ring_cfg(4);
  cfg["local_latency"] = "10 ns";
  Harness h(cfg);
  h.send(2, 2, 1 << 20, 5);
  h.run();
  EXPECT_EQ(h.rx.at(5).ps(), 10'000u);
  EXPECT_EQ(h.fabric->hops(2, 2), 0);
  EXPECT_EQ(h.fabric->total_link_bytes(), 0u);
  EXPECT_EQ(h.fabric->bytes_sent(2), 1u << 20);
  EXPECT_EQ(h.fabric->bytes_received(2), 1u << 20);
}

TEST(FabricLink, SwitchTraversalPaysTwoSerialisationsAndSwitchLatency) {
  Harness h(testing::switch_cfg(4));
  h.send(1, 3, 65536, 1);
  h.run();
  EXPECT_EQ(h.rx.at(1).ps(), 2 * kPktPs + 2 * kLatPs + 100'000);
  EXPECT_EQ(h.fabric->path_latency(1, 3), Duration::ns(1100));
}

TEST(FabricLink, BusyTimeAndUtilisation) {
  Harness h(ring_cfg(4));
  h.send(0, 1, 1 << 20, 1);
  const Tick end = h.run();
  const size_t e = *h.fabric->find_link("gpu0", "gpu1");
  EXPECT_EQ(h.fabric->link_busy(e).count_ps(), 16 * kPktPs);
  EXPECT_EQ(h.fabric->link(e).bytes_carried(), 1u << 20);
  const auto dump = h.sim.stats().dump(end);
  const double util = dump["fabric"]["gpu0"]["to_gpu1"]["utilisation"]["value"].get<double>();
  EXPECT_NEAR(util, 16.0 * kPktPs / static_cast<double>(end.ps()), 1e-12);
}

TEST(FabricLink, PathBandwidthIsTheNarrowestLink) {
  Harness h(testing::two_level_cfg(2, 4));
  EXPECT_EQ(h.fabric->path_bandwidth(0, 1), Bandwidth::gbps(300));
  EXPECT_EQ(h.fabric->path_bandwidth(0, 4), Bandwidth::bytes_per_s(48'500'000'000));
}

}  // namespace
}  // namespace t3sim::fabric
