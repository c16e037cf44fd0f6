#include "models/workload/chakra_stream.h"

#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>

#include "sim/errors.h"

namespace t3sim::workload {
namespace {

constexpr std::string_view kFraming =
    "a Chakra ET is varint-length-prefixed records (GlobalMetadata, then Nodes) as chakra's "
    "encoder writes them; regenerate the file";

struct Record {
  std::size_t start;      // byte offset of its length prefix
  std::string_view body;  // the encoded message
};

// Decodes a base-128 varint of at most 32 bits at `pos`; nullopt when the bytes end inside it or
// it runs past 5 bytes.
std::optional<std::uint32_t> read_varint32(std::string_view bytes, std::size_t& pos) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 35 && pos < bytes.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(bytes[pos++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      if (value > UINT32_MAX) return std::nullopt;
      return static_cast<std::uint32_t>(value);
    }
  }
  return std::nullopt;
}

// Parses one record into `message`; true when it parses and every field is one the schema has.
bool parse_record(google::protobuf::Message& message, std::string_view record) {
  if (!message.ParseFromArray(record.data(), static_cast<int>(record.size()))) return false;
  const auto* reflection = message.GetReflection();
  return reflection->GetUnknownFields(message).empty();
}

bool node_fields_known(const ChakraProtoMsg::Node& node) {
  for (const auto& attr : node.attr()) {
    if (!attr.GetReflection()->GetUnknownFields(attr).empty()) return false;
  }
  return true;
}

// A JSON file given where an ET belongs (its first byte, '{', would read as a record length and
// end as a "truncated record"): says which JSON it is and what to run instead.
void refuse_json(std::string_view bytes, const std::string& file) {
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (bytes[first] != '{' && bytes[first] != '[')) return;
  const std::string_view head = bytes.substr(0, std::size_t{1} << 16);
  const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
  std::string what;
  if (has("\"traceEvents\"")) {
    what =
        "a Kineto (PyTorch profiler) trace, not a Chakra ET; import it with `t3sim trace "
        "import-kineto`";
  } else if (has("\"nodes\"") && has("\"schema\"")) {
    what =
        "a PyTorch execution trace (JSON host ET), not a Chakra ET: link it with the same "
        "rank's Kineto trace and convert the result, `chakra_trace_link --rank R "
        "--chakra-host-trace H.json --chakra-device-trace K.json --output-file L.json` then "
        "`chakra_converter PyTorch --input L.json --output P.R.et`, and import the .et files";
  } else {
    what =
        "JSON, not a Chakra ET (protobuf records); import the .et files it was made from "
        "(chakra_jsonizer output is not read back), or for a PyTorch host trace run "
        "chakra_trace_link and chakra_converter first";
  }
  throw ConfigError(file, "", "the file is " + what);
}

}  // namespace

std::string chakra_node_pointer(std::size_t index) { return fmt::format("/records/{}", index + 1); }

std::string read_chakra_bytes(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw ConfigError(file, "", "no such file; give the rank files or their common prefix");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw ConfigError(file, "", "not a regular file; give a Chakra ET file (.et)");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxChakraFileBytes) {
    throw ConfigError(file, "",
                      fmt::format("the file is over {} bytes, the largest ET t3sim reads; split "
                                  "the trace",
                                  kMaxChakraFileBytes));
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(size), '\0');
  if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(size))) {
    throw ConfigError(file, "", "cannot read the file; check its permissions");
  }
  return bytes;
}

ChakraFile parse_chakra_records(std::string_view bytes, const std::string& file) {
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    throw ConfigError(file, "", "the file is gzip-compressed; gunzip it first");
  }
  refuse_json(bytes, file);
  if (bytes.empty()) {
    throw ConfigError(file, "/records/0",
                      fmt::format("the file is empty: no GlobalMetadata record; {}", kFraming));
  }
  // First the framing alone (cheap: no message is built), then the messages.
  std::vector<Record> records;
  for (std::size_t pos = 0; pos < bytes.size();) {
    const std::size_t start = pos;
    const std::optional<std::uint32_t> length = read_varint32(bytes, pos);
    if (!length || *length > bytes.size() - pos) {
      throw ConfigError(
          file, fmt::format("/records/{}", records.size()),
          fmt::format("record at byte {} is truncated ({}, {} bytes left in the file); {}", start,
                      length ? fmt::format("its length says {} bytes", *length)
                             : std::string("its length prefix is cut off"),
                      bytes.size() - pos, kFraming));
    }
    if (records.size() > kMaxChakraNodes) {
      throw ConfigError(file, fmt::format("/records/{}", records.size()),
                        fmt::format("more than {} nodes in one file, the most t3sim reads; split "
                                    "the trace",
                                    kMaxChakraNodes));
    }
    records.push_back({start, bytes.substr(pos, *length)});
    pos += *length;
  }
  // libprotobuf logs why a message fails to parse (e.g. a string field that is not UTF-8) on
  // stderr; the ConfigError below is the one line the user gets.
  const google::protobuf::LogSilencer quiet;
  ChakraFile out;
  out.file = file;
  out.records.reserve(records.size() - 1);
  ChakraProtoMsg::Node scratch;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const bool ok = i == 0 ? parse_record(out.metadata, records[i].body)
                           : parse_record(scratch, records[i].body) && node_fields_known(scratch);
    if (!ok) {
      throw ConfigError(file, fmt::format("/records/{}", i),
                        fmt::format("record at byte {} ({} bytes) is not a Chakra {} message "
                                    "(or holds a string that is not UTF-8); {}",
                                    records[i].start, records[i].body.size(),
                                    i == 0 ? "GlobalMetadata" : "Node", kFraming));
    }
    if (i > 0) out.records.push_back(records[i].body);
  }
  return out;
}

void ChakraFile::node_into(std::size_t i, ChakraProtoMsg::Node& out) const {
  const std::string_view r = records.at(i);
  if (!out.ParseFromArray(r.data(), static_cast<int>(r.size()))) {
    throw ModelError(file, fmt::format("node record {} parsed once and not again", i + 1));
  }
}

}  // namespace t3sim::workload
