// Shared harness of the libFuzzer targets: the exception policy and small input helpers.
// Policy: the code under test may reject input only with ConfigError,
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
#include "sim/json_file.h"
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

// The JSON document in `text`, or nullopt when it is not JSON or breaks sim/json_file.h's depth
// limit (a file reader turns both into a ConfigError; the targets test what comes after).
inline std::optional<nlohmann::json> parse_json(std::string_view text) {
  try {
    return try_parse_json(text, "fuzz.json", "");
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

inline std::string source_dir() { return T3SIM_SOURCE_DIR; }
// The frozen systems and presets of the unit tests (tests/fixtures/README.md), laid out as
// configs/.
inline std::string fixtures_dir() { return source_dir() + "/tests/fixtures"; }

}  // namespace t3sim::fuzz
