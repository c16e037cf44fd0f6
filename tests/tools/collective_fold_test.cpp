// Folded collective probes (studies/probes.h, models/common/mirror.h): on one DGX H100 the
// ring and NVLS all-reduce fold to GPU 0 alone and agree with the full 8-GPU run (ring within
// 1 %, NVLS within 5 %: the full run's GPUs drift a little apart while every copy of a folded
// piece shares GPU 0's links); the hierarchical all-reduce on two DGX H100 nodes folds by node
// x local rotation (within 2 %; on 8 nodes too, where the rail ring groups its loops), a flat ring
// across nodes onto node 0's GPUs by whole-node rotations (also on a striped leaf-spine), with far
// fewer events; runs that cannot fold (a multi-node Tree, a group that is not every GPU) fall back
// to the full run with its exact result.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "models/collectives/fold.h"
#include "studies/inputs.h"
#include "studies/probes.h"
#include "tests/support/fixtures.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = T3SIM_SOURCE_DIR;
studies::Env env() { return studies::Env{t3sim::testing::fixtures_dir(), kSource}; }
// Flat ring across 2 and 4 nodes, 16 MiB: folded and full runs differ by at most 0.3 %.
constexpr double kFlatRingTolerance = 0.01;

collectives::CollectiveSpec all_reduce(uint64_t bytes, collectives::Algo algo, int gpus,
                                       bool fold) {
  collectives::CollectiveSpec s;
  s.kind = collectives::Kind::kAllReduce;
  s.bytes = bytes;
  s.algo = algo;
  s.fold = fold;
  for (int g = 0; g < gpus; ++g) s.group.push_back(g);
  return s;
}

// `set`: config overrides of the system; the folded run takes fewer than 1 / `fewer` of the
// full run's events.
void expect_folds_close(const char* system, collectives::Algo algo, uint64_t bytes, double rel,
                        int gpus = 8, const std::vector<std::string>& set = {},
                        uint64_t fewer = 4) {
  const ConfigDoc sys = studies::load_system(env(), system, set);
  const auto f = studies::probe_collective(sys, all_reduce(bytes, algo, gpus, true));
  const auto full = studies::probe_collective(sys, all_reduce(bytes, algo, gpus, false));
  const std::string what = std::string(system) + " " + full.how + " " + std::to_string(bytes);
  EXPECT_TRUE(f.folded) << what;
  EXPECT_FALSE(full.folded) << what;
  EXPECT_LT(f.events * fewer, full.events) << what;
  EXPECT_LE(std::abs(f.time_us - full.time_us), rel * full.time_us)
      << what << ": folded " << f.time_us << " us, full " << full.time_us << " us";
}

TEST(CollectiveFold, RingMatchesTheFullRun) {
  expect_folds_close("dgx-h100", collectives::Algo::kRing, uint64_t{64} << 20, 0.01);
  // 24 channels: a size that gives every rank and channel whole 4 KiB pieces
  expect_folds_close("dgx-a100", collectives::Algo::kRing, uint64_t{96} << 20, 0.01);
}

TEST(CollectiveFold, NvlsMatchesTheFullRun) {
  for (const uint64_t mib : {4, 64}) {
    expect_folds_close("dgx-h100", collectives::Algo::kNvls, mib << 20, 0.05);
  }
}

TEST(CollectiveFold, HierarchicalFoldsByNodeAndLocalRotationOnTwoNodes) {
  // 2 x DGX H100: every GPU's intra-node ring and rail ring look alike under node x local
  // rotation, so GPU 0 stands for all 16 (events: 1/16 of the memory path).
  expect_folds_close("dgx-h100-2node", collectives::Algo::kHierarchical, uint64_t{16} << 20, 0.02,
                     16);
}

TEST(CollectiveFold, HierarchicalFoldsOnAStripedLeafSpine) {
  // Two DGX H100 nodes on different leaves: every rail ring step climbs to the spine, for every
  // GPU alike, so GPU 0 stands for all 16.
  expect_folds_close(
      "dgx-h100-128node", collectives::Algo::kHierarchical, uint64_t{16} << 20, 0.03, 16,
      {"fabric.nodes=2", "gpus=16", "fabric.nodes_per_leaf=1", "fabric.placement=striped"});
}

TEST(CollectiveFold, HierarchicalWithGroupedInterNodeLoopsMatchesTheFullRun) {
  // 8 DGX H100 nodes, 16 MiB: each channel's rail ring takes its two loops together (4 KiB
  // pieces per loop would be too short a step), and GPU 0 still stands for all 64.
  expect_folds_close("dgx-h100-128node", collectives::Algo::kHierarchical, uint64_t{16} << 20, 0.02,
                     64, {"fabric.nodes=8", "gpus=64", "fabric.placement=striped"}, 16);
}

TEST(CollectiveFold, FlatRingFoldsOntoNodeZeroAcrossNodes) {
  // A flat ring across 2 and 4 DGX H100 nodes: GPU 7 of every node sends over the NIC, so only
  // whole-node rotations map the ring onto itself, and node 0's 8 GPUs stand for the others.
  for (const int nodes : {2, 4}) {
    const int gpus = nodes * 8;
    const ConfigDoc sys = studies::load_system(
        env(), "dgx-h100-2node",
        {"fabric.nodes=" + std::to_string(nodes), "gpus=" + std::to_string(gpus)});
    for (const auto kind : {collectives::Kind::kAllReduce, collectives::Kind::kReduceScatter,
                            collectives::Kind::kAllGather}) {
      collectives::CollectiveSpec spec =
          all_reduce(uint64_t{16} << 20, collectives::Algo::kRing, gpus, true);
      spec.kind = kind;
      const auto f = studies::probe_collective(sys, spec);
      spec.fold = false;
      const auto full = studies::probe_collective(sys, spec);
      const std::string what = std::to_string(nodes) + " nodes, " + full.how;
      EXPECT_TRUE(f.folded) << what << ": " << f.how;
      EXPECT_EQ(f.simulated, 8) << what;
      EXPECT_LT(f.events * nodes * 3 / 4, full.events) << what;
      EXPECT_LE(std::abs(f.time_us - full.time_us), kFlatRingTolerance * full.time_us)
          << what << ": folded " << f.time_us << " us, full " << full.time_us << " us";
    }
  }
}

TEST(CollectiveFold, FlatRingOnALeafSpineFoldsWhenEveryNodeBoundaryLooksAlike) {
  // Four nodes, two per leaf group. Striped: every node boundary of the ring climbs from one
  // group to the next alike, so node 0's GPUs stand for all 32. Blocked: node 0 -> node 1 stays
  // in its group, node 1 -> node 2 does not: the full run stands.
  for (const char* placement : {"striped", "blocked"}) {
    const ConfigDoc sys =
        studies::load_system(env(), "dgx-h100-128node",
                             {"fabric.nodes=4", "gpus=32", "fabric.nodes_per_leaf=2",
                              std::string("fabric.placement=") + placement});
    const auto f = studies::probe_collective(
        sys, all_reduce(uint64_t{4} << 20, collectives::Algo::kRing, 32, true));
    const auto full = studies::probe_collective(
        sys, all_reduce(uint64_t{4} << 20, collectives::Algo::kRing, 32, false));
    const bool striped = std::string(placement) == "striped";
    EXPECT_EQ(f.folded, striped) << placement << ": " << f.how;
    EXPECT_LE(std::abs(f.time_us - full.time_us), kFlatRingTolerance * full.time_us)
        << placement << ": folded " << f.time_us << " us, full " << full.time_us << " us";
    if (!striped) {
      // The refusal names a node boundary that does not look like its rotation (a route that
      // differs, or a hop shared by another number of pairs once rails rotate the channels).
      EXPECT_NE(f.how.find("cannot fold: gpu"), std::string::npos) << f.how;
    }
  }
}

TEST(CollectiveFold, NvlsOffsetsNameEveryRanksShare) {
  collectives::Geometry g;
  g.kind = collectives::Kind::kAllReduce;
  g.bytes = uint64_t{16} << 20;
  g.channels = 2;
  for (int i = 0; i < 4; ++i) g.ranks.push_back(i);
  g.chunk = 256 << 10;
  const collectives::Schedule s = collectives::make_nvls(g);
  const collectives::Schedule f = collectives::fold_schedule(s, common::GpuRotation{1, 4});
  const std::vector<uint64_t> off = collectives::fold_offsets(s, common::GpuRotation{1, 4});
  ASSERT_EQ(off.size(), f.ops.size() * 4);
  for (size_t k = 0; k < f.ops.size(); ++k) {
    EXPECT_EQ(off[k * 4], f.ops[k].offset);                                // GPU 0's own op
    for (size_t r = 1; r < 4; ++r) EXPECT_NE(off[k * 4 + r], off[k * 4]);  // every rank its share
  }
}

TEST(CollectiveFold, AsymmetricRunsFallBackToTheFullRun) {
  const ConfigDoc two = studies::load_system(env(), "dgx-h100-2node", {});
  std::vector<std::string> told;  // the reason is given before the full run starts
  const auto f = studies::probe_collective(
      two, all_reduce(uint64_t{4} << 20, collectives::Algo::kTree, 16, true), nullptr,
      [&](const std::string& why) { told.push_back(why); });
  ASSERT_EQ(told.size(), 1u);
  EXPECT_NE(told[0].find("Tree"), std::string::npos) << told[0];
  const auto full = studies::probe_collective(
      two, all_reduce(uint64_t{4} << 20, collectives::Algo::kTree, 16, false), nullptr,
      [&](const std::string& why) { told.push_back(why); });
  EXPECT_EQ(told.size(), 1u);  // a run not asked to fold has nothing to explain
  EXPECT_FALSE(f.folded);      // the tree gives each node its own place: no rotation maps it
  EXPECT_EQ(f.time_us, full.time_us);
  EXPECT_EQ(f.simulated, 16);
  const ConfigDoc one = studies::load_system(env(), "dgx-h100", {});
  const auto part = studies::probe_collective(
      one, all_reduce(uint64_t{4} << 20, collectives::Algo::kRing, 4, true));
  EXPECT_FALSE(part.folded);  // the group is not every GPU
}

TEST(CollectiveFold, TheOptionsSuggestedForARunThatCannotFoldMakeItFold) {
  // Four nodes on a blocked leaf-spine, two per leaf group, NCCL's Tree: the full run stands,
  // and the options fold_options() names make the same all-reduce fold.
  const std::vector<std::string> shape = {"fabric.nodes=4", "gpus=32", "fabric.nodes_per_leaf=2"};
  const ConfigDoc blocked = studies::load_system(env(), "dgx-h100-128node", shape);
  const auto tree = all_reduce(uint64_t{4} << 20, collectives::Algo::kTree, 32, true);
  EXPECT_FALSE(studies::probe_collective(blocked, tree).folded);
  const std::string fix = studies::fold_options(blocked, false);
  ASSERT_EQ(fix, "--algo hierarchical --set fabric.placement=striped");
  std::vector<std::string> sets = shape;
  sets.push_back(fix.substr(fix.rfind(' ') + 1));
  const auto f = studies::probe_collective(
      studies::load_system(env(), "dgx-h100-128node", sets),
      all_reduce(uint64_t{4} << 20, collectives::Algo::kHierarchical, 32, true));
  EXPECT_TRUE(f.folded) << f.how;
  // A run that is hierarchical already hears of the placement alone; a striped leaf-spine, a
  // two-level fabric with the hierarchical algorithm and one node's switch have nothing to add.
  EXPECT_EQ(studies::fold_options(blocked, true), "--set fabric.placement=striped");
  sets.back() = "fabric.placement=striped";
  const ConfigDoc striped = studies::load_system(env(), "dgx-h100-128node", sets);
  EXPECT_EQ(studies::fold_options(striped, false), "--algo hierarchical");
  EXPECT_EQ(studies::fold_options(striped, true), "");
  EXPECT_EQ(studies::fold_options(studies::load_system(env(), "dgx-h100-2node", {}), true), "");
  EXPECT_EQ(studies::fold_options(studies::load_system(env(), "dgx-h100", {}), false), "");
}

}  // namespace
}  // namespace t3sim
