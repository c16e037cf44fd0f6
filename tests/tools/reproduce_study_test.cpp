// A systems study through the studies library, on the frozen fixture
// tests/fixtures/experiments/tiny-study.json (dgx-h100 and mi300x-8 from tests/fixtures/systems,
// Mega-GPT-2 at TP 8, FC-2 and OP, every mode they run). Checks the output set, that traffic
// classes sum to the DRAM total, the bounds the modes promise (ideal <= sequential = GEMM + RS +
// AG, no fused mode faster than its GEMM alone), that t3-nvls runs only where the switch reduces,
// that the files do not depend on the thread count, and that bad study documents fail at their
// pointer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/system/system.h"
#include "sim/errors.h"
#include "studies/reproduce_study.h"
#include "studies/reproduction.h"
#include "tests/support/fixtures.h"
#include "tests/support/scratch_dir.h"

namespace t3sim::studies {
namespace {

namespace fs = std::filesystem;
using system::Mode;
using t3sim::testing::ScratchDir;

Env env() { return Env{t3sim::testing::fixtures_dir(), T3SIM_SOURCE_DIR}; }
fs::path tiny() { return t3sim::testing::fixtures_dir() / "experiments" / "tiny-study.json"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_point(const PointResult& p) {
  SCOPED_TRACE(p.system + " " + p.sublayer);
  const auto& seq = p.modes.at(Mode::kSequential);
  const double pieces = p.pieces.at(system::Piece::kGemm).total_us +
                        p.pieces.at(system::Piece::kRsCu).total_us +
                        p.pieces.at(system::Piece::kAgCu).total_us;
  EXPECT_NEAR(seq.total_us, pieces, 1e-6 * pieces);
  EXPECT_LE(p.modes.at(Mode::kIdeal).total_us, seq.total_us);
  const double gemm = p.pieces.at(system::Piece::kGemm).total_us;
  for (const auto& [m, r] : p.modes) {
    SCOPED_TRACE(std::string(system::to_string(m)));
    EXPECT_EQ(std::accumulate(r.dram_bytes.begin(), r.dram_bytes.end(), uint64_t{0}), r.dram_total);
    EXPECT_GT(r.total_us, 0.0);
    if (system::mode_spec(m).fused_rs != system::RsFusion::kNone) {
      EXPECT_GE(r.total_us, 0.99 * gemm);       // no fused mode beats its GEMM alone
      EXPECT_LT(r.dram_total, seq.dram_total);  // the fused RS moves fewer HBM bytes
    }
  }
}

TEST(ReproduceStudy, TinyStudy) {
  const ScratchDir two("study_two"), one("study_one");
  const Reproduction rep = run_reproduction(env(), ReproductionRequest{tiny(), two, 2, nullptr});
  ASSERT_EQ(rep.exp.kind, StudyKind::kSystems);
  ASSERT_EQ(rep.points.size(), 4u);
  size_t rows = 0;
  for (const auto& p : rep.points) {
    check_point(p);
    rows += p.run_modes.size();
    EXPECT_EQ(p.modes.count(Mode::kT3Nvls), p.system == "dgx-h100" ? 1u : 0u);
    EXPECT_EQ(p.modes.size(), p.run_modes.size());
  }
  for (const char* f : {"report.md", "study.csv", "summary.json", "points.json", "speedup.svg",
                        "breakdown.svg", "run.json"}) {
    EXPECT_TRUE(fs::is_regular_file(two / f)) << f;
  }
  const std::string csv = slurp(two / "study.csv");
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), rows + 1);
  const auto s = nlohmann::json::parse(slurp(two / "summary.json"));
  for (const char* sys : {"dgx-h100", "mi300x-8"}) {
    ASSERT_TRUE(s["systems"].contains(sys)) << sys;
    const auto& t3 = s["systems"][sys]["t3"];
    EXPECT_LE(t3["geomean_speedup_pct"].get<double>(), t3["max_speedup_pct"].get<double>() + 1e-9);
    EXPECT_GT(t3["dram_reduction_pct"].get<double>(), 0.0);
    EXPECT_TRUE(t3["by_sublayer"].contains("fc2"));
  }
  EXPECT_TRUE(s["systems"]["dgx-h100"].contains("t3-nvls"));
  EXPECT_FALSE(s["systems"]["mi300x-8"].contains("t3-nvls"));
  const std::string report = slurp(two / "report.md");
  for (const char* h : {"## Speedup over sequential", "## Where the time goes",
                        "## DRAM traffic saved", "## Bounds"}) {
    EXPECT_NE(report.find(h), std::string::npos) << h;
  }
  EXPECT_EQ(slurp(two / "speedup.svg").rfind("<svg", 0), 0u);
  // One thread: every file but the run log is byte-identical.
  run_reproduction(env(), ReproductionRequest{tiny(), one, 1, nullptr});
  for (const char* f :
       {"report.md", "study.csv", "summary.json", "points.json", "speedup.svg", "breakdown.svg"}) {
    EXPECT_EQ(slurp(one / f), slurp(two / f)) << f;
  }
}

// Reads `text` as an experiment and returns the pointer of the ConfigError it raises ("" if none).
std::string error_at(const std::string& text) {
  const ScratchDir d("study_bad");
  const fs::path f = d / "bad.json";
  std::ofstream(f) << text;
  try {
    read_experiment(env(), load_config(f.string(), {env().configs_dir}));
  } catch (const ConfigError& e) {
    return e.pointer();
  }
  return "";
}

std::string study(const std::string& systems, const std::string& modes,
                  const std::string& extra = "") {
  return R"({"kind": "experiment", "name": "bad", )" + extra + R"("study": {"systems": )" +
         systems + R"(, "models": ["mega-gpt2"], "tp": [8], "sublayers": ["fc2"], "modes": )" +
         modes + "}}";
}

TEST(ReproduceStudy, BadDocumentsFailAtTheirPointer) {
  EXPECT_EQ(error_at(study(R"(["mi300x-8"])", R"(["sequential", "t3"])")), "");
  EXPECT_EQ(error_at(study(R"(["mi300x-8"])", R"(["sequential", "t3-nvls"])")), "/study/modes/1");
  EXPECT_EQ(error_at(study(R"(["no-such-system"])", R"(["sequential"])")), "/study/systems/0");
  EXPECT_EQ(error_at(study(R"(["mi300x-8"])", R"(["t3", "sequential"])")), "/study/modes/0");
  EXPECT_EQ(error_at(study(R"(["mi300x-8"])", R"(["sequential"])", R"("fig6": {}, )")), "/fig6");
  EXPECT_EQ(error_at(R"({"kind": "experiment", "name": "bad", "system": "t3-ring-{tp}"})"),
            "/fig16");
}

TEST(ReproduceStudy, AblationIsRefusedBeforeAnyOutput) {
  const ScratchDir d("study_ablation");
  const fs::path out = d / "out";
  ReproductionRequest req{tiny(), out, 1, nullptr};
  req.ablation = true;
  EXPECT_THROW(run_reproduction(env(), req), ConfigError);
  EXPECT_FALSE(fs::exists(out));
}

TEST(ReproduceStudy, ShippedStudyReads) {
  T3SIM_REQUIRE_SHIPPED_CONFIGS();
  const Env shipped{t3sim::testing::shipped_configs_dir(), T3SIM_SOURCE_DIR};
  const fs::path f = shipped.configs_dir / "experiments" / "t3-today.json";
  const Experiment e = read_experiment(shipped, load_config(f.string(), {shipped.configs_dir}));
  EXPECT_EQ(e.kind, StudyKind::kSystems);
  // Every mode of the table that one of the study's systems can run is in the study.
  for (const auto& row : system::mode_table()) {
    bool runs = false;
    for (const auto& sys : e.study.systems) {
      runs = runs || mode_runs_on(system::load_system_config(sys, shipped.configs_dir), row.mode);
    }
    const bool listed =
        std::find(e.study.modes.begin(), e.study.modes.end(), row.mode) != e.study.modes.end();
    EXPECT_EQ(listed, runs) << row.name;
  }
}

}  // namespace
}  // namespace t3sim::studies
