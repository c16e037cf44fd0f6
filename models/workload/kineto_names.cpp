#include "models/workload/kineto_names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace t3sim::workload {
namespace {

// Lower case without '_' or ' ', so "_reduce_scatter_base" and "ReduceScatter" read alike.
std::string squash(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '_' || c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// Squashed prefixes, most specific first ("reducescatter" before "reduce").
constexpr std::array<std::pair<std::string_view, CommKind>, 12> kPrefixes = {{
    {"allreduce", CommKind::kAllReduce},
    {"reducescatter", CommKind::kReduceScatter},
    {"allgather", CommKind::kAllGather},
    {"alltoall", CommKind::kAllToAll},
    {"broadcast", CommKind::kBroadcast},
    {"sendrecv", CommKind::kSendRecv},
    {"send", CommKind::kSendRecv},
    {"recv", CommKind::kSendRecv},
    {"gather", CommKind::kGather},
    {"scatter", CommKind::kGather},
    {"reduce", CommKind::kReduce},
    {"barrier", CommKind::kBarrier},
}};

std::optional<CommKind> from_squashed(const std::string& word) {
  for (const auto& [prefix, kind] : kPrefixes) {
    if (word.starts_with(prefix)) return kind;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(CommKind kind) {
  static constexpr std::array<std::string_view, 9> kNames = {
      "all-reduce", "reduce-scatter", "all-gather", "all-to-all",    "broadcast",
      "send/recv",  "reduce",         "barrier",    "gather/scatter"};
  return kNames.at(static_cast<std::size_t>(kind));
}

std::optional<OpKind> modelled_kind(CommKind kind) {
  switch (kind) {
    case CommKind::kAllReduce:
      return OpKind::kAllReduce;
    case CommKind::kReduceScatter:
      return OpKind::kReduceScatter;
    case CommKind::kAllGather:
      return OpKind::kAllGather;
    case CommKind::kAllToAll:
      return OpKind::kAllToAll;
    case CommKind::kBroadcast:
      return OpKind::kBroadcast;
    case CommKind::kReduce:
      return OpKind::kReduce;
    case CommKind::kBarrier:
      return OpKind::kAllReduce;
    default:
      return std::nullopt;
  }
}

std::optional<CommKind> comm_kind_of_kernel(std::string_view kernel_name) {
  for (const std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    if (!kernel_name.starts_with(prefix)) continue;
    std::string_view rest = kernel_name.substr(prefix.size());
    rest = rest.substr(0, rest.find_first_of("_("));
    return from_squashed(squash(rest));  // "Generic" names no kind
  }
  return std::nullopt;
}

std::optional<CommKind> comm_kind_of_name(std::string_view name) {
  for (const std::string_view prefix : {"c10d::", "nccl:", "gloo:"}) {
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  }
  return from_squashed(squash(name));
}

bool is_tf32_kernel(std::string_view kernel_name) {
  const std::string k = squash(kernel_name);
  return contains(k, "tf32") || contains(k, "s1688gemm") || contains(k, "s1684gemm");
}

bool is_gemm_kernel(std::string_view kernel_name) {
  const std::string k = squash(kernel_name);
  if (contains(k, "fbgemm")) return false;  // FBGEMM-GPU's embedding and permute kernels
  return contains(k, "gemm") || contains(k, "cutlass") || contains(k, "xmma") ||
         kernel_name.starts_with("Cijk_") || contains(k, "matmul");
}

bool is_conv_op(std::string_view op_name) {
  const std::string k = squash(op_name);
  return k.starts_with("aten::") && contains(k, "conv");
}

}  // namespace t3sim::workload
