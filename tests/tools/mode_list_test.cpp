// The mode lists printed in help and errors follow the mode table: system::mode_list() names every
// row in table order.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace t3sim::system
