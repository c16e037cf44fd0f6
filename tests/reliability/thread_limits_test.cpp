// Thread counts and result writers: --jobs and --threads outside [0|1, 256] are usage errors
// naming the flag and the range (100000 threads used to abort while starting them), and a result
// row that cannot be written stops run_parallel with the error instead of std::terminate.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "cli/common.h"
#include "sim/errors.h"
#include "studies/parallel.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

using nlohmann::json;
namespace po = boost::program_options;

// ---- a result that cannot be written -----------------------------------------------------------

TEST(Parallel, AFailingResultWriterStopsTheRunInsteadOfAborting) {
  for (const unsigned threads : {1u, 4u}) {
    std::atomic<int> ran{0};
    EXPECT_TRUE(rejects<ConfigError>(
        [&] {
          studies::run_parallel(
              100, threads, [&](size_t) { ++ran; },
              [](size_t) { throw ConfigError("rows.csv", "", "cannot append the row"); });
        },
        "rows.csv"));
    EXPECT_LE(ran.load(), static_cast<int>(threads));  // each worker stops at its first row
  }
}

// ---- thread counts ------------------------------------------------------------------------------

TEST(ThreadLimits, JobsAndThreadsOutOfRangeAreUsageErrors) {
  const cli::Env env = fixtures_env();
  for (const char* jobs : {"-1", "100000"}) {
    EXPECT_THROW(
        cli::cmd_sweep({"configs/sweeps/tiny.json", "--out", "x.csv", "--jobs", jobs}, env),
        po::error);
    EXPECT_THROW(cli::cmd_reproduce({"--jobs", jobs}, env), po::error);
  }
  EXPECT_THROW(cli::cmd_validate({"--threads", "100000"}, env), po::error);
  try {
    cli::cmd_validate({"--threads", "100000"}, env);
  } catch (const po::error& e) {
    EXPECT_NE(std::string(e.what()).find("--threads"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[1, 256]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::reliability
