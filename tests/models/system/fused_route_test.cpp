// How the fused reduce-scatter travels (models/system/fused_rings.h) on the frozen systems of
// tests/fixtures, and what that does to a sublayer: the paper's ring keeps one ring; a switch
// keeps one ring; the planner's rings cross only real links (a bidirectional ring: both
// directions; MI300X's mesh: seven rings over all 56 directed links); planned picks direct UPDATEs
// on a full mesh, so t3 runs exactly t3-direct there. A multi-ring t3 moves the same bytes as one
// ring (every partial sum still crosses one link per hop) and still completes every tile with all
// contributions (the run checks each owned tile's count).
#include "models/system/fused_rings.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/system/sublayer.h"
#include "sim/simulator.h"
#include "small_systems.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

FusedRoute route_of(const ConfigDoc& doc, bool ring_mode = true) {
  Simulator sim(1);
  System sys(sim, ConfigNode::root(doc));
  return fused_route(sys, ring_mode);
}

ConfigDoc system_doc(const std::string& name, std::vector<std::string> sets = {}) {
  return load_system_config(name, kConfigs, std::move(sets));
}

// The directed (sender, receiver) pairs of t3's rings: position i sends to position i-1.
std::set<std::pair<int, int>> ring_hops(const FusedRoute& r) {
  std::set<std::pair<int, int>> hops;
  for (const auto& ring : r.rings) {
    for (size_t i = 0; i < ring.size(); ++i) {
      EXPECT_TRUE(hops.emplace(ring[i], ring[(i + ring.size() - 1) % ring.size()]).second)
          << "two rings share the hop from GPU " << ring[i];
    }
  }
  return hops;
}

TEST(FusedRoute, PaperRingAndSwitchKeepOneRing) {
  const FusedRoute paper = route_of(testing::ring8());  // rs_direction "backward"
  EXPECT_FALSE(paper.direct);
  ASSERT_EQ(paper.rings.size(), 1u);
  EXPECT_EQ(paper.rings[0], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  const FusedRoute sw = route_of(system_doc("dgx-h100"));  // planned: one ring on a switch
  EXPECT_FALSE(sw.direct);
  ASSERT_EQ(sw.rings.size(), 1u);
  EXPECT_EQ(sw.rings[0], paper.rings[0]);
  ConfigDoc two = testing::two_nodes();  // across nodes the planner keeps the order
  apply_override(two, "t3.rs_direction=\"rings\"");
  EXPECT_EQ(route_of(two).rings.size(), 1u);
}

TEST(FusedRoute, PlannedRingsCrossOnlyLinks) {
  ConfigDoc ring = testing::ring8();
  apply_override(ring, "t3.rs_direction=\"rings\"");
  const FusedRoute both = route_of(ring);
  ASSERT_EQ(both.rings.size(), 2u);  // one ring each way round the bidirectional ring
  for (const auto& [from, to] : ring_hops(both)) {
    EXPECT_TRUE((to - from + 8) % 8 == 1 || (from - to + 8) % 8 == 1) << from << "->" << to;
  }
  const FusedRoute mesh = route_of(system_doc("mi300x-8", {"t3.rs_direction=\"rings\""}));
  ASSERT_EQ(mesh.rings.size(), 7u);
  EXPECT_EQ(ring_hops(mesh).size(), 56u);  // every directed link of the mesh, once
  ASSERT_EQ(mesh.weights.size(), 7u);
  for (const auto& r : mesh.rings) EXPECT_EQ(r.front(), 0);
}

TEST(FusedRoute, FullMeshPlansDirectUpdates) {
  EXPECT_TRUE(route_of(system_doc("mi300x-8")).direct);
  EXPECT_FALSE(route_of(system_doc("mi300x-8"), false).direct);  // t3-direct decides itself
  EXPECT_FALSE(route_of(system_doc("dgx1-v100")).direct);        // a cube mesh is not full
}

SublayerSpec small_fc() {
  SublayerSpec s;
  s.shape = {1024, 3072, 1536};
  s.fold = false;
  return s;
}

TEST(FusedRoute, T3OnAFullMeshIsT3Direct) {
  const ConfigDoc mesh = system_doc("mi300x-8");
  const SublayerResult t3 = run_sublayer(mesh, small_fc(), Mode::kT3);
  const SublayerResult direct = run_sublayer(mesh, small_fc(), Mode::kT3Direct);
  EXPECT_EQ(t3.total_us, direct.total_us);
  EXPECT_EQ(t3.dram_bytes, direct.dram_bytes);
  EXPECT_EQ(t3.link_bytes, direct.link_bytes);
}

TEST(FusedRoute, MultiRingMovesWhatOneRingMovesOverMoreLinks) {
  const ConfigDoc one = system_doc("mi300x-8", {"t3.rs_direction=\"backward\""});
  const ConfigDoc seven = system_doc("mi300x-8", {"t3.rs_direction=\"rings\""});
  const SublayerResult a = run_sublayer(one, small_fc(), Mode::kT3);
  const SublayerResult b = run_sublayer(seven, small_fc(), Mode::kT3);
  EXPECT_EQ(b.link_bytes, a.link_bytes);
  EXPECT_EQ(b.dram_bytes, a.dram_bytes);
  EXPECT_EQ(b.tracker_triggers, a.tracker_triggers);
  EXPECT_GT(b.tracker_triggers, 0u);
  // Seven links instead of one: the reduce-scatter can only end sooner.
  EXPECT_LT(b.rs_us, a.rs_us);
}

}  // namespace
}  // namespace t3sim::system
