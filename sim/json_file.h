// Bounded JSON input: every JSON file and --set value t3sim reads is parsed here. A file over
// kMaxJsonFileBytes is refused before it is read, and so is a document whose parsed form would
// take over kMaxJsonMemoryBytes (nlohmann needs 16 to 40 bytes per input byte for a document of
// small values: a 250 MiB "[{},{},...]" would take 8 GB; the estimate is counted value by value
// in the check pass, which builds nothing, so the parse never starts), and nesting deeper than
// kMaxJsonDepth stops the parse (the parser is iterative, but copying, dump() and the config
// resolver recurse, so a 100000-deep document would overflow the stack after it parsed). A
// duplicate key in an object and a number beyond a double's range (1e400) are errors too: a parsed
// document would keep only one of the keys, and the number cannot be represented.
// Contract: within the limits the result equals nlohmann::json::parse of the input (comments are
// syntax errors); every failure is a one-line ConfigError naming the file, the JSON pointer and the
// fix.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace t3sim {

inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{256} << 20;
// Parsed size: a config is resolved into a second copy, so `t3sim check` peaks at about twice
// this (plus the text) and stays under 1 GB; a Kineto trace of typical events (~5 bytes of memory
// per byte of text) may be ~50 MB.
inline constexpr std::uint64_t kMaxJsonMemoryBytes = std::uint64_t{256} << 20;
inline constexpr int kMaxJsonDepth = 256;

// Reads and parses the JSON file at `path`.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Parses `text`; errors name `file` and `pointer` (where the text came from, e.g. "--set" and the
// overridden key). Returns nullopt when `text` is not JSON, so a caller may take it as a string;
// nesting deeper than kMaxJsonDepth, a duplicate key and an overflowing number are still a
// ConfigError.
std::optional<nlohmann::json> try_parse_json(std::string_view text, const std::string& file,
                                             const std::string& pointer);

// True when `text` is valid UTF-8 (what nlohmann::json requires of every string it dumps).
bool is_valid_utf8(std::string_view text);

}  // namespace t3sim
