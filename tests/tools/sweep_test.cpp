// The sweep engine (studies/sweep*.h): spec errors are one-line ConfigErrors that name the
// problem (unknown path with a suggestion, empty axis, type mismatch, duplicated path); the
// cartesian / zip point order; the output file is byte-identical for --jobs 1 and --jobs 2, in CSV
// and JSON Lines; --resume after a torn write skips finished points, reruns the rest and ends with
// the same bytes as a fresh run. Uses the frozen tests/fixtures/sweeps/tiny.json (8 points of ~0.1
// s each).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config.h"
#include "sim/errors.h"
#include "studies/sweep_runner.h"
#include "studies/sweep_spec.h"
#include "tests/support/fixtures.h"
#include "tests/support/scratch_dir.h"

namespace t3sim::studies {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = T3SIM_SOURCE_DIR;
const fs::path kConfigs = t3sim::testing::fixtures_dir();  // frozen: tests/fixtures
const fs::path kTiny = kConfigs / "sweeps" / "tiny.json";

Env env() { return Env{kConfigs, kSource}; }

using t3sim::testing::ScratchDir;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << p;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

// Runs a sweep through the library; returns the number of points run by this call.
size_t sweep(const fs::path& spec, const fs::path& out, unsigned jobs, bool resume = false) {
  const SweepSpec s = read_sweep(env(), load_config(spec.string(), {kConfigs}));
  const SweepRun r = run_sweep(env(), s, SweepRequest{out, jobs, resume, nullptr, nullptr});
  EXPECT_EQ(r.points, s.points());
  return r.run_now;
}

// A spec around the tiny base with the given axes.
nlohmann::json spec_with(const nlohmann::json& axes) {
  return {{"kind", "sweep"},
          {"name", "t"},
          {"base", {{"system", "t3-ring-8"}, {"model", "mega-gpt2"}, {"tokens", 1024}}},
          {"axes", axes}};
}

// Expects read_sweep to reject `spec` with a one-line ConfigError containing `part`.
void expect_spec_error(const nlohmann::json& spec, const std::string& part) {
  const ConfigDoc doc = config_from_json(spec, "spec.json");
  try {
    read_sweep(env(), doc);
    ADD_FAILURE() << "no error for " << spec.dump() << " (wanted '" << part << "')";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(part), std::string::npos) << msg;
    EXPECT_NE(msg.find("spec.json"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

// ---- spec errors --------------------------------------------------------------------------------

TEST(SweepSpec, UnknownPathSuggestsTheNearestKey) {
  expect_spec_error(spec_with({{{"path", "hbm.bandwith"}, {"values", {"1 TB/s"}}}}),
                    "did you mean");
  expect_spec_error(spec_with({{{"path", "hbm.bandwith"}, {"values", {"1 TB/s"}}}}), "bandwidth");
  expect_spec_error(spec_with({{{"path", "fabric.link.bandwidht"}, {"values", {"1 TB/s"}}}}),
                    "did you mean");
}

TEST(SweepSpec, EmptyAxisIsAnError) {
  expect_spec_error(spec_with({{{"path", "mode"}, {"values", nlohmann::json::array()}}}),
                    "empty axis");
  expect_spec_error(spec_with({{{"zip", nlohmann::json::array()}}}), "empty axis");
  expect_spec_error(spec_with(nlohmann::json::array()), "no axes");
}

TEST(SweepSpec, TypeMismatchIsAnError) {
  // String for a numeric path and number for a string path, workload and system paths alike.
  expect_spec_error(spec_with({{{"path", "tokens"}, {"values", {"1024"}}}}), "type mismatch");
  expect_spec_error(spec_with({{{"path", "mode"}, {"values", {3}}}}), "type mismatch");
  expect_spec_error(spec_with({{{"path", "hbm.efficiency"}, {"values", {"fast"}}}}),
                    "type mismatch");
  expect_spec_error(spec_with({{{"path", "hbm.bandwidth"}, {"values", {5}}}}), "type mismatch");
  expect_spec_error(spec_with({{{"path", "nmc"}, {"values", {1}}}}), "type mismatch");
}

TEST(SweepSpec, DuplicatedPathIsAnError) {
  expect_spec_error(spec_with({{{"path", "mode"}, {"values", {"t3"}}},
                               {{"path", "mode"}, {"values", {"sequential"}}}}),
                    "appears in two axes");
  expect_spec_error(spec_with({{{"path", "hbm.bandwidth"}, {"values", {"1 TB/s"}}},
                               {{"zip",
                                 {{{"path", "tokens"}, {"values", {1024}}},
                                  {{"path", "hbm.bandwidth"}, {"values", {"2 TB/s"}}}}}}}),
                    "appears in two axes");
}

TEST(SweepSpec, BadValuesAreErrors) {
  expect_spec_error(spec_with({{{"path", "mode"}, {"values", {"t4"}}}}), "unknown mode");
  expect_spec_error(spec_with({{{"path", "model"}, {"values", {"gpt5"}}}}), "unknown model");
  expect_spec_error(spec_with({{{"path", "tokens"}, {"values", {0}}}}), "tokens");
  expect_spec_error(spec_with({{{"zip",
                                 {{{"path", "tokens"}, {"values", {1024, 2048}}},
                                  {{"path", "mode"}, {"values", {"t3"}}}}}}}),
                    "equal lengths");
}

TEST(SweepSpec, ErrorsComeBeforeAnyOutput) {
  const ScratchDir d("sweep");
  write(d / "bad.json", spec_with({{{"path", "hbm.bandwith"}, {"values", {"1 TB/s"}}}}).dump());
  EXPECT_THROW(sweep(d / "bad.json", d / "out.csv", 1), ConfigError);
  EXPECT_FALSE(fs::exists(d / "out.csv"));
}

TEST(SweepSpec, PointsAreTheCartesianProductLastAxisFastest) {
  const SweepSpec s = read_sweep(env(), load_config(kTiny, {kConfigs}));
  ASSERT_EQ(s.points(), 8u);
  ASSERT_EQ(s.columns, (std::vector<std::string>{"hbm.bandwidth", "sublayer", "mode"}));
  const SweepPoint p1 = sweep_point(s, 1), p6 = sweep_point(s, 6);
  EXPECT_EQ(p1.labels, (std::vector<std::string>{"1 TB/s", "fc2", "t3"}));
  EXPECT_EQ(p6.labels, (std::vector<std::string>{"2 TB/s", "op", "sequential"}));
  EXPECT_EQ(p6.mode, "sequential");
  EXPECT_EQ(p6.sublayer, "op");
  EXPECT_EQ(p6.tokens, 1024);
  ASSERT_EQ(p6.sets.size(), 1u);
  EXPECT_EQ(p6.sets[0], "hbm.bandwidth=2 TB/s");
}

TEST(SweepSpec, ZipVariesMembersTogether) {
  const auto spec = spec_with({{{"zip",
                                 {{{"path", "tokens"}, {"values", {1024, 2048}}},
                                  {{"path", "mode"}, {"values", {"t3", "sequential"}}}}}},
                               {{"path", "sublayer"}, {"values", {"fc2", "op", "ip"}}}});
  const SweepSpec s = read_sweep(env(), config_from_json(spec, "zip.json"));
  EXPECT_EQ(s.points(), 6u);
  EXPECT_EQ(s.columns, (std::vector<std::string>{"tokens", "mode", "sublayer"}));
  const SweepPoint p = sweep_point(s, 4);  // zip member 1, sublayer 1
  EXPECT_EQ(p.tokens, 2048);
  EXPECT_EQ(p.mode, "sequential");
  EXPECT_EQ(p.sublayer, "op");
}

TEST(SweepSpec, SystemAxisGivesEachPointItsSystem) {
  // Systems from one GPU to a 1024-GPU cluster; "tp" on the cluster takes whole nodes.
  const auto spec = spec_with({{{"path", "system"}, {"values", {"dgx-h100", "dgx-h100-128node"}}},
                               {{"path", "tp"}, {"values", {8, 16}}}});
  const SweepSpec s = read_sweep(env(), config_from_json(spec, "systems.json"));
  EXPECT_EQ(s.points(), 4u);
  const SweepPoint p = sweep_point(s, 3);
  EXPECT_EQ(p.system, "dgx-h100-128node");
  EXPECT_EQ(p.tp, 16);
  expect_spec_error(spec_with({{{"path", "system"}, {"values", {"dgx-h100", "dgx-h9000"}}}}),
                    "dgx-h9000");
  expect_spec_error(spec_with({{{"path", "system"}, {"values", {"dgx-h100", 8}}}}),
                    "takes a string");
}

// ---- running ------------------------------------------------------------------------------------

TEST(Sweep, OutputIdenticalForOneAndTwoJobs) {
  const ScratchDir d("sweep");
  ASSERT_EQ(sweep(kTiny, d / "j1.csv", 1), 8u);
  ASSERT_EQ(sweep(kTiny, d / "j2.csv", 2), 8u);
  const std::string a = slurp(d / "j1.csv"), b = slurp(d / "j2.csv");
  EXPECT_EQ(a, b);
  const auto rows = lines_of(a);
  ASSERT_EQ(rows.size(), 9u);  // header + 8 points
  EXPECT_EQ(rows[0].rfind("index,hbm.bandwidth,sublayer,mode,total_us", 0), 0u) << rows[0];
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].rfind(std::to_string(i - 1) + ",", 0), 0u) << rows[i];
  }
}

TEST(Sweep, JsonLinesOutputIdenticalForOneAndTwoJobsAndMatchesCsv) {
  const ScratchDir d("sweep");
  ASSERT_EQ(sweep(kTiny, d / "j1.jsonl", 1), 8u);
  ASSERT_EQ(sweep(kTiny, d / "j2.jsonl", 2), 8u);
  ASSERT_EQ(sweep(kTiny, d / "j2.csv", 2), 8u);
  const std::string a = slurp(d / "j1.jsonl");
  EXPECT_EQ(a, slurp(d / "j2.jsonl"));
  const auto rows = lines_of(a);
  const auto csv = lines_of(slurp(d / "j2.csv"));
  ASSERT_EQ(rows.size(), 8u);  // no header in JSON Lines
  ASSERT_EQ(csv.size(), 9u);
  std::map<std::string, double> seq_total;  // "bw/sublayer" -> sequential total
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto j = nlohmann::json::parse(rows[i]);
    EXPECT_EQ(j.at("index").get<size_t>(), i);
    for (const char* k : {"hbm.bandwidth", "sublayer", "mode", "total_us", "gemm_us",
                          "rs_exposed_us", "ag_us", "dram_total", "link_bytes", "events"}) {
      EXPECT_TRUE(j.contains(k)) << k << " in " << rows[i];
    }
    // The same value as the CSV row (printed there with 3 decimals).
    const std::string& c = csv[i + 1];
    std::vector<std::string> f;
    std::stringstream ss(c);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 11u) << c;
    EXPECT_EQ(f[1], j["hbm.bandwidth"].get<std::string>());
    EXPECT_NEAR(std::stod(f[4]), j["total_us"].get<double>(), 6e-4);
    EXPECT_EQ(std::stoull(f[8]), j["dram_total"].get<uint64_t>());
    // T3 beats sequential at every (bandwidth, sublayer).
    const std::string key =
        j["hbm.bandwidth"].get<std::string>() + "/" + j["sublayer"].get<std::string>();
    if (j["mode"] == "sequential") {
      seq_total[key] = j["total_us"].get<double>();
    } else {
      ASSERT_TRUE(seq_total.count(key));
      EXPECT_LT(j["total_us"].get<double>(), seq_total[key]) << key;
    }
  }
}

TEST(Sweep, ResumeAfterTornWriteEqualsFreshRun) {
  const ScratchDir d("sweep");
  ASSERT_EQ(sweep(kTiny, d / "fresh.csv", 2), 8u);
  const std::string fresh = slurp(d / "fresh.csv");
  const auto rows = lines_of(fresh);
  ASSERT_EQ(rows.size(), 9u);
  // Header + points 0..2, then half of point 3 (a killed append).
  std::string partial = rows[0] + "\n" + rows[1] + "\n" + rows[2] + "\n" + rows[3] + "\n" +
                        rows[4].substr(0, rows[4].size() / 2);
  write(d / "resumed.csv", partial);
  fs::copy_file(d / "fresh.csv.spec", d / "resumed.csv.spec");  // the same sweep's fingerprint
  ASSERT_EQ(sweep(kTiny, d / "resumed.csv", 2, true), 5u);      // points 3..7
  const std::string resumed = slurp(d / "resumed.csv");
  EXPECT_EQ(resumed, fresh);
  std::set<std::string> idx;
  for (const auto& l : lines_of(resumed)) idx.insert(l.substr(0, l.find(',')));
  EXPECT_EQ(idx.size(), 9u) << "a duplicated point";
}

TEST(Sweep, ResumeSkipsFinishedPointsAndRerunsTheRest) {
  const ScratchDir d("sweep");
  ASSERT_EQ(sweep(kTiny, d / "fresh.csv", 2), 8u);
  const auto rows = lines_of(slurp(d / "fresh.csv"));
  ASSERT_EQ(rows.size(), 9u);
  // Point 1 carries a marker value: if --resume reran it, the marker would be overwritten.
  std::string marked = rows[2];
  marked = marked.substr(0, marked.rfind(',')) + ",424242";
  write(d / "resumed.csv",
        rows[0] + "\n" + rows[1] + "\n" + marked + "\n" + rows[6] + "\n" + rows[7].substr(0, 5));
  fs::copy_file(d / "fresh.csv.spec", d / "resumed.csv.spec");
  ASSERT_EQ(sweep(kTiny, d / "resumed.csv", 1, true), 5u);  // all but 0, 1, 5
  const auto out = lines_of(slurp(d / "resumed.csv"));
  ASSERT_EQ(out.size(), 9u);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i], i == 2 ? marked : rows[i]) << "line " << i;
  }
}

TEST(Sweep, ResumeJsonLinesAfterTornWriteEqualsFreshRun) {
  const ScratchDir d("sweep");
  ASSERT_EQ(sweep(kTiny, d / "fresh.jsonl", 2), 8u);
  const std::string fresh = slurp(d / "fresh.jsonl");
  const auto rows = lines_of(fresh);
  ASSERT_EQ(rows.size(), 8u);
  // Out of order (as threads finish), then a torn line.
  write(d / "resumed.jsonl", rows[5] + "\n" + rows[0] + "\n" + rows[3].substr(0, 20));
  fs::copy_file(d / "fresh.jsonl.spec", d / "resumed.jsonl.spec");
  ASSERT_EQ(sweep(kTiny, d / "resumed.jsonl", 2, true), 6u);  // all but 0, 5
  EXPECT_EQ(slurp(d / "resumed.jsonl"), fresh);
}

TEST(Sweep, ResumeAfterTheBaseChangedRerunsEveryPoint) {
  // Same axes, so the rows' axis values match, but another token count: nothing may be kept.
  const ScratchDir d("sweep");
  const nlohmann::json axes = {{{"path", "mode"}, {"values", {"sequential", "t3"}}}};
  nlohmann::json spec = spec_with(axes);
  const auto run = [&](bool resume) {
    const SweepSpec s = read_sweep(env(), config_from_json(spec, "spec.json"));
    return run_sweep(env(), s, SweepRequest{d / "out.csv", 1, resume, nullptr, nullptr});
  };
  ASSERT_EQ(run(false).run_now, 2u);
  const std::string first = slurp(d / "out.csv");
  EXPECT_EQ(run(true).run_now, 0u);  // unchanged: every row kept
  spec["base"]["tokens"] = 2048;
  const SweepRun changed = run(true);
  EXPECT_EQ(changed.run_now, 2u);
  EXPECT_EQ(changed.stale, 2u);
  EXPECT_NE(slurp(d / "out.csv"), first);
  EXPECT_EQ(run(true).run_now, 0u);  // and the new rows are kept under the new fingerprint
}

TEST(Sweep, ResumeWithAnotherSpecsHeaderIsAnError) {
  const ScratchDir d("sweep");
  write(d / "other.csv", "index,tokens,total_us\n0,1024,1.0\n");
  EXPECT_THROW(sweep(kTiny, d / "other.csv", 1, true), ConfigError);
  EXPECT_EQ(slurp(d / "other.csv"), "index,tokens,total_us\n0,1024,1.0\n");  // left alone
}

TEST(Sweep, WithoutResumeAnExistingFileIsReplaced) {
  const ScratchDir d("sweep");
  ASSERT_EQ(sweep(kTiny, d / "fresh.csv", 2), 8u);
  write(d / "old.csv", "garbage\n1,2,3\n");
  ASSERT_EQ(sweep(kTiny, d / "old.csv", 2), 8u);
  EXPECT_EQ(slurp(d / "old.csv"), slurp(d / "fresh.csv"));
}

// A spec edited between runs (an axis value changed, so the header stays the same): --resume
// keeps only the rows whose axis values are the spec's for their index and reruns the others, so
// the result equals a fresh run of the edited spec, in CSV and JSON Lines.
TEST(Sweep, ResumeRerunsRowsWhoseAxisValuesChanged) {
  const ScratchDir d("sweep");
  nlohmann::json edited = nlohmann::json::parse(slurp(kTiny));
  edited["axes"][0]["values"][1] = "3 TB/s";  // points 4..7 (the first axis is the slowest)
  write(d / "edited.json", edited.dump());
  for (const char* ext : {".csv", ".jsonl"}) {
    const fs::path old_run = d / (std::string("old") + ext);
    const fs::path fresh = d / (std::string("fresh") + ext);
    ASSERT_EQ(sweep(kTiny, old_run, 2), 8u);
    ASSERT_EQ(sweep(d / "edited.json", fresh, 2), 8u);
    const SweepSpec s = read_sweep(env(), load_config((d / "edited.json").string(), {kConfigs}));
    const SweepRun r = run_sweep(env(), s, SweepRequest{old_run, 2, true, nullptr, nullptr});
    EXPECT_EQ(r.run_now, 4u) << ext;
    EXPECT_EQ(r.stale, 4u) << ext;
    EXPECT_EQ(slurp(old_run), slurp(fresh)) << ext;
  }
}

}  // namespace
}  // namespace t3sim::studies
