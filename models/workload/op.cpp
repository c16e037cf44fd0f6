#include "models/workload/op.h"

#include <array>
#include <utility>

namespace t3sim::workload {
namespace {

constexpr std::array<std::pair<OpKind, std::string_view>, 11> kKindNames = {{
    {OpKind::kGemm, "gemm"},
    {OpKind::kAllReduce, "all_reduce"},
    {OpKind::kReduceScatter, "reduce_scatter"},
    {OpKind::kAllGather, "all_gather"},
    {OpKind::kMemory, "memory"},
    {OpKind::kFixed, "fixed"},
    {OpKind::kBroadcast, "broadcast"},
    {OpKind::kReduce, "reduce"},
    {OpKind::kAllToAll, "all_to_all"},
    {OpKind::kSend, "send"},
    {OpKind::kRecv, "recv"},
}};

}  // namespace

std::string_view to_string(OpKind kind) {
  return kKindNames.at(static_cast<std::size_t>(kind)).second;
}

std::optional<OpKind> parse_op_kind(std::string_view name) {
  for (const auto& [kind, text] : kKindNames) {
    if (text == name) return kind;
  }
  return std::nullopt;
}

std::vector<std::string> op_kind_names() {
  std::vector<std::string> names;
  for (const auto& [kind, text] : kKindNames) names.emplace_back(text);
  return names;
}

bool is_collective(OpKind kind) {
  return kind != OpKind::kGemm && kind != OpKind::kMemory && kind != OpKind::kFixed;
}

bool is_point_to_point(OpKind kind) { return kind == OpKind::kSend || kind == OpKind::kRecv; }

bool is_rooted(OpKind kind) { return kind == OpKind::kBroadcast || kind == OpKind::kReduce; }

}  // namespace t3sim::workload
