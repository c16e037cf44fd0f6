// The library entry points below the CLI: the probe tables (HBM patterns, nccl-tests busbw
// factor), one GEMM probe on a shipped system (tflops agrees with its own time, waves with the
// tile count), and run_validation's selection and result rows on the quick MAMF set.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/errors.h"
#include "tools/studies/inputs.h"
#include "tools/studies/probes.h"
#include "validation/lib/validate.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = T3SIM_SOURCE_DIR;
studies::Env env() { return studies::Env{kSource / "configs", kSource}; }

TEST(Probes, HbmPatternTable) {
  using common::MemCmd;
  EXPECT_EQ(studies::hbm_pattern_commands("copy"),
            (std::vector<MemCmd>{MemCmd::kRead, MemCmd::kWrite}));
  EXPECT_EQ(studies::hbm_pattern_commands("update"), (std::vector<MemCmd>{MemCmd::kUpdate}));
  EXPECT_EQ(studies::hbm_pattern_commands("rmw")->size(), 3u);
  EXPECT_FALSE(studies::hbm_pattern_commands("scan").has_value());
}

TEST(Probes, BusBandwidthFactor) {
  EXPECT_DOUBLE_EQ(studies::busbw_factor(collectives::Kind::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(studies::busbw_factor(collectives::Kind::kReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(studies::busbw_factor(collectives::Kind::kAllGather, 2), 0.5);
}

TEST(Probes, GemmTflopsMatchesItsTime) {
  const ConfigDoc sys = studies::load_system(env(), "t3-ring-8", {});
  const gpu::GemmShape shape{2048, 1024, 512};
  const studies::GemmProbe p = studies::probe_gemm(sys, shape);
  ASSERT_GT(p.time_us, 0.0);
  EXPECT_DOUBLE_EQ(p.tflops, 2.0 * 2048 * 1024 * 512 / (p.time_us * 1e6));
  EXPECT_GE(p.waves, 1u);
  EXPECT_GT(p.dram_bytes, 0u);
}

TEST(RunValidation, UnknownSetNamesTheSets) {
  try {
    validation::run_validation(env(), validation::ValidateRequest{"no-such-set", 1});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gemm-mamf"), std::string::npos) << e.what();
  }
}

TEST(RunValidation, OneSetGivesRowsAndAVerdict) {
  const validation::ValidateResult r =
      validation::run_validation(env(), validation::ValidateRequest{"gemm-mamf", 2});
  ASSERT_EQ(r.sets.size(), 1u);
  const validation::SetRun& s = r.sets[0];
  EXPECT_TRUE(s.status.empty()) << s.status << " " << s.error;
  EXPECT_EQ(s.errors.size(), s.measured.size());
  EXPECT_EQ(s.simulated.size(), s.measured.size());
  ASSERT_FALSE(s.errors.empty());
  for (size_t i = 0; i < s.errors.size(); ++i) {
    EXPECT_DOUBLE_EQ(s.errors[i], validation::pct_error(s.simulated[i], s.measured[i]));
  }
  const std::string verdict = validation::result_of(s, r.tolerances);
  EXPECT_TRUE(verdict == "PASS" || verdict == "FAIL") << verdict;
  const auto j = validation::validation_json(r);
  ASSERT_EQ(j["experiments"].size(), 1u);
  EXPECT_EQ(j["experiments"][0]["rows"].size(), s.errors.size());
  EXPECT_EQ(j["experiments"][0]["result"], verdict);
}

}  // namespace
}  // namespace t3sim
