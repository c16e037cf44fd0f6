// Test helpers of the reliability suite: the input-error assertion (the right exception type, a
// message that names the problem, and no hang) and the Env of the source tree's configs/.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <typeinfo>

#include "cli/commands.h"

namespace t3sim::reliability {

// Rejecting bad input must be quick: a limit check, not a simulation that eventually fails.
constexpr std::chrono::seconds kMaxRejectTime{10};

inline cli::Env source_env() {
  return cli::Env{std::filesystem::path(T3SIM_SOURCE_DIR) / "configs", T3SIM_SOURCE_DIR, false};
}

// Success when `body` throws `Error` (or a subclass) whose message contains `needle` within
// kMaxRejectTime; any other outcome (no exception, another type, a message without `needle`) is
// a failure that says what happened.
template <typename Error, typename F>
::testing::AssertionResult rejects(F&& body, std::string_view needle) {
  const auto start = std::chrono::steady_clock::now();
  const auto slow = [&] { return std::chrono::steady_clock::now() - start > kMaxRejectTime; };
  try {
    body();
  } catch (const Error& e) {
    if (slow()) return ::testing::AssertionFailure() << "rejected, but slowly: " << e.what();
    if (std::string_view(e.what()).find(needle) == std::string_view::npos) {
      return ::testing::AssertionFailure()
             << "message does not mention '" << needle << "': " << e.what();
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw " << typeid(e).name() << " instead of "
                                         << typeid(Error).name() << ": " << e.what();
  }
  return ::testing::AssertionFailure() << "accepted; expected " << typeid(Error).name()
                                       << " mentioning '" << needle << "'";
}

}  // namespace t3sim::reliability
