// Streaming JSON reader for large traces: a file whose top level is an object, one of whose members
// is an array of many small elements (a Chrome trace's "traceEvents", a t3sim trace's "ops"), read
// with nlohmann's SAX parser in 1 MiB chunks. Each element of that array is built alone, handed to
// a callback and dropped, so memory is one element plus what the callback keeps, whatever the
// file's size. The other members are built as a document (each bounded like an element).
// Limits as sim/json_file.h's whole-document reader: depth kMaxJsonDepth, strings of at most
// 16 MiB (refused while the bytes are read, before the lexer holds them), duplicate keys and
// numbers beyond a double refused; each element or other member at most kMaxStreamValueBytes once
// parsed. Gzip files and files not starting with '{' are not streamed (is_streamable_json).
// Contract: the elements and members equal those of nlohmann::json::parse of the file; every
// failure is a one-line ConfigError naming the file and the JSON pointer of the element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace t3sim::workload {

// Memory of one parsed element or top-level member (the estimate of sim/json_file.cpp).
inline constexpr std::uint64_t kMaxStreamValueBytes = std::uint64_t{64} << 20;

// True when `path` is a regular, uncompressed file whose first non-blank byte is '{'.
bool is_streamable_json(const std::filesystem::path& path);

// The keys of the top-level object in file order; a pass that builds nothing.
std::vector<std::string> top_level_keys(const std::filesystem::path& path);

// `members`: the other top-level members read so far (those before the array in the file).
using ElementHandler =
    std::function<void(nlohmann::json& element, std::size_t index, const nlohmann::json& members)>;

// Streams the file: each element of the top-level array member `key` goes to `on_element` in order
// (its index in the array); returns the other members, and `key` as an empty array when it was
// streamed. A `key` that is not an array is returned as a member, for the caller to refuse.
nlohmann::json stream_json_object(const std::filesystem::path& path, std::string_view key,
                                  const ElementHandler& on_element);

}  // namespace t3sim::workload
