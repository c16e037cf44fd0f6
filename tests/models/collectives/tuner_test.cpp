// NCCL's tuner (tuner.h) with the shipped presets' constants: the choices NCCL is documented to
// make (the protocol steps of the 8x A100 sweep, validation/reference/measurements.md §1(A); NVLS
// from 2 MiB on 8 Hopper GPUs, validation/reference/hardware.md §5.1; Tree across two p4de nodes,
// measurements.md §2(H)), estimates that grow with the size, and pairs a group cannot run that
// are never chosen.
#include "models/collectives/tuner.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/config.h"
#include "tests/support/fixtures.h"

namespace t3sim::collectives {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;

TunerConstants preset(const std::string& name) {
  const ConfigDoc doc =
      load_config(t3sim::testing::shipped_configs_dir() / "presets" / "collectives" / name);
  return bind_tuner(ConfigNode::root(doc).child("tuner"));
}

// 8 GPUs on one NVSwitch: the planned ring is the switch port at the link efficiency (0.82).
TunerGroup switch_node(uint64_t port_gbps, uint32_t channels, bool nvls) {
  TunerGroup g;
  g.ranks = 8;
  g.ring_bus = Bandwidth::gbps(port_gbps).scaled(82, 100);
  g.channels = channels;
  if (nvls) g.nvls_bus = g.ring_bus;
  return g;
}

// Two 8-GPU p4de nodes: 300 GB/s NVSwitch ports, one 6.25 GB/s EFA rail per GPU.
TunerGroup p4de() {
  TunerGroup g = switch_node(300, 24, false);
  g.ranks = 16;
  g.nodes = 2;
  g.ll128 = false;
  g.cross_ring = Bandwidth::bytes_per_s(6'250'000'000).scaled(82, 100);
  g.node_net = g.cross_ring * 8;
  return g;
}

Estimate pick(const TunerConstants& t, const TunerGroup& g, uint64_t bytes,
              Kind k = Kind::kAllReduce) {
  return choose(t, g, k, bytes, Algo::kAuto, Protocol::kAuto, Algo::kRing);
}

TEST(Tuner, A100ProtocolStepsOfTheSweep) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const TunerConstants t = preset("nccl-a100.json");
  const TunerGroup g = switch_node(300, 24, false);
  EXPECT_EQ(pick(t, g, 32 * kKiB).proto, Protocol::kLL);
  EXPECT_EQ(pick(t, g, 512 * kKiB).proto, Protocol::kLL);
  EXPECT_EQ(pick(t, g, 1 * kMiB).proto, Protocol::kLL128);
  EXPECT_EQ(pick(t, g, 8 * kMiB).proto, Protocol::kLL128);
  EXPECT_EQ(pick(t, g, 16 * kMiB).proto, Protocol::kSimple);
  EXPECT_EQ(pick(t, g, 1 * kGiB).proto, Protocol::kSimple);
  EXPECT_EQ(pick(t, g, 1 * kGiB).algo, Algo::kRing);
}

// Fewer GPUs on the same switch: NCCL's ring pays 2(n-1) per-step latencies, and LL128's lower
// per-step NVLink latency than Simple's (1.9 against 3.4 us) makes up for its larger base (14
// against 8.4 us) only from n = 3, so two GPUs go from LL straight to Simple; four switch to
// Simple sooner than eight, whose 14 steps keep LL128 up to 8 MiB. LL's share of the bus bandwidth
// gives way at about the same size for every count (validation/reference/nccl-tuning.md §2-3).
TEST(Tuner, A100ProtocolStepsForTwoFourAndEightGpus) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const TunerConstants t = preset("nccl-a100.json");
  auto on = [](int ranks) {
    TunerGroup g = switch_node(300, 24, false);
    g.ranks = ranks;
    return g;
  };
  for (const int n : {2, 4, 8}) {
    EXPECT_EQ(pick(t, on(n), 256 * kKiB).proto, Protocol::kLL) << n << " GPUs";
    EXPECT_EQ(pick(t, on(n), 32 * kMiB).proto, Protocol::kSimple) << n << " GPUs";
    EXPECT_EQ(pick(t, on(n), 32 * kMiB).algo, Algo::kRing) << n << " GPUs";
  }
  for (uint64_t s = 512 * kKiB; s <= 1 * kGiB; s *= 2) {
    EXPECT_EQ(pick(t, on(2), s).proto, Protocol::kSimple) << s << " B";
  }
  EXPECT_EQ(pick(t, on(4), 512 * kKiB).proto, Protocol::kLL128);
  EXPECT_EQ(pick(t, on(4), 2 * kMiB).proto, Protocol::kLL128);
  EXPECT_EQ(pick(t, on(4), 4 * kMiB).proto, Protocol::kSimple);
  EXPECT_EQ(pick(t, on(8), 8 * kMiB).proto, Protocol::kLL128);
  // The per-step cost NCCL charges: base + 2(n-1) x NVLink latency, so LL128 minus Simple at
  // zero bytes is 5.6 us - 2(n-1) x 1.5 us.
  auto zero = [&](int n, Protocol p) {
    return estimate(t, on(n), Kind::kAllReduce, 0, Algo::kRing, p)->time.to_us();
  };
  EXPECT_NEAR(zero(2, Protocol::kLL128) - zero(2, Protocol::kSimple), 2.6, 1e-6);
  EXPECT_NEAR(zero(8, Protocol::kLL128) - zero(8, Protocol::kSimple), -15.4, 1e-6);
  EXPECT_NEAR(zero(4, Protocol::kLL), 6.6 + 6 * 0.6, 1e-6);
}

TEST(Tuner, HopperNvlsFromTwoMiB) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const TunerConstants t = preset("nccl-h100.json");
  const TunerGroup g = switch_node(450, 32, true);
  EXPECT_EQ(pick(t, g, 1 * kMiB).algo, Algo::kRing);
  EXPECT_EQ(pick(t, g, 1 * kMiB).proto, Protocol::kLL);
  EXPECT_EQ(pick(t, g, 2 * kMiB).algo, Algo::kNvls);
  EXPECT_EQ(pick(t, g, 1 * kGiB).algo, Algo::kNvls);
  // NVLS reduces in the switch: other kinds keep the ring.
  EXPECT_EQ(pick(t, g, 1 * kGiB, Kind::kReduceScatter).algo, Algo::kRing);
}

TEST(Tuner, TreeAcrossTwoP4deNodes) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const TunerConstants t = preset("nccl-a100.json");
  for (uint64_t s = 1 * kMiB; s <= 2 * kGiB; s *= 4) {
    EXPECT_EQ(pick(t, p4de(), s).algo, Algo::kTree) << s;
  }
  EXPECT_EQ(pick(t, p4de(), 2 * kGiB).proto, Protocol::kSimple);
  EXPECT_EQ(pick(t, p4de(), 64 * kKiB).proto, Protocol::kLL);
}

TEST(Tuner, EstimatesGrowWithBytes) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const TunerConstants t = preset("nccl-h100.json");
  for (const TunerGroup& g : {switch_node(450, 32, true), p4de()}) {
    for (const Algo a : {Algo::kRing, Algo::kTree, Algo::kNvls}) {
      for (const Protocol p : {Protocol::kSimple, Protocol::kLL128, Protocol::kLL}) {
        Duration last;
        for (uint64_t s = 4 * kKiB; s <= 4 * kGiB; s *= 2) {
          const auto e = estimate(t, g, Kind::kAllReduce, s, a, p);
          if (!e) continue;
          EXPECT_GT(e->time, last) << to_string(a) << "/" << to_string(p) << " " << s;
          last = e->time;
        }
      }
    }
  }
}

TEST(Tuner, NeverPicksWhatTheGroupCannotRun) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const TunerConstants t = preset("nccl-h100.json");
  const TunerGroup no_nvls = switch_node(450, 32, false);
  TunerGroup no_ll128 = switch_node(450, 32, true);
  no_ll128.ll128 = false;
  for (uint64_t s = 4 * kKiB; s <= 4 * kGiB; s *= 2) {
    EXPECT_NE(pick(t, no_nvls, s).algo, Algo::kNvls) << s;
    EXPECT_NE(pick(t, no_nvls, s).algo, Algo::kTree) << s;  // one node: no Tree under auto
    EXPECT_NE(pick(t, no_ll128, s).proto, Protocol::kLL128) << s;
    EXPECT_NE(pick(t, p4de(), s).proto, Protocol::kLL128) << s;
    EXPECT_NE(pick(t, p4de(), s).algo, Algo::kNvls) << s;
    // A fixed protocol restricts the choice to it: NVLS runs Simple only.
    EXPECT_EQ(
        choose(t, no_ll128, Kind::kAllReduce, s, Algo::kAuto, Protocol::kLL, Algo::kRing).algo,
        Algo::kRing);
  }
  // All-to-all has no ring: the kind's own algorithm gets a protocol.
  EXPECT_EQ(
      choose(t, no_nvls, Kind::kAllToAll, 1 * kGiB, Algo::kAuto, Protocol::kAuto, Algo::kDirect)
          .algo,
      Algo::kDirect);
}

}  // namespace
}  // namespace t3sim::collectives
