// Tests of the validation sets (studies/validation/validation_sets.h): CSV loaders reject malformed
// rows with a one-line "FILE: line N: ..." error, the error statistics on fixed inputs, the scalar
// fit recovering a known GEMM efficiency from synthetic rows, and the stored tolerances file.
#include "studies/validation/validation_sets.h"

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "models/system/system.h"
#include "sim/errors.h"
#include "tests/support/fixtures.h"

namespace t3sim::validation {
namespace {

namespace fs = std::filesystem;

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path p = fs::path(::testing::TempDir()) / name;
  std::ofstream(p) << text;
  return p;
}

// Expects `fn` to throw ConfigError whose one-line message names the file and the line.
template <class Fn>
void expect_row_error(Fn fn, const fs::path& file, int line, const std::string& part) {
  try {
    fn();
    FAIL() << "no error for " << file;
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("line " + std::to_string(line)), std::string::npos) << msg;
    EXPECT_NE(msg.find(part), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(ValidationCsv, LoadsBothGemmLayouts) {
  const auto xla =
      write_temp("xla.csv", "# c\nb,m,n,k,bf16_tflops,fp32_tflops\n2,64,32,16,1.5,0.5\n");
  const auto pts = load_gemm_csv(xla);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].line, 3);
  EXPECT_EQ(pts[0].batch, 2u);
  EXPECT_EQ(pts[0].m, 64u);
  EXPECT_DOUBLE_EQ(pts[0].tflops, 1.5);
  const auto bench =
      write_temp("bench.csv", "dtype,m,n,k,median_us,tflops\r\nfp16,8,8,8,1.0,2.0\r\n");
  const auto b = load_gemm_csv(bench);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].dtype, "fp16");
  EXPECT_DOUBLE_EQ(b[0].tflops, 2.0);
}

TEST(ValidationCsv, RejectsMalformedRows) {
  const std::string h = "b,m,n,k,bf16_tflops,fp32_tflops\n";
  const auto few = write_temp("few.csv", h + "1,2,3,4,5,6\n1,2,3,4,5\n");
  expect_row_error([&] { load_gemm_csv(few); }, few, 3, "expected 6 fields, got 5");
  const auto word = write_temp("word.csv", "#\n" + h + "1,x,3,4,5,6\n");
  expect_row_error([&] { load_gemm_csv(word); }, word, 3, "m 'x'");
  const auto neg = write_temp("neg.csv", h + "1,2,3,4,-5,6\n");
  expect_row_error([&] { load_gemm_csv(neg); }, neg, 2, "bf16_tflops");
  const auto zero = write_temp("zero.csv", h + "1,0,3,4,5,6\n");
  expect_row_error([&] { load_gemm_csv(zero); }, zero, 2, "m 0");
  const auto head = write_temp("head.csv", "# x\nsize,time\n1,2\n");
  expect_row_error([&] { load_collective_csv(head); }, head, 2, "unknown header");
  // A file named by mistake (a private one) is refused without echoing its first line.
  const auto secret = write_temp("secret.csv", "root:s3cr3t-hash:19000:0:99999:7:::\n");
  try {
    load_gemm_csv(secret);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown header"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("s3cr3t"), std::string::npos) << e.what();
  }
  const auto coll =
      write_temp("coll.csv", "size_bytes,time_us,algbw_gbps,busbw_gbps\n1024,1.0,2.0,3.5x\n");
  expect_row_error([&] { load_collective_csv(coll); }, coll, 2, "busbw_gbps");
  expect_row_error([&] { load_collective_csv(coll); }, coll, 2, "fix the row or delete it");
  const auto hbm = write_temp("hbm.csv", "pattern,bytes,median_us,gbps\nscan,1024,1.0,2.0\n");
  expect_row_error([&] { load_hbm_csv(hbm); }, hbm, 2, "pattern 'scan'");
  const auto mamf =
      write_temp("mamf.csv",
                 "accelerator,mamf_tflops,spec_tflops,efficiency_pct,best_m,best_n,best_k,torch\n"
                 "X,1,2,3,4,5\n");
  expect_row_error([&] { load_mamf_csv(mamf); }, mamf, 2, "expected 8 fields");
}

TEST(ValidationCsv, StoredSetsLoad) {
  const fs::path v = fs::path(T3SIM_SOURCE_DIR) / "validation";
  EXPECT_EQ(load_gemm_csv(v / "gemm/h100_xla_bf16.csv").size(), 14u);
  EXPECT_EQ(load_mamf_csv(v / "gemm/mamf.csv").size(), 7u);
  EXPECT_EQ(load_collective_csv(v / "collectives/a100_8gpu_allreduce.csv").size(), 20u);
  EXPECT_EQ(load_collective_csv(v / "collectives/p4de_2node_allreduce.csv").size(), 11u);
}

TEST(ValidationCsv, ContentionRowsAreJudgedAgainstTheFilesOwnControlRow) {
  const std::string head =
      "red_blocks,red_sms,m,n,k,dtype,red_bytes,gemm_alone_us,red_alone_us,gemm_together_us,"
      "red_together_us,together_us,gemm_slowdown,red_slowdown,speedup,ideal_speedup\n";
  const fs::path f =
      write_temp("contention.csv", "# gpu=test\n" + head +
                                       "0,0,64,32,16,bf16,1024,100,0,110,0,110,1.1,1,1,1\n"
                                       "4,4,64,32,16,bf16,1024,100,50,132,60,140,1.32,1.2,1,1\n");
  const std::vector<SharingPoint> pts = load_contention_csv(f);
  ASSERT_EQ(pts.size(), 1u);  // the control row is not a point
  EXPECT_EQ(pts[0].sms, 4u);
  EXPECT_DOUBLE_EQ(pts[0].hold_us, 60.0);
  EXPECT_NEAR(pts[0].slowdown_pct, 20.0, 1e-9);  // 132 / 110, not 132 / 100
  const fs::path bad =
      write_temp("contention_bad.csv", head + "4,4,64,32,16,bf16,1024,100,50,132,60,140,1,1,1,1\n");
  expect_row_error([&] { load_contention_csv(bad); }, bad, 2, "before the row with red_sms 0");
}

TEST(ValidationCsv, InterleavedContentionRowsUseTheirOwnSlowdown) {
  // With the clock columns the program timed alone and together in one clock state: each row's
  // gemm_slowdown stands, whatever the control row's together time.
  const std::string head =
      "red_blocks,red_sms,m,n,k,dtype,red_bytes,gemm_alone_us,red_alone_us,gemm_together_us,"
      "red_together_us,together_us,gemm_slowdown,red_slowdown,speedup,ideal_speedup,"
      "gemm_alone_sm_mhz,red_alone_sm_mhz,together_sm_mhz\n";
  const fs::path f = write_temp("contention_abba.csv",
                                head +
                                    "0,0,64,32,16,bf16,1024,100,0,120,0,120,1.2,1,1,1,1500,0,1400\n"
                                    "4,4,64,32,16,bf16,1024,100,50,125,60,140,1.25,1.2,1,1,1900,"
                                    "1900,1900\n");
  const std::vector<SharingPoint> pts = load_contention_csv(f);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_NEAR(pts[0].slowdown_pct, 25.0, 1e-9);  // 1.25, not 125 / 120
}

TEST(ValidationCsv, HoldRowsGiveTheHoldTimeAndRefuseWatchdogRows) {
  const std::string head =
      "hold_blocks,hold_sms,hold,m,n,k,dtype,gemm_alone_us,gemm_held_us,gemm_slowdown,"
      "held_during_gemm_us,hold_timeouts,gemm_alone_sm_mhz,gemm_held_sm_mhz,held_smids\n";
  const fs::path f = write_temp("hold.csv", "# gpu=test\n" + head +
                                                "4,4,end,64,32,16,bf16,100,130,1.3,900,0,1980,"
                                                "1980,1;3;5;7\n"
                                                "16,16,100,64,32,16,bf16,100,110,1.1,96.5,0,1980,"
                                                "1980,0;2\n");
  const std::vector<SharingPoint> pts = load_hold_csv(f);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].kind, "hold");
  EXPECT_EQ(pts[0].sms, 4u);
  EXPECT_DOUBLE_EQ(pts[0].hold_us, 0.0);  // "end": the whole run
  EXPECT_NEAR(pts[0].slowdown_pct, 30.0, 1e-9);
  EXPECT_DOUBLE_EQ(pts[1].hold_us, 96.5);  // the measured overlap, not the nominal 100 us
  EXPECT_DOUBLE_EQ(pts[0].alone_mhz, 1980.0);
  EXPECT_DOUBLE_EQ(steady_clock_mhz(pts[0]), 1980.0);  // same clock alone and held
  SharingPoint moved = pts[0];
  moved.held_mhz = 1700;  // the held run was power-limited: the power model runs
  EXPECT_DOUBLE_EQ(steady_clock_mhz(moved), 0.0);
  moved.held_mhz = 1950;  // within 2 %
  EXPECT_DOUBLE_EQ(steady_clock_mhz(moved), 1980.0);
  const fs::path bad = write_temp(
      "hold_bad.csv", head + "4,4,end,64,32,16,bf16,100,20100,201,20000,4,1980,1980,1\n");
  expect_row_error([&] { load_hold_csv(bad); }, bad, 2, "watchdog");
}

TEST(ValidationCsv, ConcurrencyRowsKeepQuotedCommasAndSkipUncountedKernels) {
  const fs::path f = write_temp(
      "concurrency.csv",
      "m,n,k,variant,background_kind,background_ctas,sleep_ns,gemm_us_median,slowdown_pct,"
      "background_GBps_rw\n"
      "64,64,64,\"alone\",none,0,0,10.0,0.0,0\n"
      "64,64,64,\"spin kernel, 16 CTAs\",spin,16,0,14.0,40.0,0\n"
      "64,64,64,\"memcpy, driver\",d2d-memcpy,-1,0,11.0,10.0,2000\n");
  std::vector<std::string> left_out;
  const std::vector<SharingPoint> pts = load_concurrency_csv(f, &left_out);
  ASSERT_EQ(pts.size(), 1u);
  ASSERT_EQ(left_out.size(), 1u);  // the driver's memcpy: said, not dropped silently
  EXPECT_NE(left_out[0].find("d2d-memcpy (line 4)"), std::string::npos) << left_out[0];
  EXPECT_EQ(pts[0].sms, 16u);
  EXPECT_DOUBLE_EQ(pts[0].hold_us, 0.0);  // held for the whole run
  EXPECT_DOUBLE_EQ(pts[0].slowdown_pct, 40.0);
}

TEST(ValidationCsv, NsightRowsGiveDramReadBytes) {
  const std::string head =
      "m,n,k,kernel,grid_ctas,time_us,dram_read_MB,dram_write_MB,dram_read_over_compulsory,"
      "dram_write_over_output,l2_sector_hit_pct,l2_read_hit_pct,l2_write_hit_pct,dram_GBps,"
      "dram_pct_of_peak,sm_throughput_pct,sm_clock_MHz,l2_traffic_MB,smem_per_cta_KB,"
      "regs_per_thread,tflops\n";
  const fs::path f = write_temp(
      "ncu.csv", head + "64,32,16,k,132,1.0,2.5,0.1,1.2,1,90,90,100,1,1,1,1600,3,100,168,1\n");
  const std::vector<GemmMemoryPoint> pts = load_gemm_memory_csv(f);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].m, 64u);
  EXPECT_DOUBLE_EQ(pts[0].read_mb, 2.5);
  const fs::path bad = write_temp(
      "ncu_bad.csv", head + "0,32,16,k,132,1.0,2.5,0.1,1.2,1,90,90,100,1,1,1,1,3,1,1,1\n");
  expect_row_error([&] { load_gemm_memory_csv(bad); }, bad, 2, "must be positive");
}

TEST(ValidationStats, MedianAndMaxOnFixedInputs) {
  EXPECT_DOUBLE_EQ(pct_error(110, 100), 10.0);
  EXPECT_DOUBLE_EQ(pct_error(45, 50), -10.0);
  EXPECT_THROW(pct_error(1, 0), ModelError);
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0.0);
  const ErrorStats s = error_stats({-10, 5, 20, -1});
  EXPECT_EQ(s.points, 4u);
  EXPECT_DOUBLE_EQ(s.median_abs_pct, 7.5);
  EXPECT_DOUBLE_EQ(s.max_abs_pct, 20.0);
  const ErrorStats odd = error_stats({-30, 2, 4});
  EXPECT_DOUBLE_EQ(odd.median_abs_pct, 4.0);
  EXPECT_DOUBLE_EQ(odd.max_abs_pct, 30.0);
}

TEST(ValidationFit, FitsAKnownQuadraticMinimum) {
  // |errors| = |x - 0.437| * 100: the grid finds 0.44, the refinement 0.437.
  FitOptions o;
  const FitResult r =
      fit_scalar(0.9, o, [](double x) { return std::vector<double>{100 * (x - 0.437)}; });
  EXPECT_DOUBLE_EQ(r.value, 0.437);
  EXPECT_NEAR(r.after.median_abs_pct, 0.0, 1e-9);
  EXPECT_NEAR(r.before.median_abs_pct, 46.3, 1e-9);
}

ConfigDoc h100() { return system::load_system_config("dgx-h100", t3sim::testing::fixtures_dir()); }

TEST(ValidationFit, RecoversAKnownGemmEfficiency) {
  // Synthetic measurements: the simulator itself at efficiency 0.7, on shapes whose tiles are
  // compute-bound (1024^3 picks small tiles limited by L2 bandwidth, not by efficiency).
  const ConfigDoc truth = with_value(h100(), "gpu.efficiency", 0.7);
  std::vector<GemmPoint> pts;
  for (const auto& [m, n, k] :
       {std::array<uint64_t, 3>{2048, 2048, 2048}, {1024, 2048, 4096}, {4096, 2048, 1024}}) {
    GemmPoint p;
    p.m = m, p.n = n, p.k = k;
    p.tflops = sim_gemm_tflops(truth, m, n, k);
    pts.push_back(p);
  }
  const ConfigDoc base = with_value(h100(), "gpu.efficiency", 0.9);
  FitOptions o;
  o.lo = 0.5;
  o.grid_step = 0.05;
  o.golden_iterations = 8;
  const FitResult r = fit_scalar(
      0.9, o, [&](double e) { return gemm_errors(with_value(base, "gpu.efficiency", e), pts, 2); });
  EXPECT_NEAR(r.value, 0.7, 0.0051);
  EXPECT_LT(r.after.median_abs_pct, 1.0);
  EXPECT_GT(r.before.median_abs_pct, 10.0);
}

TEST(ValidationSim, GemmIsRepeatableInOneProcess) {
  const ConfigDoc doc = h100();
  const double first = sim_gemm_tflops(doc, 1024, 1024, 1024);
  for (int i = 0; i < 3; ++i) sim_gemm_tflops(doc, 2048, 512, 256);
  EXPECT_DOUBLE_EQ(sim_gemm_tflops(doc, 1024, 1024, 1024), first);
}

TEST(ValidationTolerances, StoredFileCoversTheExperiments) {
  const ToleranceFile t =
      load_tolerances(fs::path(T3SIM_SOURCE_DIR) / "validation/tolerances.json");
  for (const char* name : {"h100-gemm-xla", "gemm-mamf", "a100-allreduce", "p4de-allreduce",
                           "measured-gemm", "measured-hbm"}) {
    ASSERT_EQ(t.experiments.count(name), 1u) << name;
    EXPECT_FALSE(t.experiments.at(name).source.empty());
  }
  EXPECT_DOUBLE_EQ(t.experiments.at("h100-gemm-xla").median_abs_pct, 15.0);
  EXPECT_DOUBLE_EQ(t.experiments.at("a100-allreduce").median_abs_pct, 10.0);
  EXPECT_EQ(t.machine_systems.at("h100-sxm"), "dgx-h100");
  const auto bad =
      write_temp("tol.json", R"({"experiments": {"x": {"median_abs_pct": 0, "source": "s"}}})");
  EXPECT_THROW(load_tolerances(bad), ConfigError);
}

}  // namespace
}  // namespace t3sim::validation
