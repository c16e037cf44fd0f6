// Bad input that used to be reported as an internal error (exit 1), now a ConfigError (exit 2)
// naming the file or flag and the JSON pointer: a system's "gpus" missing or a string (also through
// --set gpus=), a CU collective wider than the GPU (a "cu-pool" failure at run time), a number
// beyond a double, and an --out folder that is an existing file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/common.h"
#include "models/system/system.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "sim/json_file.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("t3sim_bad_input_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// ---- the system's "gpus" and CUs --------------------------------------------------------------

TEST(SystemInputs, GpusMissingOrAStringIsAConfigError) {
  ConfigDoc doc = ring8();
  doc.root.erase("gpus");
  EXPECT_TRUE(
      rejects<ConfigError>([&] { system::system_gpus(doc); }, "missing required key 'gpus'"));
  EXPECT_EQ(pointer_of([] { system::system_gpus(ring8({"gpus=eight"})); }), "/gpus");
  EXPECT_EQ(pointer_of([] { system::system_gpus(ring8({"gpus="})); }), "/gpus");
  EXPECT_EQ(system::system_gpus(ring8()), 8);
  const cli::Env env = fixtures_env();
  for (const char* cmd : {"sublayer", "replay"}) {
    const cli::Args args =
        std::string(cmd) == "sublayer"
            ? cli::Args{"--system", "t3-ring-8", "--model",    "t-nlg", "--sublayer",
                        "fc2",      "--mode",    "sequential", "--set", "gpus="}
            : cli::Args{"--trace",  std::string(T3SIM_SOURCE_DIR) + "/traces/samples/tiny.json",
                        "--system", "t3-ring-8",
                        "--mode",   "sequential",
                        "--set",    "gpus=\"8\""};
    EXPECT_EQ(pointer_of([&] {
                std::string(cmd) == "sublayer" ? cli::cmd_sublayer(args, env)
                                               : cli::cmd_replay(args, env);
              }),
              "/gpus")
        << cmd;
  }
}

TEST(SystemInputs, ChannelsBeyondTheCusAreRejectedAtBind) {
  EXPECT_EQ(pointer_of([] { studies::check_system(ring8({"gpu.cus=8"})); }),
            "/collectives/channels");
  EXPECT_TRUE(rejects<ConfigError>([] { studies::check_system(ring8({"gpu.cus=8"})); },
                                   "collectives.channels is 16 but gpu.cus is 8"));
  EXPECT_NO_THROW(studies::check_system(ring8({"gpu.cus=16"})));
}

// ---- numbers, folders ---------------------------------------------------------------------------

TEST(NumberLimits, ANumberBeyondADoubleNamesItsPointer) {
  const fs::path d = scratch("number");
  std::ofstream(d / "big.json") << R"({"kind": "system", "gpus": 1e400})";
  EXPECT_EQ(pointer_of([&] { read_json_file(d / "big.json"); }), "/gpus");
  EXPECT_EQ(pointer_of([&] { load_config(d / "big.json"); }), "/gpus");
  fs::remove_all(d);
}

TEST(OutputFolders, AFileWhereAFolderIsNeededIsAConfigError) {
  const fs::path d = scratch("out");
  std::ofstream(d / "file") << "keep";
  EXPECT_TRUE(
      rejects<ConfigError>([&] { cli::check_output_dir("--out", d / "file"); }, "--out: '"));
  EXPECT_NO_THROW(cli::check_output_dir("--out", d));
  EXPECT_NO_THROW(cli::check_output_dir("--out", d / "new"));
  EXPECT_TRUE(rejects<ConfigError>(
      [&] {
        cli::cmd_reproduce({"--out", (d / "file").string()}, fixtures_env());
      },
      "is not a folder"));
  EXPECT_EQ(fs::file_size(d / "file"), 4u);  // untouched
  fs::remove_all(d);
}

}  // namespace
}  // namespace t3sim::reliability
