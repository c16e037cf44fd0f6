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

// Largest ET file read (the whole file is held in memory while its records parse), and most nodes
// in one file: a parsed node and its op take about 1 KB, so a file of tiny records stays near 1 GB.
inline constexpr std::uintmax_t kMaxChakraFileBytes = std::uintmax_t{256} << 20;
inline constexpr std::size_t kMaxChakraNodes = std::size_t{1} << 20;

struct ChakraFile {
  std::string file;  // the path, for messages
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;  // in file order; nodes[i] is record i + 1
};

// The file's raw bytes (refusing special files and files over kMaxChakraFileBytes).
std::string read_chakra_bytes(const std::filesystem::path& path);
// Splits `bytes` into records and parses them; `file` labels errors.
ChakraFile parse_chakra_records(std::string_view bytes, const std::string& file);

// The pointer of node record `index` (0-based among the nodes): "/records/<index + 1>".
std::string chakra_node_pointer(std::size_t index);

}  // namespace t3sim::workload
