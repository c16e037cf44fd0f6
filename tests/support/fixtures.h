// Where tests find their input configs. fixtures_dir() is tests/fixtures/: frozen copies of a few
// systems, the presets they extend and the model zoo, laid out as configs/ is, so that unit tests
// do not move when a shipped preset is recalibrated (tests/fixtures/README.md).
// shipped_configs_dir() is configs/ itself, for the tests that are about the shipped files (every
// preset binds and cites its sources, the zoo matches its reference) and for tests/regression; such
// a test starts with T3SIM_REQUIRE_SHIPPED_CONFIGS(), which skips it, saying why, in a tree without
// configs/.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>

namespace t3sim::testing {

inline std::filesystem::path fixtures_dir() {
  return std::filesystem::path(T3SIM_SOURCE_DIR) / "tests" / "fixtures";
}

inline std::filesystem::path shipped_configs_dir() {
  return std::filesystem::path(T3SIM_SOURCE_DIR) / "configs";
}

}  // namespace t3sim::testing

#define T3SIM_REQUIRE_SHIPPED_CONFIGS()                                                 \
  do {                                                                                  \
    if (!std::filesystem::is_directory(::t3sim::testing::shipped_configs_dir()))        \
      GTEST_SKIP() << "no configs/ in this tree: this test checks the shipped configs"; \
  } while (false)
