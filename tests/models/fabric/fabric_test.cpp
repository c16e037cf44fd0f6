// Whole-fabric properties: byte conservation and exactly-once delivery under random traffic,
// determinism, packet-size convergence (< 2 % when halved), the end-of-run in-flight check, event
// cost per packet-hop, and the observe-only switch reduction hook.
#include <gtest/gtest.h>

#include <map>

#include "fabric_test_util.h"
#include "sim/errors.h"
#include "sim/rng.h"

namespace t3sim::fabric {
namespace {

using testing::Harness;
using testing::Injector;

struct RandomRun {
  std::vector<testing::Delivery> log;
  uint64_t events = 0;
  Tick end;
};

RandomRun run_random(const nlohmann::json& cfg, uint64_t seed, int sends) {
  Harness h(cfg);
  Injector inj(h.sim, *h.fabric, h.rx);
  Rng pick(seed, "fabric-test");
  const int n = h.fabric->num_gpus();
  uint64_t expected_link_bytes = 0;
  for (int i = 0; i < sends; ++i) {
    const int src = static_cast<int>(pick.below(static_cast<uint64_t>(n)));
    const int dst = static_cast<int>(pick.below(static_cast<uint64_t>(n)));
    const uint64_t bytes = pick.below(3 << 20);
    const Tick when = Tick::from_ps(pick.below(200'000'000));
    inj.at(when, {src, dst, bytes, static_cast<uint64_t>(i)});
    expected_link_bytes += bytes * static_cast<uint64_t>(h.fabric->hops(src, dst));
  }
  RandomRun r;
  r.end = h.run();  // finish(): nothing in flight, bytes conserved, link bytes = bytes x hops
  r.events = h.sim.events();
  r.log = h.rx.log;
  EXPECT_EQ(h.rx.log.size(), static_cast<size_t>(sends));
  EXPECT_EQ(h.fabric->total_link_bytes(), expected_link_bytes);
  uint64_t sent = 0;
  uint64_t received = 0;
  for (int g = 0; g < n; ++g) {
    sent += h.fabric->bytes_sent(g);
    received += h.fabric->bytes_received(g);
  }
  EXPECT_EQ(sent, received);
  // Exactly once.
  std::map<uint64_t, int> seen;
  for (const auto& d : h.rx.log) ++seen[d.tag];
  for (const auto& [tag, count] : seen) EXPECT_EQ(count, 1) << tag;
  return r;
}

TEST(FabricProperties, RandomTrafficConservesBytesOnEveryTopology) {
  nlohmann::json fc = testing::ring_cfg(4, testing::link_cfg("50 GB/s"));
  fc["topology"] = "fully_connected";
  for (const auto& cfg :
       {testing::ring_cfg(8), testing::switch_cfg(8), fc, testing::two_level_cfg(2, 4)}) {
    run_random(cfg, 3, 300);
  }
}

TEST(FabricProperties, CreditedTwoLevelConservesBytes) {
  nlohmann::json cfg = testing::two_level_cfg(2, 4);
  cfg["link"]["credits"] = 2;
  run_random(cfg, 5, 200);
}

TEST(FabricProperties, RunsAreDeterministic) {
  const RandomRun a = run_random(testing::two_level_cfg(2, 4), 11, 300);
  const RandomRun b = run_random(testing::two_level_cfg(2, 4), 11, 300);
  ASSERT_EQ(a.log.size(), b.log.size());
  for (size_t i = 0; i < a.log.size(); ++i) {
    EXPECT_EQ(a.log[i].tag, b.log[i].tag);
    EXPECT_EQ(a.log[i].at, b.log[i].at);
  }
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.end, b.end);
}

// Time of one large transfer plus background traffic, at a given packet size.
double transfer_us(nlohmann::json cfg, const std::string& packet, int src, int dst) {
  cfg["link"]["packet_size"] = packet;
  Harness h(cfg);
  h.send(src, dst, 64ull << 20, 1);
  for (int g = 0; g < h.fabric->num_gpus(); ++g)
    h.send(g, (g + 1) % h.fabric->num_gpus(), 16 << 20, 100 + g);
  h.run();
  return h.rx.at(1).to_us();
}

TEST(FabricProperties, HalvingPacketSizeMovesLargeTransfersLessThanTwoPercent) {
  for (const auto& [cfg, src, dst] :
       {std::tuple{testing::ring_cfg(8), 0, 4}, std::tuple{testing::switch_cfg(8), 2, 6},
        std::tuple{testing::two_level_cfg(2, 4), 0, 5}}) {
    const double coarse = transfer_us(cfg, "64 KiB", src, dst);
    const double fine = transfer_us(cfg, "32 KiB", src, dst);
    EXPECT_LT(std::abs(coarse - fine) / fine, 0.02) << cfg.dump() << " " << coarse << " " << fine;
  }
}

TEST(FabricProperties, FinishReportsMessagesStillInFlight) {
  Harness h(testing::ring_cfg(8));
  h.send(0, 4, 1 << 20, 1);
  h.sim.run_until(Tick::from_ps(1'000'000));
  EXPECT_THROW(h.sim.finish(), ModelError);
}

TEST(FabricProperties, EventsPerPacketHopStayAtMostTwo) {
  Harness h(testing::ring_cfg(8));
  h.send(0, 4, 64ull << 20, 1);  // 1024 packets x 4 hops
  h.run();
  EXPECT_LE(h.sim.events(), 2u * 1024 * 4 + 8);
}

TEST(FabricProperties, UnknownGpuIsAModelError) {
  Harness h(testing::ring_cfg(4));
  EXPECT_THROW(h.send(0, 4, 10, 1), ModelError);
  EXPECT_THROW(h.send(-1, 0, 10, 1), ModelError);
}

class CountingReducer final : public SwitchReducer {
 public:
  void on_packet(const SwitchPacket& p) override {
    ++packets;
    bytes += p.bytes.count();
  }
  uint64_t packets = 0;
  uint64_t bytes = 0;
};

TEST(FabricProperties, SwitchReducerObservesSwitchedPackets) {
  Harness h(testing::switch_cfg(4));
  CountingReducer r;
  h.fabric->set_switch_reducer("nvswitch", &r);
  EXPECT_THROW(h.fabric->set_switch_reducer("gpu0", &r), ModelError);
  h.send(0, 3, 3 * 65536 + 5, 1);
  h.send(2, 1, 100, 2);
  h.run();
  EXPECT_EQ(r.packets, 5u);
  EXPECT_EQ(r.bytes, 3u * 65536 + 105);
}

}  // namespace
}  // namespace t3sim::fabric
