// Bounded JSON input: every JSON file and --set value t3sim reads is parsed here. A file over
// kMaxJsonFileBytes is refused before it is read (nlohmann needs ~16 bytes per input byte for a
// document of small values, so a 1 GB file would exhaust memory), and nesting deeper than
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
