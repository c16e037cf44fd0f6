// t3-nvls: T3 whose reduce-scatter is NVLink SHARP's in-switch reduction (models/t3 NVLS plan,
// models/fabric/switch_reduction.h), on the frozen dgx-h100 of tests/fixtures. Bytes are
// conserved (each GPU's copy of every tile goes up once, each reduced tile comes down once and is
// written once at its owner, with no NMC UPDATE), the reduction is exact (one copy per GPU and
// tile, N copies per reduction; the run itself fails unless every owned tile lands with all N
// contributions), the run lies between its bounds (no faster than the GEMM alone, no slower than
// sequential), its timeline shows the switch's reductions, and a switch that cannot reduce is
// refused.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "tests/support/fixtures.h"
#include "tests/support/scratch_dir.h"

namespace t3sim::system {
namespace {

using common::TrafficClass;

constexpr uint64_t kGpus = 8;

const ConfigDoc& dgx_h100() {
  static const ConfigDoc doc = load_system_config("dgx-h100", t3sim::testing::fixtures_dir());
  return doc;
}

SublayerSpec small_fc() {
  SublayerSpec s;
  s.shape = {1024, 3072, 1536};
  return s;
}

uint64_t dram(const SublayerResult& r, TrafficClass c) {
  return r.dram_bytes[static_cast<size_t>(c)];
}

// The stat `name` of the fabric's in-switch reduction service.
uint64_t reduction_stat(const nlohmann::ordered_json& j, const std::string& name) {
  if (!j.is_object()) return 0;
  for (const auto& [k, v] : j.items()) {
    if (k == "switch_reductions") return v.at(name).at("value").get<uint64_t>();
    if (const uint64_t x = reduction_stat(v, name); x != 0) return x;
  }
  return 0;
}

TEST(T3Nvls, EveryTileGoesUpOncePerGpuAndDownOnce) {
  SublayerSpec s = small_fc();
  s.include_ag = false;
  RunOptions opts;
  opts.stats = true;
  SublayerResult r;
  ASSERT_NO_THROW(r = run_sublayer(dgx_h100(), s, Mode::kT3Nvls, opts));
  EXPECT_FALSE(r.folded);  // asked to fold, it runs every GPU
  const uint64_t out = output_bytes(s);
  EXPECT_EQ(r.link_bytes, (kGpus + 1) * out);                 // N copies up, one reduced copy down
  EXPECT_EQ(dram(r, TrafficClass::kGemmWrite), kGpus * out);  // each GPU's partial tiles
  EXPECT_EQ(dram(r, TrafficClass::kRsRead), kGpus * out);     // read for the switch
  EXPECT_EQ(dram(r, TrafficClass::kRsWrite), out);            // the reduced tiles, once
  EXPECT_EQ(dram(r, TrafficClass::kGemmUpdate) + dram(r, TrafficClass::kRsUpdate), 0u);
  const auto& stats = r.stats["stats"];
  const uint64_t reductions = reduction_stat(stats, "reductions");
  EXPECT_GT(reductions, 0u);
  EXPECT_EQ(reduction_stat(stats, "contributions"), kGpus * reductions);
  EXPECT_EQ(reduction_stat(stats, "bytes_in"), kGpus * out);
  EXPECT_EQ(reduction_stat(stats, "bytes_out"), out);
  // One trigger per GPU and tile (each tracker checks its entries fire once), and every tile
  // is reduced in whole DMA chunks.
  ASSERT_GT(r.tracker_triggers, 0u);
  EXPECT_EQ(r.tracker_triggers % kGpus, 0u);
  EXPECT_EQ(reductions % (r.tracker_triggers / kGpus), 0u);
}

TEST(T3Nvls, LiesBetweenTheGemmAloneAndSequential) {
  const SublayerResult nvls = run_sublayer(dgx_h100(), small_fc(), Mode::kT3Nvls);
  const SublayerResult seq = run_sublayer(dgx_h100(), small_fc(), Mode::kSequential);
  EXPECT_GE(nvls.rs_us, seq.gemm_us);  // the reduce-scatter waits for the last tile
  EXPECT_GE(nvls.gemm_us, seq.gemm_us);
  EXPECT_LE(nvls.total_us, seq.total_us);
  EXPECT_GE(nvls.total_us, nvls.rs_us + nvls.ag_us - 1e-9);
}

TEST(T3Nvls, TimelineShowsTheSwitchReductions) {
  const t3sim::testing::ScratchDir dir("t3_nvls");
  RunOptions opts;
  opts.trace_path = (dir / "trace.json").string();
  run_sublayer(dgx_h100(), small_fc(), Mode::kT3Nvls, opts);
  std::ifstream in(opts.trace_path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("nvswitch reductions"), std::string::npos);
  EXPECT_NE(text.find("reduce x8 -> GPU"), std::string::npos);
  EXPECT_NE(text.find("reduced in the switch (x8)"), std::string::npos);
}

TEST(T3Nvls, NeedsASwitchThatReduces) {
  const ConfigDoc a100 = load_system_config("dgx-a100", t3sim::testing::fixtures_dir());
  EXPECT_THROW(run_sublayer(a100, small_fc(), Mode::kT3Nvls), ConfigError);  // NVSwitch gen 2
  const ConfigDoc ring = load_system_config("t3-ring-8", t3sim::testing::fixtures_dir());
  EXPECT_THROW(run_sublayer(ring, small_fc(), Mode::kT3Nvls), ConfigError);
}

}  // namespace
}  // namespace t3sim::system
