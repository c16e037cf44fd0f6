// Contracts of sim/atomic_file.h: the file ends up with exactly the new content, replaces an old
// file, creates missing folders, leaves no temporary file behind, and reports failures as
// ModelError (also without leaving a temporary file).
#include "sim/atomic_file.h"

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

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("t3sim_atomic_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  int entries() const {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(dir_)) ++n;
    return n;
  }
  bool any_tmp() const {
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (e.path().filename().string().find(".tmp") != std::string::npos) return true;
    }
    return false;
  }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesTheContent) {
  const std::string content = std::string("{\"a\": 1}\n") + std::string(1, '\0') + "binary";
  write_file_atomic(dir_ / "out.json", content);
  EXPECT_EQ(read(dir_ / "out.json"), content);
  EXPECT_EQ(entries(), 1);
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, ReplacesAnOldFile) {
  write_file_atomic(dir_ / "out.json", "a much longer old content that must disappear entirely");
  write_file_atomic(dir_ / "out.json", "new");
  EXPECT_EQ(read(dir_ / "out.json"), "new");
  EXPECT_EQ(entries(), 1);
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, CreatesMissingFolders) {
  write_file_atomic(dir_ / "a" / "b" / "stats.json", "{}");
  EXPECT_EQ(read(dir_ / "a" / "b" / "stats.json"), "{}");
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, EmptyContentMakesAnEmptyFile) {
  write_file_atomic(dir_ / "empty", "");
  EXPECT_TRUE(fs::exists(dir_ / "empty"));
  EXPECT_EQ(fs::file_size(dir_ / "empty"), 0U);
}

TEST_F(AtomicFile, ReplacingADirectoryFailsCleanly) {
  fs::create_directories(dir_ / "taken" / "child");
  try {
    write_file_atomic(dir_ / "taken", "x");
    FAIL() << "overwrote a directory";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("taken"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir_ / "taken" / "child"));
  EXPECT_FALSE(any_tmp());
}

TEST_F(AtomicFile, AFileWhereAFolderShouldBeFailsCleanly) {
  write_file_atomic(dir_ / "plain", "x");
  EXPECT_THROW(write_file_atomic(dir_ / "plain" / "inner.json", "y"), ModelError);
  EXPECT_EQ(read(dir_ / "plain"), "x");
  EXPECT_FALSE(any_tmp());
}

}  // namespace
}  // namespace t3sim
