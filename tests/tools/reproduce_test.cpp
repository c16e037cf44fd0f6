// A reduced reproduction through the studies library: one Fig. 16 model (Mega-GPT-2, TP 8, FC-2 and
// OP), one "large" point, two Fig. 6 splits. Checks the output set (summary.json keys, report.md,
// CSV tables, points.json) and the mechanisms behind the paper's claims: T3 and T3-MCA beat
// sequential on FC-2, DRAM traffic and RS reads go down, MCA is never more than 0.5 % slower than
// T3.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/errors.h"
#include "studies/reproduction.h"
#include "tests/support/fixtures.h"
#include "tests/support/scratch_dir.h"

namespace t3sim::studies {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = T3SIM_SOURCE_DIR;

Env env() { return Env{t3sim::testing::fixtures_dir(), kSource}; }  // frozen machines and models

Reproduction reproduce(const fs::path& experiment, const fs::path& out, unsigned threads = 2) {
  return run_reproduction(env(), ReproductionRequest{experiment, out, threads, nullptr});
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr const char* kExperiment = R"({
  "kind": "experiment",
  "name": "tiny-repro",
  "system": "t3-ring-{tp}",
  "fig16": {"models": ["mega-gpt2"], "tp": [8], "sublayers": ["fc2", "op"],
            "modes": ["sequential", "ideal", "ideal-nmc", "t3", "t3-mca"]},
  "large_models": {"models": ["mega-gpt2"], "tp": [8], "sublayers": ["fc2"],
                   "modes": ["sequential", "t3", "t3-mca"]},
  "fig6": {"ar_cus": [8, 16]},
  "fig17": {"model": "mega-gpt2", "tp": 8, "sublayer": "fc2"},
  "e2e": {"non_sliced_share": 0.42},
  "paper": {"fig16": {"t3": {"geomean": 20, "max": 39}},
            "data_movement": {"geomean_reduction_pct": 22}}
})";

using t3sim::testing::ScratchDir;

void check_summary_keys(const nlohmann::json& s) {
  for (const char* m : {"ideal", "ideal-nmc", "t3", "t3-mca"}) {
    ASSERT_TRUE(s["fig16"].contains(m)) << m;
    EXPECT_TRUE(s["fig16"][m]["geomean_speedup_pct"].is_number()) << m;
    EXPECT_TRUE(s["fig16"][m]["max_speedup_pct"].is_number()) << m;
    EXPECT_GE(s["fig16"][m]["max_speedup_pct"].get<double>(),
              s["fig16"][m]["geomean_speedup_pct"].get<double>() - 1e-9)
        << m;
  }
  for (const char* k : {"geomean_reduction_pct", "max_reduction_pct", "rs_read_reduction_x"}) {
    EXPECT_TRUE(s["data_movement"][k].is_number()) << k;
  }
  for (const char* m : {"t3", "t3-mca"}) {
    ASSERT_TRUE(s["large_models"].contains(m)) << m;
    EXPECT_TRUE(s["large_models"][m]["geomean_speedup_pct"].is_number()) << m;
    EXPECT_TRUE(s["large_models"][m]["max_speedup_pct"].is_number()) << m;
  }
  for (const char* k : {"ideal_x", "cu8_x", "cu16_x"}) {
    ASSERT_TRUE(s["fig6"][k].is_number()) << k;
    EXPECT_GT(s["fig6"][k].get<double>(), 0.0) << k;
  }
  // Overlapping GEMM and AR perfectly gains at most 2x.
  EXPECT_GT(s["fig6"]["ideal_x"].get<double>(), 1.0);
  EXPECT_LE(s["fig6"]["ideal_x"].get<double>(), 2.0);
  // Wall time and threads differ between runs: they go to the run log, not summary.json.
  EXPECT_FALSE(s.contains("wall_s"));
  EXPECT_FALSE(s.contains("threads"));
  ASSERT_TRUE(s["events"].is_number_integer());
  EXPECT_GT(s["events"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["experiment"], "tiny-repro");
}

void check_files(const fs::path& out) {
  const std::string md = slurp(out / "report.md");
  EXPECT_NE(md.find("tiny-repro"), std::string::npos);
  EXPECT_NE(md.find("Fig. 16"), std::string::npos);
  for (const char* f : {"fig16.csv", "large_models.csv", "fig18.csv", "fig6.csv", "fig17.csv",
                        "e2e.csv", "points.json"}) {
    ASSERT_TRUE(fs::exists(out / f)) << f;
    EXPECT_GT(fs::file_size(out / f), 0u) << f;
  }
  // Fig. 16 table: header + 2 sublayers x 5 modes.
  const std::string f16 = slurp(out / "fig16.csv");
  EXPECT_EQ(std::count(f16.begin(), f16.end(), '\n'), 11) << f16;
  // Fig. 17: the timeline of the configured point has rows.
  const std::string f17 = slurp(out / "fig17.csv");
  EXPECT_GT(std::count(f17.begin(), f17.end(), '\n'), 2);
  EXPECT_TRUE(fs::exists(out / "trace_mega-gpt2_fc2_t3-mca.json"));
}

void check_points(const nlohmann::json& points) {
  ASSERT_EQ(points.size(), 3u);  // fc2, op (Fig. 16) + fc2 (large)
  for (const auto& p : points) {
    EXPECT_EQ(p["model"], "mega-gpt2");
    EXPECT_EQ(p["tp"], 8);
    for (const char* m : {"sequential", "t3", "t3-mca"}) {
      ASSERT_TRUE(p["modes"].contains(m)) << p["sublayer"] << " " << m;
      EXPECT_FALSE(p["modes"][m].contains("wall_s"));  // keeps points.json deterministic
    }
    if (!p["large"].get<bool>()) {
      EXPECT_TRUE(p["modes"].contains("ideal"));
      EXPECT_TRUE(p["modes"].contains("ideal-nmc"));
    }
  }
}

// The mechanisms: T3 and T3-MCA beat sequential on FC-2; DRAM traffic and RS reads go down; MCA is
// never more than 0.5 % slower than T3.
void check_mechanisms(const nlohmann::json& summary, const nlohmann::json& points) {
  int fc2 = 0;
  for (const auto& p : points) {
    const std::string where =
        p["sublayer"].get<std::string>() + (p["large"].get<bool>() ? " (large)" : "");
    const double seq = p["modes"]["sequential"]["total_us"].get<double>();
    const double t3 = p["modes"]["t3"]["total_us"].get<double>();
    const double mca = p["modes"]["t3-mca"]["total_us"].get<double>();
    if (p["sublayer"] == "fc2") {
      ++fc2;
      EXPECT_LT(t3, seq) << where;
      EXPECT_LT(mca, seq) << where;
    }
    EXPECT_LE(mca, t3 * 1.005) << where;
    const auto& dseq = p["modes"]["sequential"]["dram_bytes"];
    const auto& dmca = p["modes"]["t3-mca"]["dram_bytes"];
    EXPECT_LT(dmca["total"].get<uint64_t>(), dseq["total"].get<uint64_t>()) << where;
    EXPECT_LT(dmca["rs_read"].get<uint64_t>(), dseq["rs_read"].get<uint64_t>()) << where;
  }
  EXPECT_EQ(fc2, 2);
  EXPECT_GT(summary["fig16"]["t3"]["max_speedup_pct"].get<double>(), 0.0);
  EXPECT_GT(summary["fig16"]["t3-mca"]["max_speedup_pct"].get<double>(), 0.0);
  const auto& dm = summary["data_movement"];
  EXPECT_GT(dm["geomean_reduction_pct"].get<double>(), 0.0);
  EXPECT_GE(dm["max_reduction_pct"].get<double>(),
            dm["geomean_reduction_pct"].get<double>() - 1e-9);
  EXPECT_GT(dm["rs_read_reduction_x"].get<double>(), 1.0);
}

// One reduced reproduction per process (ctest runs each TEST in its own process, so the checks
// share a single run inside one TEST rather than a suite fixture).
TEST(Reproduce, ReducedExperiment) {
  const ScratchDir dir("reproduce");
  std::ofstream(dir / "exp.json") << kExperiment;
  size_t progress_calls = 0;
  const Reproduction rep = run_reproduction(
      env(), ReproductionRequest{dir / "exp.json", dir / "out", 2, [&](size_t done, size_t total) {
                                   ++progress_calls;
                                   EXPECT_LE(done, total);
                                 }});
  EXPECT_EQ(rep.points.size(), 3u);
  EXPECT_EQ(progress_calls, rep.runs);
  EXPECT_EQ(rep.dir, dir / "out");
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"), nullptr, false);
  const auto points = nlohmann::json::parse(slurp(dir / "out" / "points.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << "summary.json missing or not JSON";
  ASSERT_FALSE(points.is_discarded()) << "points.json missing or not JSON";
  {
    SCOPED_TRACE("summary keys");
    check_summary_keys(summary);
  }
  {
    SCOPED_TRACE("files");
    check_files(dir / "out");
  }
  {
    SCOPED_TRACE("points");
    check_points(points);
  }
  {
    SCOPED_TRACE("mechanisms");
    check_mechanisms(summary, points);
  }
  // The run log holds what differs between runs; every results file is byte-identical on 1 thread.
  const auto run = nlohmann::json::parse(slurp(dir / "out" / "run.json"), nullptr, false);
  ASSERT_FALSE(run.is_discarded()) << "run.json missing or not JSON";
  EXPECT_TRUE(run["wall_s"].is_number());
  EXPECT_EQ(run["threads"], 2);
  run_reproduction(env(), ReproductionRequest{dir / "exp.json", dir / "one", 1, nullptr});
  for (const char* f : {"summary.json", "report.md", "points.json", "fig16.csv", "fig6.csv"}) {
    EXPECT_EQ(slurp(dir / "one" / f), slurp(dir / "out" / f)) << f << " differs on 1 thread";
  }
}

// An experiment without the paper's figures still reproduces: every "paper" cell reads "-".
TEST(Reproduce, EmptyPaperSectionReportsDashes) {
  const ScratchDir d("reproduce_no_paper");
  auto exp = nlohmann::json::parse(kExperiment);
  exp["paper"] = nlohmann::json::object();
  exp["fig16"]["sublayers"] = {"fc2"};
  std::ofstream(d / "exp.json") << exp.dump();
  reproduce(d / "exp.json", d / "out");
  const std::string md = slurp(d / "out" / "report.md");
  EXPECT_NE(md.find("Paper (t3-paper.md §6.3): - (the experiment gives none)"), std::string::npos);
  EXPECT_EQ(md.find("null"), std::string::npos) << md;
}

TEST(ReproduceErrors, BadExperimentIsConfigError) {
  const ScratchDir d("reproduce_bad");
  auto exp = nlohmann::json::parse(kExperiment);
  exp["fig16"]["modes"] = {"t3", "sequential"};  // the baseline must come first
  std::ofstream(d / "first.json") << exp.dump();
  EXPECT_THROW(reproduce(d / "first.json", d / "out"), ConfigError);
  exp = nlohmann::json::parse(kExperiment);
  exp["fig16"]["models"] = {"mega-gtp2"};
  std::ofstream(d / "model.json") << exp.dump();
  try {
    reproduce(d / "model.json", d / "out");
    ADD_FAILURE() << "no error for an unknown model";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(d / "out" / "summary.json"));
}

}  // namespace
}  // namespace t3sim::studies
