// The frozen machines (tests/fixtures/systems) the property suites run on, and the test-name
// suffix gtest gives each: INSTANTIATE_TEST_SUITE_P(FrozenMachines, Suite, kFrozenMachines,
// machine_param_name).
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace t3sim::testing {

inline const auto kFrozenMachines =
    ::testing::Values("t3-ring-8", "dgx-a100", "dgx-h100", "mi300x-8");

// "dgx-a100" -> "dgx_a100": gtest names allow no '-'.
inline std::string machine_param_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string n = info.param;
  for (char& ch : n) {
    if (ch == '-') ch = '_';
  }
  return n;
}

}  // namespace t3sim::testing
