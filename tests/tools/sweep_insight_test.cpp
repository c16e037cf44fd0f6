// Inert sweep axes (studies/sweep_insight.h): an axis whose values leave every result
// unchanged is found from the result rows alone, one that changes any result in any group is
// not, and for a fabric axis the models name the limit that binds (dgx-h100's GPU links are capped
// by the NVSwitch port, so 450 and 900 GB/s links build the same fabric).
#include "studies/sweep_insight.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/config.h"
#include "tests/support/fixtures.h"

namespace t3sim::studies {
namespace {

const std::filesystem::path kSource = T3SIM_SOURCE_DIR;

Env env() { return Env{t3sim::testing::fixtures_dir(), kSource}; }

SweepSpec spec_of(const std::string& system, const std::string& axes) {
  const std::string text = R"({"kind": "sweep", "name": "t", "base": {"system": ")" + system +
                           R"(", "model": "mega-gpt2", "sublayer": "fc2", "mode": "sequential",
                           "tokens": 1024}, "axes": )" +
                           axes + "}";
  return read_sweep(env(), config_from_json(nlohmann::json::parse(text), "t.json"));
}

TEST(SweepInsight, FindsAnAxisThatChangesNoResult) {
  // axes: link bandwidth (2 values) x mode (2 values); the bandwidth changes nothing.
  const SweepSpec s = spec_of("dgx-h100", R"([
      {"path": "fabric.link.bandwidth", "values": ["450 GB/s", "900 GB/s"]},
      {"path": "mode", "values": ["sequential", "t3"]}])");
  const std::string csv =
      "index,fabric.link.bandwidth,mode,total_us,gemm_us,rs_exposed_us,ag_us,dram_total,"
      "link_bytes,events\n"
      "0,450 GB/s,sequential,10.000,5.000,3.000,2.000,100,50,7\n"
      "1,450 GB/s,t3,8.000,5.000,1.000,2.000,90,50,9\n"
      "2,900 GB/s,sequential,10.000,5.000,3.000,2.000,100,50,8\n"  // events may differ
      "3,900 GB/s,t3,8.000,5.000,1.000,2.000,90,50,9\n";
  const SweepResults r = read_sweep_results(csv, s, false);
  ASSERT_EQ(r.size(), 4u);
  const auto inert = inert_axes(s, r);
  ASSERT_EQ(inert.size(), 1u);
  EXPECT_EQ(inert[0].name, "fabric.link.bandwidth");
  const auto warnings = inert_axis_warnings(env(), s, r);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("fabric.switch.port_bandwidth = 450 GB/s"), std::string::npos)
      << warnings[0];
}

TEST(SweepInsight, AnAxisThatChangesOneGroupIsNotInert) {
  const SweepSpec s = spec_of("t3-ring-8", R"([
      {"path": "hbm.bandwidth", "values": ["1 TB/s", "2 TB/s"]},
      {"path": "mode", "values": ["sequential", "t3"]}])");
  const std::string jsonl =
      R"({"index":0,"total_us":10,"gemm_us":5,"rs_exposed_us":3,"ag_us":2,"dram_total":1,"link_bytes":1})"
      "\n"
      R"({"index":1,"total_us":8,"gemm_us":5,"rs_exposed_us":1,"ag_us":2,"dram_total":1,"link_bytes":1})"
      "\n"
      R"({"index":2,"total_us":10,"gemm_us":5,"rs_exposed_us":3,"ag_us":2,"dram_total":1,"link_bytes":1})"
      "\n"
      R"({"index":3,"total_us":7.5,"gemm_us":5,"rs_exposed_us":0.5,"ag_us":2,"dram_total":1,"link_bytes":1})"
      "\n";
  const SweepResults r = read_sweep_results(jsonl, s, true);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(inert_axes(s, r).empty());  // t3 got faster with HBM bandwidth
}

TEST(SweepInsight, BindingLimitIsSilentWhereTheFabricChanges) {
  const SweepSpec ring = spec_of("t3-ring-8", R"([
      {"path": "fabric.link.bandwidth", "values": ["75 GB/s", "150 GB/s"]}])");
  EXPECT_EQ(binding_limit(env(), ring, 0), "");  // a ring link is the link: it changes
  const SweepSpec hbm = spec_of("dgx-h100", R"([
      {"path": "hbm.bandwidth", "values": ["2 TB/s", "3 TB/s"]}])");
  EXPECT_EQ(binding_limit(env(), hbm, 0), "");  // not a fabric axis: the models cannot tell
}

}  // namespace
}  // namespace t3sim::studies
