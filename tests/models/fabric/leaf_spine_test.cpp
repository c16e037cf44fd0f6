// Leaf-spine with rail-optimised leaves: switch and port counts, oversubscription, up/down routes
// (same-rail traffic stays on its leaf or climbs to one spine; D-mod-K spreads destinations over
// the uplinks), port-budget errors, and delivery across the spines.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "fabric_test_util.h"
#include "models/fabric/topologies/leaf_spine.h"
#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

using testing::Harness;

std::vector<std::string> visits(const Fabric& f, int src, int dst) {
  std::vector<std::string> out;
  for (uint32_t e : f.routes().path(src, dst)) {
    out.push_back(f.topology().nodes[f.topology().edges[e].to].name);
  }
  return out;
}

int count_kind(const Topology& t, NodeKind k) {
  return static_cast<int>(std::count_if(t.nodes.begin(), t.nodes.end(),
                                        [&](const TopoNode& n) { return n.kind == k; }));
}

// Links (one direction) attached to each switch node, by name.
std::map<std::string, int> ports_used(const Topology& t) {
  std::map<std::string, int> out;
  for (const TopoEdge& e : t.edges) {
    if (t.nodes[e.from].kind == NodeKind::kIbSwitch) ++out[t.nodes[e.from].name];
  }
  return out;
}

TEST(LeafSpine, CountsLeavesSpinesAndPortsAtFullBisection) {
  // 8 nodes x 4 GPUs, 4 nodes per leaf, 8-port switches: 2 groups x 4 rails = 8 leaves, each with
  // 4 down + 4 up; 32 uplinks over 8-port spines = 4 spines.
  Harness h(testing::leaf_spine_cfg(8, 4, 4));
  const Topology& t = h.fabric->topology();
  EXPECT_EQ(t.num_gpus, 32);
  EXPECT_EQ(count_kind(t, NodeKind::kNic), 32);
  EXPECT_EQ(count_kind(t, NodeKind::kNvSwitch), 8);
  EXPECT_EQ(count_kind(t, NodeKind::kIbSwitch), 12);
  for (const auto& [name, ports] : ports_used(t)) EXPECT_EQ(ports, 8) << name;
}

TEST(LeafSpine, OversubscriptionHalvesTheUplinks) {
  Harness h(testing::leaf_spine_cfg(8, 4, 4, 2.0));
  const Topology& t = h.fabric->topology();
  const std::map<std::string, int> ports = ports_used(t);
  EXPECT_EQ(ports.at("leaf0_0"), 4 + 2);                 // 4 nodes down, 2 up
  EXPECT_EQ(count_kind(t, NodeKind::kIbSwitch), 8 + 2);  // 16 uplinks over 8-port spines
  int up = 0;
  for (const TopoEdge& e : t.edges) {
    if (t.nodes[e.from].name == "leaf0_0" && t.nodes[e.to].name.starts_with("spine")) ++up;
  }
  EXPECT_EQ(up, 2);
}

TEST(LeafSpine, ShapeReportsTheRealisedRatio) {
  FabricConfig c;
  c.topology = "leaf_spine";
  c.nodes = 128;
  c.gpus_per_node = 8;
  c.own.set("nodes_per_leaf", int64_t{32});
  c.own.set("oversubscription", 3.0);
  c.ib_switch = IbSwitchSpec{Duration::ns(200), Bandwidth::gbps(50), 64};
  const LeafSpineShape s = leaf_spine_shape(c);
  EXPECT_EQ(s.groups, 4);
  EXPECT_EQ(s.leaves, 32);
  EXPECT_EQ(s.uplinks, 11);  // ceil(32 / 3)
  EXPECT_EQ(s.spines, 6);    // ceil(352 / 64)
  EXPECT_LE(s.spine_ports, 64);
  EXPECT_NEAR(s.oversubscription, 32.0 / 11.0, 1e-12);
}

TEST(LeafSpine, SameRailStaysOnTheLeafOrClimbsToOneSpine) {
  Harness h(testing::leaf_spine_cfg(8, 4, 4));
  // gpu1 (node 0, rail 1) -> gpu5 (node 1, rail 1): same group, same leaf.
  EXPECT_EQ(visits(*h.fabric, 1, 5), (std::vector<std::string>{"nic1", "leaf0_1", "nic5", "gpu5"}));
  // gpu1 -> gpu17 (node 4, rail 1): other group: leaf, spine, the destination group's rail leaf.
  const std::vector<std::string> v = visits(*h.fabric, 1, 17);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[1], "leaf0_1");
  EXPECT_TRUE(v[2].starts_with("spine"));
  EXPECT_EQ(v[3], "leaf1_1");
  EXPECT_EQ(h.fabric->hops(1, 17), 6);
}

TEST(LeafSpine, CrossRailInsideAGroupGoesThroughTheNvSwitch) {
  Harness h(testing::leaf_spine_cfg(8, 4, 4));
  // gpu0 (node 0, rail 0) -> gpu5 (node 1, rail 1): NVSwitch to the rail-1 GPU, then rail 1.
  EXPECT_EQ(visits(*h.fabric, 0, 5),
            (std::vector<std::string>{"nvswitch0", "gpu1", "nic1", "leaf0_1", "nic5", "gpu5"}));
}

TEST(LeafSpine, DestinationsSpreadOverEveryUplink) {
  // From leaf0_0, the 4 destination nodes of group 1 (rail 0) take 4 different uplinks.
  Harness h(testing::leaf_spine_cfg(8, 4, 4));
  std::set<uint32_t> uplinks;
  for (int node = 4; node < 8; ++node) uplinks.insert(h.fabric->routes().path(0, node * 4)[2]);
  EXPECT_EQ(uplinks.size(), 4u);
  // Routing is a function of the destination only: every source on the leaf agrees.
  for (int node = 4; node < 8; ++node) {
    EXPECT_EQ(h.fabric->routes().path(0, node * 4)[2], h.fabric->routes().path(4, node * 4)[2]);
  }
}

TEST(LeafSpine, StripedPlacementPutsConsecutiveNodesInConsecutiveGroups) {
  nlohmann::json c = testing::leaf_spine_cfg(8, 4, 4);
  c["placement"] = "striped";
  Harness h(c);
  // Node 1 (gpu4..7) sits in group 1, node 2 back in group 0 (slot 1).
  EXPECT_EQ(visits(*h.fabric, 0, 4)[1], "leaf0_0");
  EXPECT_EQ(visits(*h.fabric, 0, 4)[3], "leaf1_0");
  EXPECT_EQ(visits(*h.fabric, 0, 8), (std::vector<std::string>{"nic0", "leaf0_0", "nic8", "gpu8"}));
}

TEST(LeafSpine, RailRingsFoldOnlyWhenEveryHopLooksAlike) {
  const common::GpuRotation rot{8, 4};
  // Rail rings over the nodes: GPU 0 sends to node 1's GPU 0 (gpu4), every GPU g to g + 4.
  // Blocked: node 3 -> node 4 climbs to a spine, node 0 -> node 1 stays on its leaf.
  Harness blocked(testing::leaf_spine_cfg(8, 4, 4));
  const std::string why = blocked.fabric->fold_problem({{0, 4}}, rot);
  EXPECT_NE(why.find("hops"), std::string::npos) << why;
  // Striped: every ring step crosses from one group to the next over its own uplink and spine.
  nlohmann::json c = testing::leaf_spine_cfg(8, 4, 4);
  c["placement"] = "striped";
  Harness striped(c);
  EXPECT_EQ(striped.fabric->fold_problem({{0, 4}}, rot), "");
  // Node n also sending to node n + 3: node 6 -> node 1 takes GPU 0's uplink to node 1.
  const std::string shared = striped.fabric->fold_problem({{0, 4}, {0, 12}}, rot);
  EXPECT_NE(shared.find("shares a link with gpu0's traffic"), std::string::npos) << shared;
}

TEST(LeafSpine, FlatRingsFoldOntoNodeZeroWhenEveryNodeLooksAlike) {
  // A flat ring: node 0's GPUs send to their successors, GPU 3 over the NIC to node 1's GPU 4;
  // under whole-node rotations every node's GPUs send alike. Blocked: node 3 -> node 4 leaves
  // its leaf group, node 0 -> node 1 crosses rails in its group. Striped: every node boundary
  // crosses from one group to the next alike.
  const common::GpuRotation whole{8, 4, true};
  const std::vector<std::pair<int, int>> ring{{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  Harness blocked(testing::leaf_spine_cfg(8, 4, 4));
  const std::string why = blocked.fabric->fold_problem(ring, whole);
  nlohmann::json c = testing::leaf_spine_cfg(8, 4, 4);
  c["placement"] = "striped";
  Harness striped(c);
  const std::string why_striped = striped.fabric->fold_problem(ring, whole);
  EXPECT_NE(why.find("gpu15 -> gpu16"), std::string::npos) << why;
  EXPECT_EQ(why_striped, "");
  // Only representatives send in a folded run.
  EXPECT_NE(striped.fabric->fold_problem({{4, 5}}, whole).find("not sent by a representative"),
            std::string::npos);
}

TEST(LeafSpine, OtherFabricsFoldWithoutLookingAtRoutes) {
  Harness two(testing::two_level_cfg(2, 4));
  EXPECT_EQ(two.fabric->fold_problem({}, common::GpuRotation{2, 4}), "");
}

TEST(LeafSpine, TrafficCrossesTheSpinesIntact) {
  Harness h(testing::leaf_spine_cfg(8, 4, 4));
  for (int g = 0; g < 32; ++g) h.send(g, (g + 13) % 32, 300'000, static_cast<uint64_t>(g));
  h.run();
  EXPECT_EQ(h.rx.log.size(), 32u);
  EXPECT_EQ(h.fabric->messages_in_flight(), 0u);
}

TEST(LeafSpine, OneGroupNeedsNoSpines) {
  Harness h(testing::leaf_spine_cfg(4, 2, 4));
  EXPECT_EQ(count_kind(h.fabric->topology(), NodeKind::kIbSwitch), 2);
  EXPECT_EQ(h.fabric->hops(0, 6), 4);
}

TEST(LeafSpine, ALeafWithoutEnoughPortsIsAConfigError) {
  // 6 nodes down + 6 up > 8 ports.
  EXPECT_THROW(Harness(testing::leaf_spine_cfg(12, 2, 6)), ConfigError);
  // The same nodes fit at 3:1 (6 down + 2 up).
  EXPECT_NO_THROW(Harness(testing::leaf_spine_cfg(12, 2, 6, 3.0)));
}

TEST(LeafSpine, TwoLevelPastTheRadixPointsAtLeafSpine) {
  nlohmann::json c = testing::two_level_cfg(128, 8);
  try {
    Harness h(c);
    FAIL() << "128 nodes on 64-port rail switches must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("leaf_spine"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::fabric
