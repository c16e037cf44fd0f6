// Gzip input: the decompressed bytes of a gzip file (one member or several, as `gzip` and
// Python's gzip module write them), through zlib. Profilers save traces as ".json.gz"; the JSON
// reader (json_file.h) takes them through here, so every JSON input may be compressed.
// Contract: the output never exceeds `max_bytes` (a larger decompressed size is a ConfigError
// naming the file and the limit, raised as soon as it is passed: a small bomb cannot fill memory);
// corrupt or truncated data is a one-line ConfigError naming the file and the fix.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace t3sim {

// True when `bytes` begins with the gzip magic (1f 8b).
bool is_gzip(std::string_view bytes);

// Decompresses `compressed` (read from `file`, which labels errors).
std::string gunzip(std::string_view compressed, const std::string& file, std::uint64_t max_bytes);

}  // namespace t3sim
