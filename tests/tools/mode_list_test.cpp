// The hand-written mode lists follow the mode table: system::mode_list() names every row in table
// order, and docs/cli.md names every mode (its sublayer row lists them), so a new row of
// models/system/mode.cpp that the documentation misses fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/system/mode.h"

namespace t3sim::system {
namespace {

TEST(ModeList, JoinsEveryRowInTableOrder) {
  std::string expected;
  for (const auto& row : mode_table()) {
    expected += (expected.empty() ? "" : " | ") + std::string(row.name);
  }
  EXPECT_EQ(mode_list(" | "), expected);
}

TEST(ModeList, CliDocNamesEveryMode) {
  const std::filesystem::path doc = std::filesystem::path(T3SIM_SOURCE_DIR) / "docs" / "cli.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << doc;
  std::stringstream ss;
  ss << in.rdbuf();
  for (const auto& row : mode_table()) {
    EXPECT_NE(ss.str().find("`" + std::string(row.name) + "`"), std::string::npos)
        << "docs/cli.md does not name mode " << row.name;
  }
}

}  // namespace
}  // namespace t3sim::system
