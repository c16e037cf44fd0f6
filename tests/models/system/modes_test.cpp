// Execution modes (models/system/mode.h): names parse and round-trip, every mode runs on a small
// sublayer, and the modes' input checks (cu-split CUs, decomposed divisibility, T3 chunking) are
// ConfigErrors; T3 without near-bank ALUs still completes.
#include "models/system/mode.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "models/system/scenario.h"
#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "sim/errors.h"
#include "small_systems.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

using testing::ring8;

SublayerSpec small() {
  SublayerSpec s;
  s.shape = {1024, 3072, 1536};
  return s;
}

TEST(Modes, EveryNameParsesAndRoundTrips) {
  const auto modes = all_modes();
  const auto names = mode_names();
  ASSERT_EQ(names.size(), modes.size());
  std::set<std::string> unique;
  for (size_t i = 0; i < modes.size(); ++i) {
    EXPECT_EQ(to_string(modes[i]), names[i]);
    const auto back = parse_mode(names[i]);
    ASSERT_TRUE(back.has_value()) << names[i];
    EXPECT_EQ(*back, modes[i]);
    unique.insert(std::string(names[i]));
  }
  EXPECT_EQ(unique.size(), modes.size());
  for (const char* n : {"sequential", "ideal", "ideal-nmc", "t3", "t3-mca", "cu-split",
                        "decomposed", "t3-direct", "t3-nvls", "sequential-nmc"}) {
    EXPECT_TRUE(parse_mode(n).has_value()) << n;
  }
  for (const char* bad : {"", "T3", "t3_mca", "t3-", "ideal nmc", "sequential "}) {
    EXPECT_FALSE(parse_mode(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Modes, NamedHandlesNameTheirRows) {
  // The handles code special-cases (mode.h) are positions in the table: a row moved or inserted
  // before them would silently rename them.
  const std::pair<Mode, std::string_view> named[] = {
      {Mode::kSequential, "sequential"}, {Mode::kIdeal, "ideal"},
      {Mode::kIdealNmc, "ideal-nmc"},    {Mode::kT3, "t3"},
      {Mode::kT3Mca, "t3-mca"},          {Mode::kCuSplit, "cu-split"},
      {Mode::kDecomposed, "decomposed"}, {Mode::kT3Direct, "t3-direct"},
      {Mode::kT3Nvls, "t3-nvls"}};
  for (const auto& [m, name] : named) {
    EXPECT_EQ(mode_spec(m).name, name);
    EXPECT_EQ(parse_mode(name), m);
  }
  EXPECT_THROW(mode_spec(Mode{static_cast<uint8_t>(mode_table().size())}), ModelError);
  EXPECT_EQ(to_string(Mode{static_cast<uint8_t>(mode_table().size())}), "?");
}

TEST(Modes, TableRowsAreConsistent) {
  for (const ModeSpec& row : mode_table()) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(&mode_spec(row.mode), &row);
    EXPECT_FALSE(row.description.empty());
    ASSERT_NE(row.run, nullptr);
    // A composed mode needs its composer; a fused RS is always one simulation.
    EXPECT_TRUE(row.simulated || row.compose != nullptr);
    EXPECT_TRUE(row.fused_rs == RsFusion::kNone || row.simulated);
    EXPECT_TRUE(row.policy.empty() || row.fused_rs != RsFusion::kNone);
  }
  EXPECT_EQ(mode_spec(Mode::kT3Mca).policy, "mca");
  EXPECT_EQ(mode_spec(Mode::kT3Direct).fused_rs, RsFusion::kDirect);
  EXPECT_EQ(mode_spec(Mode::kT3Nvls).fused_rs, RsFusion::kNvls);
}

TEST(Modes, FoldingIsKnownBeforeTheRun) {
  EXPECT_TRUE(can_fold(ring8(), mode_spec(Mode::kT3)));
  EXPECT_FALSE(can_fold(ring8(), mode_spec(Mode::kIdeal)));  // composed: each piece decides
  EXPECT_TRUE(can_fold(ring8(), Piece::kRsCu));
  EXPECT_FALSE(can_fold(ring8(), Piece::kRsNmc));  // DMA engines
  const ConfigDoc two = testing::two_nodes();
  EXPECT_TRUE(can_fold(two, mode_spec(Mode::kT3)));  // node 0's GPUs stand for node 1's
  EXPECT_TRUE(can_fold(two, Piece::kRsCu));
  EXPECT_FALSE(can_fold(two, Piece::kRsNmc));
}

TEST(Modes, FusedRsRunsEitherWayRoundTheRing) {
  SublayerSpec s = small();
  s.fold = false;
  const SublayerResult back = run_sublayer(ring8(), s, Mode::kT3);
  ConfigDoc fwd_doc = ring8();
  apply_override(fwd_doc, "t3.rs_direction=\"forward\"");
  const SublayerResult fwd = run_sublayer(fwd_doc, s, Mode::kT3);
  EXPECT_EQ(fwd.tracker_triggers, back.tracker_triggers);
  EXPECT_EQ(fwd.dram_total, back.dram_total);
  EXPECT_NEAR(fwd.total_us, back.total_us, 0.02 * back.total_us);  // mirror image on a 2-way ring
  // On a one-way ring (g -> g-1 only) the forward RS takes n-1 hops per step.
  apply_override(fwd_doc, "fabric.bidirectional=false");
  ConfigDoc one_way = ring8();
  apply_override(one_way, "fabric.bidirectional=false");
  EXPECT_GT(run_sublayer(fwd_doc, s, Mode::kT3).link_bytes,
            run_sublayer(one_way, s, Mode::kT3).link_bytes);
}

TEST(Modes, EveryModeRunsOnASmallSublayer) {
  // t3-nvls needs a switch that reduces (NVLink SHARP): the frozen dgx-h100.
  const ConfigDoc h100 = load_system_config("dgx-h100", kConfigs);
  for (Mode m : all_modes()) {
    SCOPED_TRACE(std::string(to_string(m)));
    SublayerResult r;
    ASSERT_NO_THROW(r = run_sublayer(m == Mode::kT3Nvls ? h100 : ring8(), small(), m));
    EXPECT_EQ(r.mode, m);
    EXPECT_GT(r.total_us, 0.0);
    EXPECT_GT(r.gemm_us, 0.0);
    EXPECT_GE(r.total_us, r.gemm_us - 1e-9);
    EXPECT_GT(r.events, 0u);
  }
}

TEST(Modes, CuSplitNeedsFewerArCusThanTheGpuHas) {
  SublayerSpec s = small();
  for (uint32_t cus : {80u, 81u, 1000u, 0u}) {
    s.ar_cus = cus;
    EXPECT_THROW(run_sublayer(ring8(), s, Mode::kCuSplit), ConfigError) << cus;
  }
  s.ar_cus = 16;
  EXPECT_NO_THROW(run_sublayer(ring8(), s, Mode::kCuSplit));
  s.ar_cus = 79;
  EXPECT_NO_THROW(run_sublayer(ring8(), s, Mode::kCuSplit));
}

TEST(Modes, DecomposedNeedsTokensDivisibleByChunksTimesGpus) {
  SublayerSpec s = small();
  s.decompose_chunks = 3;  // 1024 % 3 != 0
  EXPECT_THROW(run_sublayer(ring8(), s, Mode::kDecomposed), ConfigError);
  s.decompose_chunks = 256;  // 4 rows per chunk: not divisible by 8 GPUs
  EXPECT_THROW(run_sublayer(ring8(), s, Mode::kDecomposed), ConfigError);
  s.decompose_chunks = 0;
  EXPECT_THROW(run_sublayer(ring8(), s, Mode::kDecomposed), ConfigError);
  s.decompose_chunks = 4;
  s.shape.m = 1000;  // 250 rows per chunk: not divisible by 8
  EXPECT_THROW(run_sublayer(ring8(), s, Mode::kDecomposed), ConfigError);
  s.shape.m = 1024;
  EXPECT_NO_THROW(run_sublayer(ring8(), s, Mode::kDecomposed));
}

TEST(Modes, T3WithoutNearBankAlusStillReducesButNotFaster) {
  // nmc = false: the memory controller performs each UPDATE as a read-modify-write over the bus
  // (models/system/system.cpp). Same data moves; it can only cost more HBM time.
  const ConfigDoc no_nmc = load_system_config("t3-ring-8", kConfigs, {"nmc=false"});
  for (Mode m : {Mode::kT3, Mode::kT3Direct}) {
    SCOPED_TRACE(std::string(to_string(m)));
    SublayerResult with, without;
    ASSERT_NO_THROW(without = run_sublayer(no_nmc, small(), m));
    with = run_sublayer(ring8(), small(), m);
    EXPECT_EQ(without.dram_bytes, with.dram_bytes);
    EXPECT_EQ(without.link_bytes, with.link_bytes);
    EXPECT_EQ(without.tracker_triggers, with.tracker_triggers);
    EXPECT_GE(without.total_us, with.total_us);
  }
}

TEST(Modes, T3WithUnsplittableTokensIsConfigError) {
  // A 1 x 1 tile grid cannot be cut into 8 chunks, and 100 tokens do not divide over 8 GPUs.
  SublayerSpec s = small();
  s.shape = {100, 128, 256};
  EXPECT_THROW(run_sublayer(ring8(), s, Mode::kT3), ConfigError);
}

}  // namespace
}  // namespace t3sim::system
