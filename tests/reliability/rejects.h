// Test helpers of the reliability suite: the input-error assertions (the right exception type and a
// message that names the problem; the pointer of a ConfigError), the Env of the frozen test inputs
// (tests/fixtures: systems, presets, models, the paper's experiment, laid out as configs/, so the
// suite runs in a tree without configs/) and its T3 machine. A hang is caught by ctest's timeout,
// not by timing the call here (no timing assertions in tests).
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "sim/config.h"
#include "sim/errors.h"
#include "tests/support/fixtures.h"

namespace t3sim::reliability {

inline cli::Env fixtures_env() {
  return cli::Env{testing::fixtures_dir(), T3SIM_SOURCE_DIR, false};
}

// Success when `body` throws `Error` (or a subclass) whose message contains `needle`; any other
// outcome (no exception, another type, a message without `needle`) is a failure that says what
// happened.
template <typename Error, typename F>
::testing::AssertionResult rejects(F&& body, std::string_view needle) {
  try {
    body();
  } catch (const Error& e) {
    if (std::string_view(e.what()).find(needle) == std::string_view::npos) {
      return ::testing::AssertionFailure()
             << "message does not mention '" << needle << "': " << e.what();
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw " << typeid(e).name() << " instead of "
                                         << typeid(Error).name() << ": " << e.what();
  }
  return ::testing::AssertionFailure()
         << "accepted; expected " << typeid(Error).name() << " mentioning '" << needle << "'";
}

// The pointer of the ConfigError `body` throws ("<none>" when it throws nothing).
template <typename F>
std::string pointer_of(F&& body) {
  try {
    body();
  } catch (const ConfigError& e) {
    return e.pointer();
  }
  return "<none>";
}

// The frozen T3 machine (tests/fixtures/systems/t3-ring-8.json) with `--set` overrides.
inline ConfigDoc ring8(const std::vector<std::string>& sets = {}) {
  return cli::load_system(fixtures_env(), "t3-ring-8", sets);
}

}  // namespace t3sim::reliability
