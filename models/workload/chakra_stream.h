// Reading one Chakra execution-trace (ET) file: a stream of records, each a varint32 byte count
// followed by one protobuf message; the first record is the GlobalMetadata, every later one a
// Node (chakra_et.proto). Contract: a file that does not frame exactly (truncated count or record,
// a message that does not parse or carries fields the schema lacks, no metadata record, a gzip
// file) is a one-line ConfigError naming the file, the record (/records/<i>) and the fix; nothing
// is returned partially. Source: mlcommons/chakra src/third_party/utils/protoio.cc (the writer:
// WriteVarint32(size) then the message, per record).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "chakra_et.pb.h"

namespace t3sim::workload {

// Largest ET file read (the whole file is held in memory while it is imported; its nodes are
// parsed one at a time), and most nodes in one file.
inline constexpr std::uintmax_t kMaxChakraFileBytes = std::uintmax_t{256} << 20;
inline constexpr std::size_t kMaxChakraNodes = std::size_t{1} << 20;

// A checked ET: its metadata, and its node records as spans of the file's bytes (which the caller
// keeps alive), parsed again where a node is needed: a parsed node takes about 6x its record.
struct ChakraFile {
  std::string file;  // the path, for messages
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<std::string_view> records;  // node i is record i + 1, in file order

  std::size_t size() const { return records.size(); }
  // Parses node i into `out` (parse_chakra_records has checked that it parses).
  void node_into(std::size_t i, ChakraProtoMsg::Node& out) const;
};

// The file's raw bytes (refusing special files and files over kMaxChakraFileBytes).
std::string read_chakra_bytes(const std::filesystem::path& path);
// Splits `bytes` into records and checks that each parses; `file` labels errors. The result refers
// to `bytes`.
ChakraFile parse_chakra_records(std::string_view bytes, const std::string& file);

// The pointer of node record `index` (0-based among the nodes): "/records/<index + 1>".
std::string chakra_node_pointer(std::size_t index);

}  // namespace t3sim::workload
