// Inputs that used to give a silent wrong answer, now ConfigErrors (exit 2) naming the file or flag
// and the JSON pointer: GEMMs beyond the GPU model's counts (the never-finished sentinel printed as
// a time), sweeps whose point count overflows ("0 points"), collectives settings the sublayer runs
// would ignore, an experiment's paper numbers and (model, TP) pairs, and command-line integers that
// were wrapped ("--tp -8") or stray words that were dropped.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/common.h"
#include "models/system/gemm_limits.h"
#include "models/system/replay.h"
#include "models/workload/trace.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "sim/json_file.h"
#include "studies/experiment.h"
#include "studies/sweep_spec.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
namespace po = boost::program_options;

json gemm_trace(json shape) {
  return {{"version", 1},
          {"metadata", json::object()},
          {"ops", json::array({{{"id", "g"},
                                {"kind", "gemm"},
                                {"shape", std::move(shape)},
                                {"dtype", "fp16"},
                                {"stream", 0}}})}};
}

// ---- GEMMs beyond the model ---------------------------------------------------------------------

TEST(GemmLimits, TileCountsThatWouldWrapAreRejected) {
  const gpu::GpuSpec spec = system::system_gpu_spec(ring8());
  EXPECT_EQ(system::gemm_beyond_model(spec, {8192, 4096, 4096}, 2), "");
  // 2^11 x 2^10 tiles of 128: the model's bound of 2^21 work-groups, exactly.
  EXPECT_EQ(system::gemm_beyond_model(spec, {uint64_t{1} << 18, uint64_t{1} << 17, 4096}, 2), "");
  // 2^30 tiles fit 32 bits but would hold ~80 GB of per-tile state per GPU: refused.
  EXPECT_NE(system::gemm_beyond_model(spec, {uint64_t{1} << 22, uint64_t{1} << 22, 4096}, 2), "");
  // 2^39 rows: 2^32 tile rows of 128, which wrapped to 0 tiles and a Tick::max() "duration".
  EXPECT_NE(system::gemm_beyond_model(spec, {uint64_t{1} << 39, 4096, 4096}, 2), "");
  EXPECT_NE(system::gemm_beyond_model(spec, {4096, 4096, uint64_t{1} << 50}, 2), "");
  const uint64_t big = uint64_t{1} << 49;  // (2^49)^2 x 2 bytes wraps 64 bits
  EXPECT_NE(system::gemm_beyond_model(spec, {128, big, big}, 2), "");
}

TEST(GemmLimits, ReplayRejectsTheOpBeforeSimulating) {
  const workload::Trace t = workload::parse_trace(
      gemm_trace({{"m", int64_t{1} << 39}, {"n", 4096}, {"k", 4096}}), "big.json");
  EXPECT_TRUE(rejects<ConfigError>([&] { system::replay_trace(ring8(), t, "big.json"); },
                                   "big.json: /ops/0/shape: a GEMM of M x N x K = "));
  EXPECT_TRUE(rejects<ConfigError>([&] { system::replay_trace(ring8(), t, "big.json"); },
                                   "beyond the GPU model"));
}

TEST(GemmLimits, RowsTimesBatchMustFitATrace) {
  const json shape = {{"m", int64_t{1} << 40}, {"n", 64}, {"k", 64}, {"batch", int64_t{1} << 20}};
  EXPECT_EQ(pointer_of([&] { workload::parse_trace(gemm_trace(shape), "t.json"); }),
            "/ops/0/shape/batch");
}

// ---- sweeps -------------------------------------------------------------------------------------

TEST(SweepPoints, AProductBeyond64BitsSaturates) {
  studies::SweepSpec s;
  s.axes.resize(66);
  for (auto& a : s.axes) a.values.resize(2);  // 2^66 points
  EXPECT_EQ(s.points(), SIZE_MAX);
  s.axes.resize(3);
  EXPECT_EQ(s.points(), 8u);
}

TEST(SweepPoints, TooManyPointsNameTheAxis) {
  json axes = json::array();
  for (const char* path : {"tokens", "ar_cus", "chunks", "tp"}) {
    json values = json::array();
    for (int v = 1; v <= 1000; ++v) values.push_back(v);
    axes.push_back({{"path", path}, {"values", values}});
  }
  const json spec = {{"kind", "sweep"},
                     {"name", "huge"},
                     {"base", {{"system", "t3-ring-8"}, {"model", "t-nlg"}}},
                     {"axes", axes}};
  const ConfigDoc doc = config_from_json(spec, "huge.json", {fixtures_env().configs_dir});
  EXPECT_EQ(pointer_of([&] { studies::read_sweep(fixtures_env(), doc); }), "/axes/2");
  EXPECT_TRUE(rejects<ConfigError>([&] { studies::read_sweep(fixtures_env(), doc); },
                                   "make 1000000000 points"));
}

// ---- collectives settings the sublayer runs would ignore --------------------------------------

TEST(SublayerCollectives, NonRingAlgorithmOrDmaExecutorIsRejected) {
  EXPECT_NO_THROW(system::check_sublayer_collectives(ring8()));
  EXPECT_NO_THROW(system::check_sublayer_collectives(ring8({"collectives.algorithm=auto"})));
  EXPECT_EQ(pointer_of([] {
              system::check_sublayer_collectives(ring8({"collectives.algorithm=direct"}));
            }),
            "/collectives/algorithm");
  EXPECT_EQ(
      pointer_of([] { system::check_sublayer_collectives(ring8({"collectives.executor=dma"})); }),
      "/collectives/executor");
  system::SublayerSpec spec;
  spec.shape = {1024, 1024, 1024};
  EXPECT_TRUE(rejects<ConfigError>(
      [&] {
        system::run_sublayer(ring8({"collectives.executor=dma"}), spec, system::Mode::kSequential);
      },
      "set it to \"cu\""));
}

TEST(SublayerCollectives, ASweepAxisThatSetsThemIsRejectedUpFront) {
  const json spec = {
      {"kind", "sweep"},
      {"name", "exec"},
      {"base", {{"system", "t3-ring-8"}, {"model", "t-nlg"}}},
      {"axes", json::array({{{"path", "collectives.executor"}, {"values", {"cu", "dma"}}}})}};
  const ConfigDoc doc = config_from_json(spec, "exec.json", {fixtures_env().configs_dir});
  EXPECT_TRUE(rejects<ConfigError>([&] { studies::read_sweep(fixtures_env(), doc); },
                                   "collectives.executor"));
}

// ---- experiments --------------------------------------------------------------------------------

json paper_experiment() {
  return read_json_file(fixtures_env().configs_dir / "experiments" / "t3-paper.json");
}

std::string experiment_error(const json& e) {
  const ConfigDoc doc = config_from_json(e, "exp.json", {fixtures_env().configs_dir});
  return pointer_of([&] { studies::read_experiment(fixtures_env(), doc); });
}

TEST(ExperimentChecks, TheShippedExperimentPasses) {
  EXPECT_EQ(experiment_error(paper_experiment()), "<none>");
}

TEST(ExperimentChecks, PaperNumbersMustNameWhatTheReportCompares) {
  json e = paper_experiment();
  e["paper"]["fig16"]["t3-mac"] = {{"geomean", 1}};
  EXPECT_EQ(experiment_error(e), "/paper/fig16/t3-mac");
  e = paper_experiment();
  e["paper"]["fig16"]["t3"]["mean"] = 3;
  EXPECT_EQ(experiment_error(e), "/paper/fig16/t3/mean");
  e = paper_experiment();
  e["paper"]["fig6"]["cu32_x"] = 1.5;  // the experiment's Fig. 6 splits are 8 and 16
  EXPECT_EQ(experiment_error(e), "/paper/fig6/cu32_x");
  e = paper_experiment();
  e["paper"]["e2e"]["t3"]["training_geomean_pct"] = "7";
  EXPECT_EQ(experiment_error(e), "/paper/e2e/t3/training_geomean_pct");
  e = paper_experiment();
  e["paper"]["fig18"] = json::object();
  EXPECT_EQ(experiment_error(e), "/paper/fig18");
}

TEST(ExperimentChecks, UnknownModelOrBadTpIsRejected) {
  json e = paper_experiment();
  e["fig17"]["model"] = "t-nlgg";
  EXPECT_EQ(experiment_error(e), "/fig17/model");
  e = paper_experiment();
  e["fig17"]["tp"] = 3;  // does not divide T-NLG's hidden 4256
  EXPECT_EQ(experiment_error(e), "/fig17/tp");
  e = paper_experiment();
  e["fig17"]["tp"] = -8;
  EXPECT_EQ(experiment_error(e), "/fig17/tp");
  e = paper_experiment();
  e["fig16"]["tp"] = {8, 3};
  EXPECT_EQ(experiment_error(e), "/fig16/tp/1");
}

// ---- command-line integers ----------------------------------------------------------------------

TEST(CliIntegers, OnlyPlainIntegersInRange) {
  EXPECT_EQ(cli::parse_integer_option("8", 0, 4096), 8);
  EXPECT_EQ(cli::parse_integer_option("0", 0, 4096), 0);
  for (const char* bad :
       {"-8", "", "abc", "8x", " 8", "1e3", "+8", "4097", "99999999999999999999"}) {
    EXPECT_THROW(cli::parse_integer_option(bad, 0, 4096), po::error) << bad;
  }
}

TEST(CliIntegers, CommandsRejectNegativeHugeAndStrayArguments) {
  const cli::Env env = fixtures_env();
  const cli::Args sublayer = {"--system",   "t3-ring-8", "--model", "t-nlg",
                              "--sublayer", "fc2",       "--mode",  "sequential"};
  auto with = [&](std::vector<std::string> extra) {
    cli::Args a = sublayer;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  for (const cli::Args& args :
       {with({"--tp", "-8"}), with({"--tp=-8"}), with({"--tp", "x"}), with({"--tokens", "-1"}),
        with({"--ar-cus", "-1"}), with({"--chunks", "4294967297"})}) {
    EXPECT_THROW(cli::cmd_sublayer(args, env), po::error) << args.back();
  }
  EXPECT_TRUE(rejects<UsageError>([&] { cli::cmd_sublayer(with({"stray"}), env); },
                                  "unexpected argument 'stray'"));
  EXPECT_TRUE(rejects<UsageError>(
      [&] {
        cli::cmd_sweep({"configs/sweeps/tiny.json", "x", "--out", "x.csv"}, env);
      },
      "unexpected argument 'x'"));
}

}  // namespace
}  // namespace t3sim::reliability
