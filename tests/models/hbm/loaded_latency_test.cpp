// The loaded-latency probe: achieved follows offered below saturation and saturates at peak x
// efficiency, latency starts at the unloaded value and has a knee, and the curve is deterministic.
#include <gtest/gtest.h>

#include <string>

#include "models/hbm/loaded_latency.h"
#include "sim/config.h"
#include "sim/errors.h"

namespace t3sim::hbm {
namespace {

HbmConfig t3_like() {
  const nlohmann::json j = {
      {"stacks", 4},       {"channels_per_stack", 8}, {"bandwidth", "1 TB/s"},
      {"efficiency", 0.9}, {"interleave", "32 KiB"},  {"nmc_bandwidth", "4 TB/s"}};
  const ConfigDoc doc = config_from_json(j, "<test>");
  return HbmConfig::from(ConfigNode::root(doc));
}

TEST(LoadedLatency, CurveFollowsOfferedLoadThenSaturatesWithAKnee) {
  LoadedLatencySpec spec;
  spec.requests_per_channel = 100;
  const LoadedLatencyCurve c = loaded_latency(t3_like(), spec);
  ASSERT_EQ(c.points.size(), 20u);
  EXPECT_DOUBLE_EQ(c.peak_gbps, 1000.0);
  // 4 KiB at 28.125 GB/s per channel = 145.6 ns, + 100 ns.
  EXPECT_NEAR(c.unloaded_ns, 245.6, 0.1);
  const LoadedLatencyPoint& lo = c.points.front();
  EXPECT_NEAR(lo.offered_gbps, 50.0, 0.01);
  EXPECT_NEAR(lo.achieved_gbps, lo.offered_gbps, lo.offered_gbps * 0.05);
  EXPECT_NEAR(lo.mean_ns, c.unloaded_ns, c.unloaded_ns * 0.1);
  const LoadedLatencyPoint& hi = c.points.back();
  EXPECT_LE(hi.achieved_gbps, 900.0 * 1.001);  // peak x efficiency
  EXPECT_GT(hi.achieved_gbps, 900.0 * 0.9);
  ASSERT_TRUE(c.knee.has_value());
  EXPECT_GT(c.points[*c.knee].load, 0.5);
  for (size_t i = 1; i < c.points.size(); ++i) {
    EXPECT_GE(c.points[i].mean_ns, c.points[i - 1].mean_ns * 0.98) << i;  // grows with load
    EXPECT_GE(c.points[i].p99_ns, c.points[i].mean_ns * 0.99) << i;
  }
}

TEST(LoadedLatency, DeterministicAndWritesCostTurnarounds) {
  LoadedLatencySpec spec;
  spec.requests_per_channel = 50;
  spec.loads = {0.8};
  const auto a = loaded_latency(t3_like(), spec);
  const auto b = loaded_latency(t3_like(), spec);
  EXPECT_EQ(a.points[0].mean_ns, b.points[0].mean_ns);
  EXPECT_EQ(a.points[0].p99_ns, b.points[0].p99_ns);
  spec.read_share = 0.5;
  const auto mixed = loaded_latency(t3_like(), spec);
  EXPECT_GT(mixed.points[0].mean_ns, a.points[0].mean_ns);
  spec.request = Bytes(64 * 1024);
  EXPECT_THROW(loaded_latency(t3_like(), spec), ModelError);
}

}  // namespace
}  // namespace t3sim::hbm
