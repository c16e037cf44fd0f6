// Folded runs (models/common/mirror.h): simulating GPU 0 alone must reproduce the full N-GPU run
// of a rotation-symmetric sublayer - times within 5 % (the full run's GPUs differ slightly: each
// rank's chunk offsets map to different HBM channels, and the slowest rank gates a ring step; with
// rings in both directions cu-split's full run is 4.1 % slower than its fold),
// communication traffic and link bytes exactly, GEMM input traffic within the L2 difference of
// GPU 0's chunk order - and runs that are
// not symmetric (edge tiles in some RS chunks, DMA collectives) must fall back
// to the full simulation with identical results.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "small_systems.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

using common::TrafficClass;

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

using testing::ring8;
using testing::two_nodes;

SublayerSpec spec(gpu::GemmShape shape, bool fold) {
  SublayerSpec s;
  s.shape = shape;
  s.fold = fold;
  return s;
}

uint64_t dram(const SublayerResult& r, TrafficClass c) {
  return r.dram_bytes[static_cast<size_t>(c)];
}

void expect_close(double a, double b, double rel, const std::string& what) {
  EXPECT_LE(std::abs(a - b), rel * std::abs(b)) << what << ": folded " << a << " vs full " << b;
}

TEST(Fold, MatchesTheFullRunOnARing) {
  const gpu::GemmShape mega{1024, 3072, 1536};  // Mega-GPT-2 FC-2 at TP 8, 1024 tokens
  for (const Mode m : {Mode::kSequential, Mode::kT3, Mode::kT3Mca, Mode::kCuSplit}) {
    const SublayerResult f = run_sublayer(ring8(), spec(mega, true), m);
    const SublayerResult full = run_sublayer(ring8(), spec(mega, false), m);
    const std::string name(to_string(m));
    EXPECT_TRUE(f.folded) << name;
    EXPECT_FALSE(full.folded) << name;
    EXPECT_LT(f.events * 4, full.events) << name;
    expect_close(f.total_us, full.total_us, 0.05, name + " total");
    // cu-split's collective takes L2 capacity from the GEMM beside it, and each rank's chunks map
    // to other channels and lines (docs/fidelity.md "Folded runs"): within 3 %.
    expect_close(f.gemm_us, full.gemm_us, 0.03, name + " gemm");
    EXPECT_EQ(f.link_bytes, full.link_bytes) << name;
    for (const TrafficClass c :
         {TrafficClass::kRsRead, TrafficClass::kRsWrite, TrafficClass::kRsUpdate,
          TrafficClass::kAgRead, TrafficClass::kAgWrite, TrafficClass::kGemmUpdate,
          TrafficClass::kGemmWrite}) {
      EXPECT_EQ(dram(f, c), dram(full, c)) << name << " " << common::to_string(c);
    }
    expect_close(static_cast<double>(dram(f, TrafficClass::kGemmRead)),
                 static_cast<double>(dram(full, TrafficClass::kGemmRead)), 0.06,
                 name + " gemm_read");
    EXPECT_EQ(f.tracker_triggers, full.tracker_triggers) << name;
  }
}

TEST(Fold, PiecesFoldExceptDmaCollectives) {
  const gpu::GemmShape mega{1024, 3072, 1536};
  for (const Piece p : {Piece::kGemm, Piece::kRsCu, Piece::kAgCu, Piece::kArCu, Piece::kRsNmc}) {
    const SublayerResult f = run_piece(ring8(), spec(mega, true), p);
    const SublayerResult full = run_piece(ring8(), spec(mega, false), p);
    EXPECT_EQ(f.folded, p != Piece::kRsNmc);
    expect_close(f.total_us, full.total_us, 0.03, "piece total");
    EXPECT_EQ(f.link_bytes, full.link_bytes);
  }
}

TEST(Fold, APieceThatCannotFoldSaysWhyBeforeItsFullRun) {
  std::vector<std::string> told;
  RunOptions opts;
  opts.before_full = [&](const std::string& why) { told.push_back(why); };
  const gpu::GemmShape mega{1024, 3072, 1536};
  EXPECT_TRUE(run_piece(ring8(), spec(mega, true), Piece::kRsCu, opts).folded);
  EXPECT_TRUE(told.empty());
  EXPECT_FALSE(run_piece(ring8(), spec(mega, true), Piece::kRsNmc, opts).folded);
  ASSERT_EQ(told.size(), 1u);
  EXPECT_NE(told[0].find("DMA"), std::string::npos) << told[0];
  run_piece(ring8(), spec(mega, false), Piece::kRsNmc, opts);  // not asked to fold: nothing
  EXPECT_EQ(told.size(), 1u);
}

TEST(Fold, EdgeTilesInSomeChunksFallBackToTheFullRun) {
  // N = 4256 (T-NLG's hidden size) leaves a partial tile column in half of the RS chunks.
  const gpu::GemmShape tnlg{2048, 4256, 256};
  const SublayerResult f = run_sublayer(ring8(), spec(tnlg, true), Mode::kT3);
  const SublayerResult full = run_sublayer(ring8(), spec(tnlg, false), Mode::kT3);
  EXPECT_FALSE(f.folded);
  EXPECT_EQ(f.total_us, full.total_us);
  EXPECT_EQ(f.dram_total, full.dram_total);
  EXPECT_EQ(f.events, full.events);
}

TEST(Fold, CuAllReduceAcrossTwoNodesFoldsOntoNodeZero) {
  // The flat ring all-reduce crosses the NICs at node boundaries: node 0's 8 GPUs stand for the
  // 16 under whole-node rotations (0.06 % apart here).
  const ConfigDoc two = load_system_config("dgx-h100-2node", kConfigs);
  const SublayerResult r = run_piece(two, spec({1024, 4096, 512}, true), Piece::kArCu);
  const SublayerResult full = run_piece(two, spec({1024, 4096, 512}, false), Piece::kArCu);
  EXPECT_TRUE(r.folded);
  EXPECT_LT(r.events * 3 / 2, full.events);
  expect_close(r.total_us, full.total_us, 0.01, "all-reduce");
  EXPECT_EQ(r.link_bytes, full.link_bytes);
}

TEST(Fold, FusedReduceScatterAcrossNodesFoldsOntoNodeZero) {
  // The flat ring crosses the NICs at node boundaries, so only whole-node rotations map it onto
  // itself: node 0's four GPUs are simulated, and what they send to node 1 lands back on them.
  const gpu::GemmShape mega{1024, 3072, 1536};
  for (const Mode m : {Mode::kT3, Mode::kT3Mca, Mode::kT3Direct}) {
    SublayerSpec s = spec(mega, true);
    s.include_ag = false;
    const SublayerResult f = run_sublayer(two_nodes(), s, m);
    s.fold = false;
    const SublayerResult full = run_sublayer(two_nodes(), s, m);
    const std::string name(to_string(m));
    EXPECT_TRUE(f.folded) << name;
    EXPECT_LT(f.events * 3 / 2, full.events) << name;
    expect_close(f.total_us, full.total_us, 0.05, name + " total");
    expect_close(f.rs_exposed_us, full.rs_exposed_us, 0.15, name + " exposed RS");
    EXPECT_EQ(f.link_bytes, full.link_bytes) << name;
    for (const TrafficClass c :
         {TrafficClass::kRsRead, TrafficClass::kRsUpdate, TrafficClass::kGemmUpdate}) {
      EXPECT_EQ(dram(f, c), dram(full, c)) << name << " " << common::to_string(c);
    }
    EXPECT_EQ(f.tracker_triggers, full.tracker_triggers) << name;
  }
}

// Four nodes of four GPUs on a leaf-spine with two nodes per leaf: two leaf groups.
ConfigDoc leaf_spine(const std::string& placement) {
  ConfigDoc doc = two_nodes();
  doc.root["gpus"] = 16;
  auto& f = doc.root["fabric"];
  f["topology"] = "leaf_spine";
  f["nodes"] = 4;
  f["nodes_per_leaf"] = 2;
  f["placement"] = placement;
  f["ib_switch"]["ports"] = 8;
  return doc;
}

TEST(Fold, FusedReduceScatterOnALeafSpineFoldsWhenItsRoutesLookAlike) {
  // Striped placement: every ring step between nodes crosses from one leaf group to the other, so
  // the fused traffic's routes pass the route check and node 0 stands for the others. Blocked
  // placement: the ring stays on a leaf inside a group and climbs to a spine between groups.
  const gpu::GemmShape shape{1024, 4096, 512};
  SublayerSpec s = spec(shape, true);
  s.include_ag = false;
  const SublayerResult f = run_sublayer(leaf_spine("striped"), s, Mode::kT3);
  const SublayerResult blocked = run_sublayer(leaf_spine("blocked"), s, Mode::kT3);
  s.fold = false;
  const SublayerResult full = run_sublayer(leaf_spine("striped"), s, Mode::kT3);
  EXPECT_TRUE(f.folded);
  EXPECT_EQ(f.simulated_gpus, 4);
  expect_close(f.total_us, full.total_us, 0.04, "striped leaf-spine t3");
  EXPECT_EQ(f.link_bytes, full.link_bytes);
  EXPECT_FALSE(blocked.folded);
  EXPECT_EQ(blocked.simulated_gpus, 16);
}

TEST(Fold, SwitchFabricFolds) {
  const ConfigDoc dgx = load_system_config("dgx-a100", kConfigs);
  const gpu::GemmShape s{1024, 4096, 512};
  const SublayerResult f = run_sublayer(dgx, spec(s, true), Mode::kSequential);
  const SublayerResult full = run_sublayer(dgx, spec(s, false), Mode::kSequential);
  EXPECT_TRUE(f.folded);
  expect_close(f.total_us, full.total_us, 0.03, "dgx-a100 sequential");
  EXPECT_EQ(f.link_bytes, full.link_bytes);
}

}  // namespace
}  // namespace t3sim::system
