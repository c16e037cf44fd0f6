// The ring channel planner (channel_plan.h) on the direct-connect systems of tests/fixtures, over
// the links their fabric builders wire (Fabric::path_links): dgx1-v100 (cube_mesh), torus-4x4
// (torus_2d) and pcie-nvlink-pairs-8 (nvlink_pairs). Every ring visits every GPU once, no directed
// link carries more than its rate, the cube-mesh and the torus get several rings, and the bridged
// pairs get one ring each way.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "models/collectives/channel_plan.h"
#include "models/fabric/fabric.h"
#include "models/system/system.h"
#include "sim/simulator.h"
#include "tests/support/fixtures.h"

namespace t3sim::collectives {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

struct Planned {
  ChannelPlan plan;
  int gpus = 0;
};

// Plans the system's rings as a collective over all its GPUs does, and checks the loads.
Planned plan_on(const std::string& system) {
  const ConfigDoc doc = system::load_system_config(system, kConfigs);
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc), 0, system::BuildFor::kCheck);
  const RankPath path = [&](int a, int b) { return sys.fabric().path_links(a, b); };
  Planned out;
  out.gpus = sys.num_gpus();
  out.plan = plan_rings(out.gpus, path, sys.collectives().channels);
  EXPECT_TRUE(out.plan.searched) << system;
  std::map<uint32_t, Bandwidth> rate;
  for (int a = 0; a < out.gpus; ++a) {
    for (int b = 0; b < out.gpus; ++b) {
      if (a == b) continue;
      for (const common::PathLink& l : path(a, b)) rate[l.id] = l.bandwidth;
    }
  }
  for (const RingOrder& r : out.plan.rings) {
    EXPECT_EQ(r.size(), static_cast<size_t>(out.gpus)) << system;
    EXPECT_EQ(r.front(), 0) << system;
    RingOrder sorted = r;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < out.gpus; ++i) EXPECT_EQ(sorted[static_cast<size_t>(i)], i) << system;
  }
  for (const auto& [id, load] : ring_link_load(out.plan, path)) {
    EXPECT_TRUE(rate.contains(id)) << system << " link " << id;
    if (rate.contains(id)) {
      EXPECT_LE(load, rate.at(id)) << system << " link " << id;
    }
  }
  return out;
}

TEST(PlanSystems, Dgx1CubeMeshGetsSeveralRings) {
  const Planned p = plan_on("dgx1-v100");
  EXPECT_EQ(p.gpus, 8);
  EXPECT_GE(p.plan.rings.size(), 2u);
}

TEST(PlanSystems, Torus4x4GetsSeveralRings) {
  const Planned p = plan_on("torus-4x4");
  EXPECT_EQ(p.gpus, 16);
  EXPECT_GE(p.plan.rings.size(), 2u);
  EXPECT_EQ(p.plan.speed, Bandwidth::gbps(75));  // T3's link rate: no ring shares a link
}

TEST(PlanSystems, NvlinkPairsGetARingEachWay) {
  const Planned p = plan_on("pcie-nvlink-pairs-8");
  bool fwd = false, bwd = false;
  for (const RingOrder& r : p.plan.rings) {
    fwd = fwd || ChannelPlan::direction(r) > 0;
    bwd = bwd || ChannelPlan::direction(r) < 0;
  }
  EXPECT_TRUE(fwd);
  EXPECT_TRUE(bwd);
  EXPECT_EQ(p.plan.speed, Bandwidth::gbps(64));  // each GPU's PCIe port bounds every ring
}

}  // namespace
}  // namespace t3sim::collectives
