// Configuration: strict binding (did-you-mean for topology names and keys, unused keys, bare
// numbers, inconsistent sizes), the registry entry, and every shipped preset under
// configs/presets/links.
#include <gtest/gtest.h>

#include <filesystem>

#include "fabric_test_util.h"
#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "sim/errors.h"
#include "sim/registry.h"

namespace t3sim::fabric {
namespace {

using testing::config_error;
using testing::Harness;

TEST(FabricConfig, UnknownTopologySuggestsTheNearestName) {
  nlohmann::json cfg = testing::ring_cfg(4);
  cfg["topology"] = "rign";
  const std::string msg = config_error(cfg);
  EXPECT_NE(msg.find("did you mean 'ring'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/topology"), std::string::npos) << msg;
}

TEST(FabricConfig, TakesTheSystemGpuCountWhenItHasNone) {
  nlohmann::json cfg = testing::ring_cfg(4);
  cfg.erase("gpus");
  const ConfigDoc doc = config_from_json(cfg, "inline", {});
  const FabricConfig c = parse_fabric_config(ConfigNode::root(doc), 6);
  EXPECT_EQ(c.gpus, 6);
  EXPECT_EQ(c.resolved["gpus"], 6);
  EXPECT_THROW(parse_fabric_config(ConfigNode::root(doc)), ConfigError);  // no count at all

  const ConfigDoc both = config_from_json(testing::ring_cfg(4), "inline", {});
  EXPECT_EQ(parse_fabric_config(ConfigNode::root(both), 4).gpus, 4);  // agreeing: accepted
  try {
    parse_fabric_config(ConfigNode::root(both), 8);
    ADD_FAILURE() << "a fabric count that disagrees with the system's was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("drop fabric.gpus"), std::string::npos) << e.what();
  }
}

std::optional<t3sim::common::GpuRotation> sublayer_rotation_of(const nlohmann::json& cfg) {
  const ConfigDoc doc = config_from_json(cfg, "<test>", {t3sim::testing::fixtures_dir()});
  return sublayer_rotation(parse_fabric_config(ConfigNode::root(doc)));
}

TEST(FabricConfig, SublayerRotationsComeFromTheTopology) {
  const auto ring = sublayer_rotation_of(testing::ring_cfg(4));
  ASSERT_TRUE(ring.has_value());
  EXPECT_EQ(ring->reps(), 1);
  EXPECT_EQ(ring->size(), 4);
  const auto sw = sublayer_rotation_of(testing::switch_cfg(4));
  ASSERT_TRUE(sw.has_value());
  EXPECT_EQ(sw->reps(), 1);
  // Two nodes: only whole-node rotations, so node 0's four GPUs stand for the others.
  const auto two = sublayer_rotation_of(testing::two_level_cfg(2, 4));
  ASSERT_TRUE(two.has_value());
  EXPECT_TRUE(two->whole_nodes);
  EXPECT_EQ(two->reps(), 4);
  EXPECT_EQ(two->rep(6), 2);
  EXPECT_EQ(two->shift(6), 4);
  EXPECT_EQ(two->add(two->rep(6), two->shift(6)), 6);
  Harness h(testing::two_level_cfg(2, 4));
  EXPECT_EQ(h.fabric->gpus_per_node(), 4);
  // Leaf-spine: whole-node rotations too (each source of traffic checks its routes before folding).
  const auto leaf_spine = sublayer_rotation_of(testing::leaf_spine_cfg(8, 4, 4));
  ASSERT_TRUE(leaf_spine.has_value());
  EXPECT_TRUE(leaf_spine->whole_nodes);
  EXPECT_EQ(leaf_spine->reps(), 4);
  EXPECT_FALSE(ring->whole_nodes);  // a ring has no nodes to rotate
}

TEST(FabricConfig, StrictKeysAndUnits) {
  nlohmann::json typo = testing::ring_cfg(4);
  typo["link"]["bandwith"] = typo["link"]["bandwidth"];
  typo["link"].erase("bandwidth");
  EXPECT_NE(config_error(typo).find("did you mean 'bandwidth'"), std::string::npos);

  nlohmann::json bare = testing::ring_cfg(4);
  bare["link"]["latency"] = 500;
  EXPECT_NE(config_error(bare).find("add a unit"), std::string::npos);

  nlohmann::json unused = testing::ring_cfg(4);
  unused["switch"] = {{"latency", "1 ns"}, {"port_bandwidth", "1 GB/s"}};
  EXPECT_NE(config_error(unused).find("not used by topology 'ring'"), std::string::npos);

  nlohmann::json missing = testing::switch_cfg(4);
  missing.erase("switch");
  EXPECT_NE(config_error(missing).find("needs key 'switch'"), std::string::npos);
}

TEST(FabricConfig, SizesAndPortsAreChecked) {
  nlohmann::json mismatch = testing::two_level_cfg(2, 4);
  mismatch["gpus"] = 6;
  EXPECT_NE(config_error(mismatch).find("nodes x gpus_per_node = 8"), std::string::npos);

  EXPECT_NE(config_error(testing::switch_cfg(32)).find("ports"), std::string::npos);
  EXPECT_NE(config_error(testing::ring_cfg(0)).find("at least 1"), std::string::npos);
  nlohmann::json mesh = testing::ring_cfg(kMaxFullyConnectedGpus + 1);
  mesh["topology"] = "fully_connected";
  EXPECT_NE(config_error(mesh).find("at most 4096 GPUs"), std::string::npos);

  nlohmann::json eff = testing::two_level_cfg(2, 4);
  eff["nic"]["efficiency"] = 1.5;
  EXPECT_NE(config_error(eff).find("out of range"), std::string::npos);
}

TEST(FabricConfig, ResolvedConfigHasDefaultsAndOnlyUsedKeys) {
  Harness h({{"topology", "ring"},
             {"gpus", 4},
             {"link", {{"bandwidth", "75 GB/s"}, {"latency", "500 ns"}}}});
  const auto& r = h.fabric->resolved_config();
  EXPECT_EQ(r["link"]["packet_size"], "64 KiB");
  EXPECT_EQ(r["link"]["credits"], 0);
  EXPECT_TRUE(r.contains("bidirectional"));
  EXPECT_FALSE(r.contains("nic"));
  EXPECT_FALSE(r.contains("nodes"));
}

TEST(FabricConfig, RegistryDescribesTheFabric) {
  Registry reg;
  register_fabric_models(reg);
  const auto d = reg.describe("fabric");
  EXPECT_EQ(d["type"], "fabric");
  EXPECT_FALSE(d["params"].empty());
  EXPECT_FALSE(d["stats"].empty());
}

nlohmann::json with_preset(nlohmann::json cfg, const std::string& key, const std::string& file) {
  cfg[key] = {{"extends", "presets/links/" + file}};
  return cfg;
}

TEST(FabricConfig, EveryShippedPresetBuildsAFabric) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const std::filesystem::path configs = t3sim::testing::shipped_configs_dir();
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(configs / "presets" / "links")) {
    const std::string file = entry.path().filename().string();
    nlohmann::json cfg;
    if (file.rfind("nvswitch", 0) == 0) {
      cfg = with_preset(testing::switch_cfg(8), "switch", file);
    } else if (file.rfind("pcie", 0) == 0) {
      cfg = with_preset(testing::nvlink_pairs_cfg(8), "switch", file);
    } else if (file.rfind("ib-switch", 0) == 0) {
      cfg = with_preset(testing::two_level_cfg(2, 8), "ib_switch", file);
    } else if (file.rfind("ib-", 0) == 0 || file.rfind("efa-", 0) == 0) {
      cfg = with_preset(testing::two_level_cfg(2, 8), "nic", file);
    } else {
      cfg = with_preset(testing::ring_cfg(4), "link", file);
    }
    Harness h(cfg, configs);
    h.send(0, 1, 1 << 20, 1);
    h.run();
    EXPECT_EQ(h.rx.log.size(), 1u) << file;
    ++count;
  }
  EXPECT_GT(count, 0);  // every link preset there is; the count is not pinned
}

TEST(FabricConfig, T3RingPresetIs75GBsPerDirectionAnd500ns) {
  Harness h(with_preset(testing::ring_cfg(8), "link", "t3-ring-link.json"));
  EXPECT_EQ(h.fabric->path_bandwidth(0, 7), Bandwidth::gbps(75));
  EXPECT_EQ(h.fabric->path_latency(0, 7), Duration::ns(500));
  EXPECT_EQ(h.fabric->path_bandwidth(7, 0), Bandwidth::gbps(75));  // the other direction
}

TEST(FabricConfig, NicEfficiencyScalesTheWireRate) {
  Harness h(with_preset(testing::two_level_cfg(2, 8), "nic", "ib-ndr-400.json"));
  EXPECT_EQ(h.fabric->path_bandwidth(0, 8), Bandwidth::bytes_per_s(48'500'000'000));
}

}  // namespace
}  // namespace t3sim::fabric
