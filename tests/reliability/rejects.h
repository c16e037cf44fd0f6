// Test helpers of the reliability suite: the input-error assertion (the right exception type and a
// message that names the problem) and the Env of the source tree's configs/. A hang is caught by
// ctest's timeout, not by timing the call here (no timing assertions in tests).
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <typeinfo>

#include "cli/commands.h"

namespace t3sim::reliability {

inline cli::Env source_env() {
  return cli::Env{std::filesystem::path(T3SIM_SOURCE_DIR) / "configs", T3SIM_SOURCE_DIR, false};
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

}  // namespace t3sim::reliability
