// The library entry points below the CLI: the probe tables (HBM patterns, nccl-tests busbw
// factor), one GEMM probe on a frozen system (tests/fixtures) (tflops agrees with its own time,
// waves with the tile count; with CUs held, the persistent grid's tail), and run_validation's
// selection and result rows on the quick MAMF set.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/errors.h"
#include "studies/inputs.h"
#include "studies/probes.h"
#include "studies/validation/validate.h"
#include "tests/support/fixtures.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = T3SIM_SOURCE_DIR;
// The frozen machines (tests/fixtures); the validation runs read the shipped configs/.
studies::Env env() { return studies::Env{t3sim::testing::fixtures_dir(), kSource}; }
studies::Env shipped() { return studies::Env{t3sim::testing::shipped_configs_dir(), kSource}; }

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

TEST(Probes, GemmMemoryBehaviourIsConsistent) {
  // A memory-bound shape: its WG time must show memory stalls; shares and rates stay in range.
  const ConfigDoc sys = studies::load_system(env(), "t3-ring-8", {});
  const studies::GemmProbe p = studies::probe_gemm(sys, gpu::GemmShape{4096, 4096, 64});
  EXPECT_GT(p.dram_utilisation, 0.0);
  EXPECT_LE(p.dram_utilisation, 1.0);
  EXPECT_GE(p.l2_hit_rate, 0.0);
  EXPECT_LE(p.l2_hit_rate, 1.0);
  EXPECT_GT(p.compute_us, 0.0);
  EXPECT_GE(p.memory_stall_us, 0.0);
  EXPECT_GT(p.pipeline_us, 0.0);
  // A compute-bound shape drives DRAM less than the memory-bound one.
  const studies::GemmProbe big = studies::probe_gemm(sys, gpu::GemmShape{4096, 4096, 4096});
  EXPECT_LT(big.dram_utilisation, p.dram_utilisation);
}

TEST(Probes, GemmWithCusHeldPaysThePersistentTail) {
  // 4096 x 4096 x 1024 on dgx-h100: 512 tiles, 3.9 per CTA of a 132-CTA persistent grid. With 4
  // SMs held throughout, a static schedule runs the 4 waiting CTAs' lists after the resident ones
  // (about 6 tile rounds for 4); the dynamic schedule (the preset) and per_tile spread the tiles
  // over 128 SMs; SMs given back early release the waiting CTAs.
  const gpu::GemmShape shape{4096, 4096, 1024};
  auto slowdown = [&](const std::string& launch, const std::string& schedule,
                      studies::HeldCus held) {
    const ConfigDoc sys = studies::load_system(
        env(), "dgx-h100",
        {"gpu.gemm_launch=" + launch, "gpu.persistent_schedule=" + schedule, "gpu.max_split_k=1"});
    return studies::probe_gemm(sys, shape, held).time_us / studies::probe_gemm(sys, shape).time_us;
  };
  studies::HeldCus held;
  held.cus = 4;
  const double stat = slowdown("persistent", "static", held);
  EXPECT_GT(stat, 1.3);
  EXPECT_LT(slowdown("persistent", "dynamic", held), 1.1);
  EXPECT_LT(slowdown("per_tile", "static", held), 1.1);
  studies::HeldCus early = held;
  early.for_time = Duration::ns(10'000);
  EXPECT_LT(slowdown("persistent", "static", early), stat - 0.1);
  const ConfigDoc sys = studies::load_system(env(), "dgx-h100", {});
  studies::HeldCus all;
  all.cus = 132;
  EXPECT_THROW(studies::probe_gemm(sys, shape, all), UsageError);
}

TEST(Probes, LoadedLatencyRisesWithLoadAndHasAKnee) {
  const ConfigDoc sys = studies::load_system(env(), "t3-ring-8", {});
  hbm::LoadedLatencySpec spec;
  spec.requests_per_channel = 50;
  const hbm::LoadedLatencyCurve c = studies::probe_loaded_latency(sys, spec);
  ASSERT_GE(c.points.size(), 2u);
  EXPECT_GT(c.unloaded_ns, 0.0);
  EXPECT_LT(c.points.front().mean_ns, c.points.back().mean_ns);
  for (const auto& pt : c.points) EXPECT_LE(pt.achieved_gbps, c.peak_gbps * 1.001);
  ASSERT_TRUE(c.knee.has_value());
  EXPECT_GT(c.points[*c.knee].mean_ns, 2 * c.unloaded_ns);
}

TEST(LoadSystem, TpOnAMultiNodeSystemTakesWholeNodes) {
  const ConfigDoc d = studies::load_system(env(), "dgx-h100-128node", {}, 16);
  EXPECT_EQ(d.root["gpus"], 16);
  EXPECT_EQ(d.root["fabric"]["nodes"], 2);
  try {
    studies::load_system(env(), "dgx-h100-128node", {}, 12);
    ADD_FAILURE() << "TP 12 on 8-GPU nodes was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("gpus_per_node"), std::string::npos) << e.what();
  }
}

TEST(RunValidation, UnknownSetNamesTheSets) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  try {
    validation::run_validation(shipped(), validation::ValidateRequest{"no-such-set", 1});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gemm-mamf"), std::string::npos) << e.what();
  }
}

TEST(RunValidation, OneSetGivesRowsAndAVerdict) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();  // validation compares the shipped calibration
  const validation::ValidateResult r =
      validation::run_validation(shipped(), validation::ValidateRequest{"gemm-mamf", 2});
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
