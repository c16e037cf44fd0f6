// Atomic outputs: when writing a result file fails, sim/atomic_file.h leaves
// the old file complete and untouched, throws ConfigError naming the path, and leaves no temporary
// file. Failures are simulated by a read-only folder (skipped when the process may write there
// anyway, e.g. as root) and, root-proof, by a folder sitting where the temporary file goes.
#include "sim/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/errors.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOld = "{\"old\": \"complete result of the previous run\"}\n";

class AtomicOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("t3sim_atomic_out_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write_file_atomic(dir_ / "result.json", kOld);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all);
    fs::remove_all(dir_);
  }
  std::string content() const {
    std::ifstream in(dir_ / "result.json", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  bool only_result_left() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().filename() != "result.json") return false;
      ++n;
    }
    return n == 1;
  }
  fs::path dir_;
};

TEST_F(AtomicOutput, ReadOnlyFolderKeepsTheOldFile) {
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  if (::access(dir_.c_str(), W_OK) == 0) {
    GTEST_SKIP() << "this process can write into a read-only folder (root); "
                    "BlockedTemporaryFileKeepsTheOldFile covers the failure instead";
  }
  try {
    write_file_atomic(dir_ / "result.json", "{\"new\": 1}\n");
    FAIL() << "wrote into a read-only folder";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("result.json"), std::string::npos) << e.what();
  }
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_EQ(content(), kOld);
  EXPECT_TRUE(only_result_left());
}

TEST_F(AtomicOutput, BlockedTemporaryFileKeepsTheOldFile) {
  // write_file_atomic writes "<path>.tmp.<pid>" first: a non-empty folder there makes that fail.
  const fs::path tmp = dir_ / ("result.json.tmp." + std::to_string(::getpid()));
  fs::create_directories(tmp / "occupied");
  EXPECT_THROW(write_file_atomic(dir_ / "result.json", "{\"new\": 1}\n"), ConfigError);
  EXPECT_EQ(content(), kOld);
  fs::remove_all(tmp);
  EXPECT_TRUE(only_result_left());
}

TEST_F(AtomicOutput, SuccessfulRewriteReplacesTheWholeFile) {
  write_file_atomic(dir_ / "result.json", "{}");
  EXPECT_EQ(content(), "{}");
  EXPECT_TRUE(only_result_left());
}

}  // namespace
}  // namespace t3sim
