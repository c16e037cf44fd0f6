// The size and depth limits proposed for the JSON file readers (sim/config.cpp read_json_file and
// models/workload/strict_json.cpp read_json_file), kept here, tests-only, until they are placed:
// a file over kMaxJsonFileBytes is refused before it is read (a 1 GB document of small values
// would need ~16 bytes of nlohmann::json per input byte), and nesting deeper than kMaxJsonDepth
// stops the parse (nlohmann's parser is iterative, but copy, dump() and the config resolver
// recurse, so a 100000-deep document overflows the stack after it parsed).
// Contract: both limits throw ConfigError naming the file and the limit; within them the result
// equals nlohmann::json::parse of the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/errors.h"

namespace t3sim::reliability {

inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{256} << 20;
inline constexpr int kMaxJsonDepth = 256;

inline nlohmann::json read_json_limited(const std::filesystem::path& path,
                                        std::uintmax_t max_bytes = kMaxJsonFileBytes,
                                        int max_depth = kMaxJsonDepth) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), "", "cannot open file (check the path)");
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw ConfigError(path.string(), "",
                      "file is " + std::to_string(size >> 20) + " MiB; t3sim reads JSON files of " +
                          "at most " + std::to_string(max_bytes >> 20) +
                          " MiB (is it the right file? split it)");
  }
  const nlohmann::json::parser_callback_t limit_depth =
      [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > max_depth) {
          throw ConfigError(path.string(), "",
                            "JSON nested deeper than " + std::to_string(max_depth) +
                                " levels; t3sim files are a few levels deep (is it the right file?)");
        }
        return true;
      };
  try {
    return nlohmann::json::parse(in, limit_depth, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(path.string(), "",
                      std::string("invalid JSON: ") + e.what() + " (fix the syntax at that byte)");
  }
}

}  // namespace t3sim::reliability
