// Shared harness of the libFuzzer targets: the exception policy and small input helpers.
// Policy (project issue 10): the code under test may reject input only with ConfigError,
// UsageError or UnitError. Any other exception aborts with its type and message, so libFuzzer
// records the input as a crash; sanitizer reports and hangs (-timeout) are findings as well.
// A broken property (e.g. a round trip) is reported the same way through fuzz_fail().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>

#include <nlohmann/json.hpp>

#include "sim/errors.h"
#include "sim/units_parse.h"

namespace t3sim::fuzz {

[[noreturn]] inline void fuzz_fail(const std::string& what) {
  std::fprintf(stderr, "\n=== t3sim fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Runs `body`; the three input errors are the expected way to say "bad input".
template <typename F>
void expect_input_errors_only(const char* where, F&& body) {
  try {
    body();
  } catch (const ConfigError&) {
  } catch (const UsageError&) {
  } catch (const UnitError&) {
  } catch (const std::exception& e) {
    fuzz_fail(std::string(where) + ": escaped " + typeid(e).name() + ": " + e.what());
  } catch (...) {
    fuzz_fail(std::string(where) + ": escaped a non-std exception");
  }
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Deepest JSON nesting the file readers should accept (proposed limit, see the reliability tests:
// nlohmann's parser is iterative, but copying, dump() and the config resolver recurse, so a
// 100000-deep document overflows the stack). The targets skip deeper documents so that libFuzzer
// keeps exploring instead of re-finding that one crash; tests/reliability covers it.
constexpr int kMaxJsonDepth = 256;

// The JSON document in `text`, or nullopt when it is not JSON or nested deeper than
// kMaxJsonDepth (a file reader turns both into a ConfigError; the targets test what comes after).
inline std::optional<nlohmann::json> parse_json(std::string_view text) {
  bool too_deep = false;
  const nlohmann::json::parser_callback_t depth_limit =
      [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        too_deep = too_deep || depth > kMaxJsonDepth;
        return !too_deep;
      };
  nlohmann::json j = nlohmann::json::parse(text, depth_limit, /*allow_exceptions=*/false);
  if (j.is_discarded() || too_deep) return std::nullopt;
  return j;
}

inline std::string source_dir() { return T3SIM_SOURCE_DIR; }

}  // namespace t3sim::fuzz
