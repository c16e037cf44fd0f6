// The shipped reproduction (configs/experiments/t3-paper.json) end to end through the studies
// library. Checks the mechanism invariants, not the paper's numbers: every point has every mode of
// its point set; simulated fused modes have positive, finite times; composed modes conserve the
// DRAM bytes of their isolated pieces; ideal is never slower than sequential; reported speedups
// are T_sequential / T_mode - 1; the written tables exist and parse; check.py runs on them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "studies/reproduction.h"
#include "tests/support/fixtures.h"

namespace t3sim::studies {
namespace {

namespace fs = std::filesystem;
using system::Mode;
using system::Piece;
const fs::path kSource = T3SIM_SOURCE_DIR;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint64_t class_sum(const system::SublayerResult& r) {
  return std::accumulate(r.dram_bytes.begin(), r.dram_bytes.end(), uint64_t{0});
}

void check_modes(const Reproduction& rep, const PointResult& p) {
  const PointSet& ps = p.large ? rep.exp.large : rep.exp.fig16;
  for (Mode m : ps.modes) ASSERT_TRUE(p.modes.count(m)) << system::to_string(m);
  for (Mode m : {Mode::kT3, Mode::kT3Mca}) {
    if (!p.modes.count(m)) continue;
    const double t = p.modes.at(m).total_us;
    EXPECT_TRUE(std::isfinite(t) && t > 0) << system::to_string(m) << " " << t;
  }
  for (const auto& [m, r] : p.modes) {
    EXPECT_EQ(class_sum(r), r.dram_total) << system::to_string(m);
  }
}

// Sequential and ideal are composed from the isolated GEMM, RS and AG pieces: same bytes.
void check_composed(const PointResult& p) {
  const auto& pc = p.pieces;
  const auto& seq = p.modes.at(Mode::kSequential);
  const uint64_t pieces = pc.at(Piece::kGemm).dram_total + pc.at(Piece::kRsCu).dram_total +
                          pc.at(Piece::kAgCu).dram_total;
  EXPECT_EQ(seq.dram_total, pieces);
  if (p.modes.count(Mode::kIdeal)) {
    const auto& ideal = p.modes.at(Mode::kIdeal);
    EXPECT_EQ(ideal.dram_total, seq.dram_total);
    EXPECT_LE(ideal.total_us, seq.total_us * (1 + 1e-12));
  }
  if (p.modes.count(Mode::kIdealNmc)) {
    const uint64_t nmc = pc.at(Piece::kGemm).dram_total + pc.at(Piece::kRsNmc).dram_total +
                         pc.at(Piece::kAgCu).dram_total;
    EXPECT_EQ(p.modes.at(Mode::kIdealNmc).dram_total, nmc);
  }
  // Fused modes append the same all-gather piece after their reduce-scatter.
  for (Mode m : {Mode::kT3, Mode::kT3Mca}) {
    if (p.modes.count(m)) {
      EXPECT_GE(p.modes.at(m).dram_total, pc.at(Piece::kAgCu).dram_total);
    }
  }
}

// summary.json's Fig. 16 max speedup per mode is max(T_seq / T_mode) - 1 over the Fig. 16 points.
void check_speedups(const Reproduction& rep, const nlohmann::json& summary) {
  std::map<Mode, double> best;
  for (const auto& p : rep.points) {
    if (p.large) continue;
    const double seq = p.modes.at(Mode::kSequential).total_us;
    for (const auto& [m, r] : p.modes) {
      if (m == Mode::kSequential) continue;
      best[m] = std::max(best.count(m) ? best[m] : -1e300, (seq / r.total_us - 1) * 100);
    }
  }
  ASSERT_FALSE(best.empty());
  for (const auto& [m, pct] : best) {
    const auto& j = summary["fig16"][std::string(system::to_string(m))];
    ASSERT_TRUE(j["max_speedup_pct"].is_number()) << system::to_string(m);
    EXPECT_NEAR(j["max_speedup_pct"].get<double>(), pct, 1e-9 * std::max(1.0, std::fabs(pct)))
        << system::to_string(m);
  }
}

void check_files(const Reproduction& rep) {
  for (const char* f : {"summary.json", "points.json"}) {
    const auto j = nlohmann::json::parse(slurp(rep.dir / f), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << f;
  }
  const auto points = nlohmann::json::parse(slurp(rep.dir / "points.json"), nullptr, false);
  EXPECT_EQ(points.size(), rep.points.size());
  for (const char* f : {"fig16.csv", "large_models.csv", "fig18.csv", "fig6.csv", "fig17.csv",
                        "e2e.csv", "report.md"}) {
    ASSERT_TRUE(fs::exists(rep.dir / f)) << f;
    const std::string text = slurp(rep.dir / f);
    EXPECT_GT(std::count(text.begin(), text.end(), '\n'), 1) << f;
  }
}

// check.py compares with the paper: exit 0 (all within band) or 1 (some outside) both mean it ran.
void check_script_runs(const fs::path& dir) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string cmd = "/usr/bin/python3 '" +
                          (kSource / "validation" / "t3-paper" / "check.py").string() + "' '" +
                          dir.string() + "' > '" + (dir / "check.log").string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << cmd;
  const int rc = WEXITSTATUS(status);
  EXPECT_TRUE(rc == 0 || rc == 1) << "check.py exit " << rc << ":\n" << slurp(dir / "check.log");
}

TEST(ReproduceShipped, MechanismInvariants) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();  // the shipped reproduction itself
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("t3sim_shipped_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Reproduction rep =
      run_reproduction(Env{kSource / "configs", kSource}, ReproductionRequest{{}, dir, 0, nullptr});
  ASSERT_FALSE(rep.points.empty());
  EXPECT_EQ(rep.dir, dir);
  for (const auto& p : rep.points) {
    SCOPED_TRACE(p.model + " tp" + std::to_string(p.tp) + " " + p.sublayer +
                 (p.large ? " (large)" : ""));
    check_modes(rep, p);
    check_composed(p);
  }
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  check_speedups(rep, summary);
  check_files(rep);
  check_script_runs(dir);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace t3sim::studies
