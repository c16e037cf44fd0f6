#include "models/workload/kineto_comms.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "models/workload/kineto_groups.h"
#include "models/workload/kineto_names.h"
#include "models/workload/kineto_schema.h"
#include "models/workload/trace.h"

namespace t3sim::workload {
namespace {

constexpr std::int64_t kMaxGroup = std::int64_t{1} << 20;

std::optional<std::int64_t> int_arg(const nlohmann::json* args, std::string_view key,
                                    std::int64_t lo, std::int64_t hi) {
  if (args == nullptr) return std::nullopt;
  const auto it = args->find(key);
  if (it == args->end() || !it->is_number_integer()) return std::nullopt;
  const auto v = it->get<std::int64_t>();
  return v >= lo && v <= hi ? std::optional(v) : std::nullopt;
}

// One place the size of a collective can come from.
struct SizeSource {
  std::int64_t in = 0;      // elements
  std::int64_t out = 0;     // elements
  bool input_only = false;  // from "Input Dims": `in` is the input tensor only
  std::optional<Dtype> dtype;
  std::optional<std::int64_t> group;
  std::string pointer;
};

std::optional<SizeSource> from_nelems(const nlohmann::json* args, const std::string& pointer) {
  const auto in = int_arg(args, "In msg nelems", 0, kMaxSize);
  const auto out = int_arg(args, "Out msg nelems", 0, kMaxSize);
  if (!in && !out) return std::nullopt;
  if (in.value_or(0) == 0 && out.value_or(0) == 0) return std::nullopt;  // "wait" and similar
  SizeSource s;
  s.in = in.value_or(0);
  s.out = out.value_or(0);
  s.dtype = dtype_from_torch_name(args->value("dtype", std::string()));
  s.group = int_arg(args, "Group size", 1, kMaxGroup);
  s.pointer = pointer;
  return s;
}

std::optional<SizeSource> from_input_dims(const nlohmann::json* args, const std::string& pointer) {
  if (args == nullptr) return std::nullopt;
  const auto dims = args->find("Input Dims");
  const auto types = args->find("Input type");
  if (dims == args->end() || !dims->is_array() || dims->empty() || !(*dims)[0].is_array() ||
      (*dims)[0].empty() || types == args->end() || !types->is_array() || types->empty() ||
      !(*types)[0].is_string()) {
    return std::nullopt;
  }
  std::int64_t n = 1;
  for (const nlohmann::json& d : (*dims)[0]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 1) return std::nullopt;
    if (d.get<std::int64_t>() > kMaxSize / n) return std::nullopt;
    n *= d.get<std::int64_t>();
  }
  SizeSource s;
  s.in = n;
  s.input_only = true;
  s.dtype = dtype_from_torch_name((*types)[0].get<std::string>());
  s.pointer = pointer + "/args/Input Dims/0";
  return s;
}

// c10d::_allgather_base_ / c10d::_reduce_scatter_base_ record [output, input] dims: the full
// buffer and the shard, so the group is their ratio (distributedInfo's world size may be larger).
std::optional<SizeSource> from_base_op(const nlohmann::json& op, const std::string& pointer) {
  const std::string name = kineto_string(op, "name");
  const bool gather = name == "c10d::_allgather_base_";
  if (!gather && name != "c10d::_reduce_scatter_base_") return std::nullopt;
  const nlohmann::json* args = kineto_args(op);
  if (args == nullptr) return std::nullopt;
  const auto dims = args->find("Input Dims");
  const auto types = args->find("Input type");
  if (dims == args->end() || !dims->is_array() || dims->size() < 2 || types == args->end() ||
      !types->is_array() || types->empty() || !(*types)[0].is_string()) {
    return std::nullopt;
  }
  std::int64_t n[2] = {1, 1};
  for (int t = 0; t < 2; ++t) {
    const nlohmann::json& shape = (*dims)[static_cast<std::size_t>(t)];
    if (!shape.is_array() || shape.empty()) return std::nullopt;
    for (const nlohmann::json& d : shape) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 1) return std::nullopt;
      if (d.get<std::int64_t>() > kMaxSize / n[t]) return std::nullopt;
      n[t] *= d.get<std::int64_t>();
    }
  }
  const std::int64_t full = gather ? n[0] : n[1];
  const std::int64_t shard = gather ? n[1] : n[0];
  if (full % shard != 0) return std::nullopt;
  SizeSource s;
  s.in = full;
  s.dtype = dtype_from_torch_name((*types)[0].get<std::string>());
  s.group = full / shard;
  s.pointer = pointer + "/args/Input Dims";
  return s;
}

bool is_comm_op(std::string_view name) {
  return name == "record_param_comms" || name.starts_with("nccl:") || name.starts_with("c10d::");
}

// The communication kind: the kernel's or record_param_comms' "Collective name", then c10d/nccl
// op names, then the kernel name. A send or recv also says which side this rank is.
std::pair<std::optional<CommKind>, std::optional<P2pDirection>> kind_of(
    const KinetoEvents& events, std::size_t index, const KernelLaunch& launch) {
  std::optional<CommKind> kind;
  std::optional<P2pDirection> direction;
  const auto named = [&](const std::string& text) {
    kind = comm_kind_of_name(text);
    if (kind == CommKind::kSendRecv) direction = p2p_direction(text);
  };
  const nlohmann::json kernel = events[index];
  if (const nlohmann::json* args = kineto_args(kernel); args != nullptr) {
    const std::string text = kineto_string(*args, "Collective name");
    if (!text.empty()) named(text);
  }
  for (auto it = launch.stack.rbegin(); it != launch.stack.rend() && !kind; ++it) {
    const nlohmann::json op = events[*it];
    const std::string op_name = kineto_string(op, "name");
    if (op_name == "record_param_comms") {
      const nlohmann::json* args = kineto_args(op);
      if (args != nullptr) named(kineto_string(*args, "Collective name"));
    } else if (is_comm_op(op_name)) {
      named(op_name);
    }
  }
  if (!kind) kind = comm_kind_of_kernel(kineto_string(kernel, "name"));
  return {kind, direction};
}

// The size: the kernel's own fields, then each comm op around the launch, innermost first.
template <class Pointer>
std::optional<SizeSource> size_of(const KinetoEvents& events, std::size_t index,
                                  const KernelLaunch& launch, const Pointer& event_pointer) {
  std::optional<SizeSource> size =
      from_nelems(kineto_args(events[index]), event_pointer(index) + "/args");
  for (auto it = launch.stack.rbegin(); it != launch.stack.rend() && !size; ++it) {
    if (!is_comm_op(kineto_string(events[*it], "name"))) continue;
    size = from_nelems(kineto_args(events[*it]), event_pointer(*it) + "/args");
  }
  for (auto it = launch.stack.rbegin(); it != launch.stack.rend() && !size; ++it) {
    size = from_base_op(events[*it], event_pointer(*it));
  }
  for (auto it = launch.stack.rbegin(); it != launch.stack.rend() && !size; ++it) {
    const std::string op_name = kineto_string(events[*it], "name");
    if (op_name != "record_param_comms" && !op_name.starts_with("nccl:")) continue;
    size = from_input_dims(kineto_args(events[*it]), event_pointer(*it));
  }
  return size;
}

// The group's global ranks: the kernel's own args, then each comm op around the launch.
std::vector<int> group_of(const KinetoEvents& events, std::size_t index, const KernelLaunch& launch,
                          std::optional<std::int64_t> group) {
  std::optional<std::vector<int>> ranks = process_group_ranks(kineto_args(events[index]), group);
  for (auto it = launch.stack.rbegin(); it != launch.stack.rend() && !ranks; ++it) {
    if (!is_comm_op(kineto_string(events[*it], "name"))) continue;
    ranks = process_group_ranks(kineto_args(events[*it]), group);
  }
  return ranks.value_or(std::vector<int>());
}

// A send or recv: its peer as an offset in the group from this rank (traces/README.md `peer`).
void make_p2p(CommOutcome& r, P2pDirection direction, const KinetoEvents& events, std::size_t index,
              const KernelLaunch& launch, std::optional<int> own_rank) {
  Op& op = *r.op;
  op.kind = direction == P2pDirection::kSend ? OpKind::kSend : OpKind::kRecv;
  std::optional<int> peer = p2p_peer_rank(kineto_args(events[index]), direction, r.ranks);
  for (auto it = launch.stack.rbegin(); it != launch.stack.rend() && !peer; ++it) {
    if (!is_comm_op(kineto_string(events[*it], "name"))) continue;
    peer = p2p_peer_rank(kineto_args(events[*it]), direction, r.ranks);
  }
  const auto pos = [&](std::optional<int> rank) -> std::optional<int> {
    const auto it = rank ? std::find(r.ranks.begin(), r.ranks.end(), *rank) : r.ranks.end();
    if (it == r.ranks.end()) return std::nullopt;
    return static_cast<int>(it - r.ranks.begin());
  };
  const std::optional<int> mine = pos(own_rank), theirs = pos(peer);
  if (!mine || !theirs || *mine == *theirs) {
    r.reason = !peer ? std::string(
                           "NCCL send/recv kernels without a peer rank (no \"Dst Rank\"/\"Src "
                           "Rank\" or \"Rank\" on the kernel or its record_param_comms: "
                           "PyTorch < 2.4)")
               : !own_rank ? std::string(
                                 "NCCL send/recv kernels of a profile without "
                                 "distributedInfo.rank (the sender's rank is unknown)")
                           : std::string(
                                 "NCCL send/recv kernels whose ranks are not in their process "
                                 "group (\"Process Group Ranks\")");
    r.op.reset();
    return;
  }
  const int g = static_cast<int>(r.ranks.size());
  op.tp_group = g;
  op.peer = ((*theirs - *mine) % g + g) % g;
}

}  // namespace

bool is_comm_kernel(std::string_view kernel_name) {
  return kernel_name.starts_with("ncclDevKernel_") || kernel_name.starts_with("ncclKernel_");
}

CommOutcome collective_of_kernel(const KinetoEvents& events, std::size_t index,
                                 const KernelLaunch& launch, std::optional<std::int64_t> world_size,
                                 const std::vector<std::size_t>* original,
                                 std::optional<int> own_rank) {
  const auto event_pointer = [original](std::size_t i) {
    return fmt::format("/traceEvents/{}", original != nullptr ? (*original)[i] : i);
  };
  const std::string name = kineto_string(events[index], "name");
  const std::string short_name = name.substr(0, name.find('('));
  CommOutcome r;
  r.pointer = event_pointer(index) + "/args";
  const auto [kind, direction] = kind_of(events, index, launch);
  if (!kind) {
    r.reason =
        "NCCL kernels whose collective is not named (generic kernel and no "
        "record_param_comms or c10d op around its launch)";
    r.detail = short_name;
    return r;
  }
  std::optional<OpKind> op_kind = modelled_kind(*kind);
  if (!op_kind && direction) op_kind = OpKind::kSend;  // which side: make_p2p below
  if (!op_kind) {
    r.reason = *kind == CommKind::kSendRecv
                   ? std::string(
                         "NCCL send/recv kernels not named send or recv (no "
                         "record_param_comms \"Collective name\" or c10d::send/recv_ around "
                         "the launch)")
                   : fmt::format(
                         "NCCL {} kernels: NCCL has no such collective (PyTorch runs "
                         "send/recv), nor has the collectives library",
                         to_string(*kind));
    r.detail = short_name;
    return r;
  }
  const std::optional<SizeSource> size = size_of(events, index, launch, event_pointer);
  if (!size) {
    r.reason =
        "NCCL kernels without a message size (no \"In msg nelems\" on the kernel or its "
        "record_param_comms, no \"Input Dims\": PyTorch < 2.1 or record_shapes=False)";
    r.detail = short_name;
    return r;
  }
  if (!size->dtype) {
    r.reason = "NCCL kernels whose element type t3sim does not model";
    r.detail = short_name;
    r.pointer = size->pointer;
    return r;
  }
  std::optional<std::int64_t> group = size->group;
  if (!group) group = world_size;
  if (!group) {
    r.reason =
        "NCCL kernels without a group size (no \"Group size\" and no "
        "distributedInfo.world_size)";
    r.detail = short_name;
    r.pointer = size->pointer;
    return r;
  }
  std::int64_t elements = std::max(size->in, size->out);
  if (size->input_only && *op_kind == OpKind::kAllGather) {
    elements = *group > kMaxSize / size->in ? kMaxSize + 1 : size->in * *group;
  }
  const std::int64_t width = bytes_per_element(*size->dtype);
  if (elements > kMaxSize / width) {
    r.reason = "NCCL kernels whose message exceeds 2^50 bytes";
    r.detail = short_name;
    r.pointer = size->pointer;
    return r;
  }
  Op op;
  op.kind = *op_kind;
  op.bytes = elements * width;
  op.dtype = size->dtype;
  op.tp_group = static_cast<int>(*group);
  op.name = name;
  r.op = std::move(op);
  r.ranks = group_of(events, index, launch, group);
  if (r.ranks.empty() && world_size && *group == *world_size) {  // the default group: every rank
    for (int k = 0; k < *group; ++k) r.ranks.push_back(k);
  }
  if (direction) {
    make_p2p(r, *direction, events, index, launch, own_rank);
    if (!r.op) r.detail = short_name;
  }
  return r;
}

}  // namespace t3sim::workload
