#include "models/workload/chakra_custom.h"

#include <algorithm>
#include <array>
#include <regex>
#include <utility>

#include <fmt/format.h>

#include "models/workload/trace.h"
#include "sim/errors.h"

namespace t3sim::workload {
namespace {

// The collectiveapi converter's --collective spellings.
constexpr std::array<std::pair<std::string_view, OpKind>, 6> kKinds = {{
    {"allreduce", OpKind::kAllReduce},
    {"allgather", OpKind::kAllGather},
    {"reducescatter", OpKind::kReduceScatter},
    {"alltoall", OpKind::kAllToAll},
    {"broadcast", OpKind::kBroadcast},
    {"reduce", OpKind::kReduce},
}};

const ChakraProtoMsg::AttributeProto* metadata_attr(const ChakraFile& f, std::string_view name) {
  for (const auto& a : f.metadata.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// An integer XML attribute of the algorithm's <algo> element ("nchunksperloop"), if present.
std::optional<std::int64_t> algo_attribute(const std::string& xml, const std::string& name) {
  const std::regex re(name + "=\"([0-9]{1,9})\"");
  std::smatch m;
  if (!std::regex_search(xml, m, re)) return std::nullopt;
  return std::stoll(m[1].str());
}

std::optional<std::string> algo_name(const std::string& xml) {
  const std::regex re("<algo name=\"([^\"]{1,200})\"");
  std::smatch m;
  if (!std::regex_search(xml, m, re)) return std::nullopt;
  return m[1].str();
}

// The smallest comm_size of the file's send nodes: one chunk.
std::optional<std::int64_t> smallest_send(const ChakraFile& f) {
  std::optional<std::int64_t> best;
  ChakraProtoMsg::Node node;
  for (std::size_t i = 0; i < f.size(); ++i) {
    f.node_into(i, node);
    if (node.type() != ChakraProtoMsg::COMM_SEND_NODE) continue;
    for (const auto& a : node.attr()) {
      if (a.name() != "comm_size" || a.value_case() != ChakraProtoMsg::AttributeProto::kInt64Val) {
        continue;
      }
      if (a.int64_val() > 0) best = std::min(best.value_or(a.int64_val()), a.int64_val());
    }
  }
  return best;
}

}  // namespace

std::optional<ChakraCustomCollective> chakra_custom_collective(const ChakraFile& f) {
  const auto* collective = metadata_attr(f, "collective");
  if (collective == nullptr) return std::nullopt;
  const auto fail = [&](const std::string& why) -> ChakraCustomCollective {
    throw ConfigError(f.file, "/records/0/attr",
                      "a custom collective implementation (GlobalMetadata \"collective\"): " + why);
  };
  const std::string& name = collective->string_val();
  const auto it = std::find_if(kKinds.begin(), kKinds.end(),
                               [&](const auto& row) { return row.first == name; });
  if (it == kKinds.end()) {
    return fail(
        fmt::format("\"{}\" is not a collective t3sim runs; use allreduce, allgather, "
                    "reducescatter, alltoall, broadcast or reduce",
                    name));
  }
  const auto* input = metadata_attr(f, "input_file");
  const std::string xml = input == nullptr ? std::string() : input->string_val();
  const std::optional<std::int64_t> chunks = algo_attribute(xml, "nchunksperloop");
  const std::optional<std::int64_t> chunk = smallest_send(f);
  if (!chunks || !chunk || *chunks < 1) {
    return fail(
        "its buffer size needs the MSCCL algorithm's nchunksperloop (the \"input_file\" "
        "attribute) and at least one COMM_SEND_NODE with a comm_size; regenerate it with "
        "collectiveapi's et_converter");
  }
  if (*chunk > kMaxSize / *chunks) return fail("its buffer exceeds 2^50 bytes");
  ChakraCustomCollective out;
  out.kind = it->second;
  out.bytes = *chunk * *chunks;
  out.algorithm = algo_name(xml).value_or("");
  return out;
}

}  // namespace t3sim::workload
