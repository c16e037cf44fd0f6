#include "sim/catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/errors.h"

namespace t3sim {
namespace {

namespace fs = std::filesystem;

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("t3sim_catalog_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "systems" / "sub.json");  // a folder, not an entry
    for (const char* name : {"dgx-h100", "dgx-a100", "mi210-4"}) touch(dir_ / "systems" / name);
    std::ofstream(dir_ / "systems" / "README.md") << "# not an entry\n";
    std::ofstream(dir_ / "elsewhere.json") << "{}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  static void touch(const fs::path& stem) { std::ofstream(stem.string() + ".json") << "{}\n"; }
  static std::string message_of(const Catalog& c, const std::string& input) {
    try {
      c.resolve(input);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(CatalogTest, NamesAreSortedJsonStems) {
  const Catalog c("system", dir_ / "systems", "--system");
  EXPECT_EQ(c.names(), (std::vector<std::string>{"dgx-a100", "dgx-h100", "mi210-4"}));
}

TEST_F(CatalogTest, ResolvesANameOrAPath) {
  const Catalog c("system", dir_ / "systems", "--system");
  EXPECT_EQ(c.resolve("dgx-a100"), dir_ / "systems" / "dgx-a100.json");
  EXPECT_EQ(c.resolve((dir_ / "elsewhere.json").string()), dir_ / "elsewhere.json");
}

TEST_F(CatalogTest, UnknownNameSuggestsTheNearestAndListsAll) {
  const Catalog c("system", dir_ / "systems", "--system");
  EXPECT_THROW(c.resolve("dgx-a10"), ConfigError);
  EXPECT_EQ(message_of(c, "dgx-a10"),
            "--system: unknown system 'dgx-a10' (did you mean 'dgx-a100'?); available: "
            "dgx-a100, dgx-h100, mi210-4; give a name from that list or the path of a file");
  EXPECT_EQ(message_of(c, "zzzzzzzzzzzz").find("did you mean"), std::string::npos);
}

TEST_F(CatalogTest, PathsAndFoldersAreNotNames) {
  const Catalog c("system", dir_ / "systems", "--system");
  EXPECT_THROW(c.resolve("../elsewhere"), ConfigError);  // not a plain name: must exist as a path
  EXPECT_THROW(c.resolve("sub"), ConfigError);           // sub.json is a folder
  EXPECT_THROW(c.resolve(""), ConfigError);
  EXPECT_THROW(c.resolve(std::string(5000, 'x')), ConfigError);  // too long for the OS
}

TEST_F(CatalogTest, MissingFolderSaysSo) {
  const Catalog c("model", dir_ / "models", "--model");
  EXPECT_TRUE(c.names().empty());
  EXPECT_NE(message_of(c, "gpt3").find("(none: " + (dir_ / "models").string() + " has no .json"),
            std::string::npos);
}

}  // namespace
}  // namespace t3sim
