// Every shipped HBM preset (configs/presets/hbm) binds against hbm_params(), cites a source for
// every value, and builds an Hbm whose per-channel bandwidth is peak x efficiency / channels.
#include <gtest/gtest.h>

#include <filesystem>

#include "models/hbm/hbm.h"
#include "sim/config.h"
#include "sim/registry.h"
#include "sim/simulator.h"
#include "tests/support/fixtures.h"

namespace t3sim::hbm {
namespace {

namespace fs = std::filesystem;

TEST(HbmPresets, EveryShippedPresetBindsAndCitesEveryKey) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const fs::path dir = t3sim::testing::shipped_configs_dir() / "presets" / "hbm";
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++n;
    SCOPED_TRACE(entry.path().string());
    const ConfigDoc doc = load_config(entry.path());
    const nlohmann::json& j = doc.root;
    ASSERT_TRUE(j.contains("source") && j["source"].is_object());
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (is_annotation_key(it.key())) continue;
      EXPECT_TRUE(j["source"].contains(it.key())) << "no source for " << it.key();
    }
    for (auto it = j["source"].begin(); it != j["source"].end(); ++it) {
      EXPECT_TRUE(j.contains(it.key())) << "source for a missing key " << it.key();
    }
    Simulator sim;
    Hbm hbm(sim, &sim.root(), "hbm", ConfigNode::root(doc));
    const HbmConfig& c = hbm.config();
    EXPECT_NEAR(static_cast<double>(c.channel_bandwidth().bytes_per_second()) * c.channels(),
                static_cast<double>(c.bandwidth.bytes_per_second()) * c.efficiency,
                1e3 * c.channels());
  }
  EXPECT_GT(n, 0);  // every preset there is: the count is not pinned, so adding one is no test edit
}

TEST(HbmPresets, RegistryDescribesTheHbmType) {
  Registry r;
  register_hbm_models(r);
  const auto d = r.describe("hbm");
  EXPECT_EQ(d["type"], "hbm");
  EXPECT_EQ(d["params"].size(), hbm_params().specs().size());
  EXPECT_FALSE(d["stats"].empty());
}

}  // namespace
}  // namespace t3sim::hbm
