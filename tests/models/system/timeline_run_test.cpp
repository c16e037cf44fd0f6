// The Perfetto timeline of a whole run (sim/timeline.h hooks in the models): T-NLG FC-2 under
// t3-mca on T3's 8-GPU ring, as the reproduction traces it. The JSON is structurally sound
// (sim/timeline_check.h: no partial overlaps, flows with both ends, counters rising in time, every
// track named), it holds every resource the Perfetto view should show per GPU, recording changes
// no result, and the event cap bounds the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "sim/timeline_check.h"
#include "tests/support/fixtures.h"

namespace t3sim::system {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

// T-NLG FC-2 at TP 8 as `t3sim sublayer` runs it: M = 8192 tokens (seq_len 1024 x micro-batch
// 8), N = hidden 4256, K = 4 x 4256 / 8.
SublayerSpec tnlg_fc2() {
  SublayerSpec s;
  s.shape = {8192, 4256, 2128};
  return s;
}

struct Traced {
  SublayerResult result;
  std::string text;
};

Traced traced(Mode mode, TimelineOptions o = {}) {
  const ConfigDoc doc = load_system_config("t3-ring-8", kConfigs);
  const auto path = std::filesystem::temp_directory_path() /
                    ("t3sim_timeline_" + std::to_string(::getpid()) + ".json");
  RunOptions opts;
  opts.trace_path = path.string();
  opts.trace_options = o;
  Traced t{run_sublayer(doc, tnlg_fc2(), mode, opts), ""};
  std::ifstream in(path);
  t.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  return t;
}

const Traced& t3_mca() {
  static const Traced t = traced(Mode::kT3Mca);
  return t;
}

TEST(TimelineRun, IsStructurallySound) {
  const auto j = nlohmann::json::parse(t3_mca().text);
  const auto problems = check_timeline(j);
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();
  EXPECT_EQ(j["otherData"]["dropped"], 0);
}

TEST(TimelineRun, ShowsEveryResourcePerGpu) {
  const auto j = nlohmann::json::parse(t3_mca().text);
  std::set<std::pair<int, std::string>> names;  // (pid, thread/async/counter name)
  std::set<std::string> labels;
  int flows = 0;
  for (const auto& e : j["traceEvents"]) {
    const int pid = e.value("pid", -1);
    if (e["ph"] == "M" && e["name"] == "thread_name") names.insert({pid, e["args"]["name"]});
    if (e["ph"] == "b" || e["ph"] == "C") names.insert({pid, e["name"]});
    if (e["ph"] == "X") labels.insert(e["name"]);
    if (e.value("flow_in", false)) ++flows;
  }
  for (int g = 0; g < 8; ++g) {
    SCOPED_TRACE("GPU " + std::to_string(g));
    for (const char* n : {"CUs 0-15", "DMA engine 0", "tracker", "collective channel 0",
                          "remote updates", "tracker occupancy", "HBM gemm_read GB/s",
                          "HBM gemm_update GB/s", "HBM rs_update GB/s", "HBM stack 0 GB/s"}) {
      EXPECT_EQ(names.count({g, n}), 1u) << n;
    }
    const std::string link =
        "link gpu" + std::to_string(g) + " -> gpu" + std::to_string((g + 7) % 8);
    EXPECT_EQ(names.count({g, link + " GB/s"}), 1u) << link;
  }
  EXPECT_EQ(labels.count("trigger"), 1u);
  EXPECT_EQ(labels.count("AG step 0"), 1u);  // the ring all-gather after the fused RS
  EXPECT_GT(flows, 100);                     // tracker trigger -> DMA -> remote update arrows
}

TEST(TimelineRun, RecordingChangesNoResult) {
  const ConfigDoc doc = load_system_config("t3-ring-8", kConfigs);
  SublayerSpec s = tnlg_fc2();
  s.fold = false;
  const SublayerResult plain = run_sublayer(doc, s, Mode::kT3Mca, RunOptions{});
  EXPECT_EQ(plain.total_us, t3_mca().result.total_us);
  EXPECT_EQ(plain.dram_total, t3_mca().result.dram_total);
  EXPECT_EQ(plain.events, t3_mca().result.events);
}

TEST(TimelineRun, TheEventCapBoundsTheFile) {
  TimelineOptions o;
  o.max_events = 2000;
  o.counter_points = 2000;
  const Traced small = traced(Mode::kT3Mca, o);
  const auto j = nlohmann::json::parse(small.text);
  EXPECT_GT(j["otherData"]["dropped"].get<uint64_t>(), 0u);
  EXPECT_LT(small.text.size(), t3_mca().text.size() / 4);
  EXPECT_TRUE(check_timeline(j).empty());
}

}  // namespace
}  // namespace t3sim::system
