#include "models/workload/chakra_nodes.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "models/workload/chakra_stream.h"
#include "models/workload/kineto_names.h"
#include "models/workload/kineto_schema.h"
#include "models/workload/trace.h"
#include "sim/errors.h"
#include "sim/json_file.h"

namespace t3sim::workload {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

constexpr int kHostStream = 2;
constexpr int kMemoryStream = 3;

// Chakra's CollectiveCommType values, in order, with the trace op each one becomes. A barrier is
// an all-reduce of one element (as ProcessGroupNCCL::barrier runs it); gather and scatter have no
// NCCL collective (PyTorch builds them from send/recv), so the collectives library lacks them.
struct CommInfo {
  std::string_view name;
  std::optional<OpKind> kind;
  bool barrier = false;
};
constexpr std::array<CommInfo, 10> kCommTypes = {{
    {"ALL_REDUCE", OpKind::kAllReduce},
    {"REDUCE", OpKind::kReduce},
    {"ALL_GATHER", OpKind::kAllGather},
    {"GATHER", std::nullopt},
    {"SCATTER", std::nullopt},
    {"BROADCAST", OpKind::kBroadcast},
    {"ALL_TO_ALL", OpKind::kAllToAll},
    {"REDUCE_SCATTER", OpKind::kReduceScatter},
    {"REDUCE_SCATTER_BLOCK", OpKind::kReduceScatter},  // equal blocks: NCCL's reduce-scatter
    {"BARRIER", OpKind::kAllReduce, true},
}};

const AttributeProto* find_attr(const Node& node, std::string_view name) {
  const auto it = std::find_if(node.attr().begin(), node.attr().end(),
                               [&](const AttributeProto& a) { return a.name() == name; });
  return it == node.attr().end() ? nullptr : &*it;
}

// The attribute's value when it holds one integer (any of the integer encodings).
std::optional<std::int64_t> integer_of(const AttributeProto& a) {
  switch (a.value_case()) {
    case AttributeProto::kInt32Val:
      return a.int32_val();
    case AttributeProto::kInt64Val:
      return a.int64_val();
    case AttributeProto::kUint32Val:
      return a.uint32_val();
    case AttributeProto::kUint64Val:
      if (a.uint64_val() > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
      return static_cast<std::int64_t>(a.uint64_val());
    case AttributeProto::kSint32Val:
      return a.sint32_val();
    case AttributeProto::kSint64Val:
      return a.sint64_val();
    default:
      return std::nullopt;
  }
}

class NodeReader {
 public:
  NodeReader(const Node& node, std::size_t index, const std::string& file)
      : node_(node), file_(file), pointer_(chakra_node_pointer(index)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw ConfigError(file_, pointer_ + "/" + field,
                      fmt::format("node {}: {}", node_.id(), message));
  }

  // An integer attribute in [lo, hi]; nullopt when absent.
  std::optional<std::int64_t> integer(std::string_view name, std::int64_t lo,
                                      std::int64_t hi) const {
    const AttributeProto* a = find_attr(node_, name);
    if (a == nullptr) return std::nullopt;
    const std::optional<std::int64_t> value = integer_of(*a);
    if (!value || *value < lo || *value > hi) {
      fail("attr/" + std::string(name),
           fmt::format("attribute \"{}\" must be an integer in [{}, {}]; fix the converter that "
                       "wrote it",
                       name, lo, hi));
    }
    return value;
  }

  bool flag(std::string_view name) const {
    const AttributeProto* a = find_attr(node_, name);
    return a != nullptr && a->value_case() == AttributeProto::kBoolVal && a->bool_val();
  }

  const std::string& pointer() const { return pointer_; }

 private:
  const Node& node_;
  const std::string& file_;
  std::string pointer_;
};

// Python list text ("['Tensor(c10::Half)', 'Int']") as JSON: single quotes become double. Parsed
// within sim/json_file.h's depth limit (a ConfigError at `pointer` past it: a 100000-deep list
// would overflow the stack when an error message dumps it); nullopt when it is not a JSON list.
std::optional<nlohmann::json> python_list(const std::string& text, const std::string& file,
                                          const std::string& pointer) {
  std::string json = text;
  std::replace(json.begin(), json.end(), '\'', '"');
  std::optional<nlohmann::json> parsed;
  try {
    parsed = try_parse_json(json, file, pointer);
  } catch (const ConfigError& e) {
    throw ConfigError(file, e.pointer(),
                      fmt::format("{}; operand shapes and types are flat lists (\"[[m, k], [k, "
                                  "n]]\"): fix the converter that wrote the node",
                                  e.message().substr(0, e.message().find(';'))));
  }
  if (!parsed || !parsed->is_array()) return std::nullopt;
  return parsed;
}

// The element type of a converter type string: "Tensor(c10::BFloat16)" -> bf16.
std::optional<Dtype> dtype_of(const nlohmann::json& type) {
  if (!type.is_string()) return std::nullopt;
  std::string text = type.get<std::string>();
  if (text.starts_with("Tensor(") && text.ends_with(")")) text = text.substr(7, text.size() - 8);
  return dtype_from_torch_name(text);
}

// A GPU compute node is a GEMM when it is a matmul-family aten op with operand shapes and types,
// or when the host op that launched it (a ctrl dep, as chakra's PyTorch converter links a kernel
// to its op) is one.
void convert_compute(const Node& node, const NodeReader& r, const std::string& file,
                     const ChakraLauncher& launcher, ChakraOp& out) {
  out.op.stream = kComputeStream;
  out.category = ChakraCategory::kComputeFixed;
  out.detail = "'" + node.name() + "'";
  out.pointer = r.pointer() + "/inputs";
  const bool own = is_gemm_op(node.name());
  if (!own && launcher.node == nullptr) {
    out.unmodelled =
        "compute nodes that are not a matmul-family aten op (or its kernel) with operand shapes";
    return;
  }
  const Node& op = own ? node : *launcher.node;
  const std::string pointer = own ? r.pointer() : chakra_node_pointer(launcher.index);
  out.pointer = pointer + "/inputs";
  if (!own) out.detail = fmt::format("'{}' launched by '{}'", node.name(), op.name());
  out.unmodelled = "matmul nodes without usable inputs.shapes / inputs.types";
  const std::optional<nlohmann::json> shapes =
      python_list(op.inputs().shapes(), file, pointer + "/inputs/shapes");
  const std::optional<nlohmann::json> types =
      python_list(op.inputs().types(), file, pointer + "/inputs/types");
  if (!shapes || !types) return;
  std::optional<KinetoGemm> gemm;
  try {
    gemm = gemm_from_input_dims(op.name(), *shapes, file, pointer + "/inputs/shapes");
  } catch (const ConfigError& e) {
    out.detail += ": " + e.message();
    return;
  }
  if (!gemm || gemm->a_input >= types->size()) return;
  std::optional<Dtype> dtype = dtype_of((*types)[gemm->a_input]);
  if (!dtype) return;
  if (*dtype == Dtype::kFp32 && is_tf32_kernel(node.name())) dtype = Dtype::kTf32;
  out.unmodelled.clear();
  out.category = ChakraCategory::kGemm;
  out.op.kind = OpKind::kGemm;
  out.op.shape = gemm->shape;
  out.op.dtype = dtype;
  if (!own) out.op.name = op.name() + ": " + node.name();
}

void convert_collective(const Node& node, const NodeReader& r, Dtype comm_dtype, ChakraOp& out) {
  out.op.stream = kCommStream;
  out.category = ChakraCategory::kCollectiveFixed;
  out.pointer = r.pointer() + "/attr";
  const std::optional<std::int64_t> type =
      r.integer("comm_type", 0, static_cast<std::int64_t>(kCommTypes.size()) - 1);
  if (!type) {
    r.fail("attr",
           "a COMM_COLL_NODE without a \"comm_type\" attribute; add it (0 ALL_REDUCE, "
           "2 ALL_GATHER, 7 REDUCE_SCATTER, ...)");
  }
  const CommInfo& comm = kCommTypes.at(static_cast<std::size_t>(*type));
  out.detail = fmt::format("'{}' ({})", node.name(), comm.name);
  if (!comm.kind) {
    out.unmodelled = fmt::format(
        "{} collectives, which NCCL and the collectives library have no collective for", comm.name);
    return;
  }
  const std::optional<std::int64_t> size =
      comm.barrier ? static_cast<std::int64_t>(bytes_per_element(comm_dtype))
                   : r.integer("comm_size", 1, kMaxSize);
  if (!size) {
    out.unmodelled = "collectives without a \"comm_size\" attribute";
    return;
  }
  out.category = ChakraCategory::kCollective;
  out.op.kind = *comm.kind;
  out.op.bytes = *size;
  out.op.dtype = comm_dtype;
  if (comm.barrier) out.op.name = node.name() + " (barrier: an all-reduce of one element)";
}

// COMM_SEND_NODE / COMM_RECV_NODE: `comm_dst` / `comm_src` is the peer's rank, kept as its offset
// from this rank, so every rank of a ring sends to the same peer offset.
void convert_point_to_point(const Node& node, const NodeReader& r, const ChakraRanks& ranks,
                            Dtype comm_dtype, ChakraOp& out) {
  const bool send = node.type() == ChakraProtoMsg::COMM_SEND_NODE;
  out.op.stream = kCommStream;
  out.category = ChakraCategory::kPointToPointFixed;
  out.pointer = r.pointer() + "/attr";
  const std::string_view key = send ? "comm_dst" : "comm_src";
  const std::optional<std::int64_t> peer = r.integer(key, 0, ranks.group - 1);
  const std::optional<std::int64_t> size = r.integer("comm_size", 1, kMaxSize);
  if (!peer || *peer == ranks.rank || !size) {
    out.unmodelled =
        fmt::format("send/recv nodes without a \"comm_size\" or a \"{}\" naming another rank", key);
    return;
  }
  out.category = ChakraCategory::kPointToPoint;
  out.op.kind = send ? OpKind::kSend : OpKind::kRecv;
  out.op.bytes = *size;
  out.op.dtype = comm_dtype;
  out.op.peer = static_cast<int>((*peer - ranks.rank + ranks.group) % ranks.group);
}

}  // namespace

bool is_host_matmul(const Node& node) {
  const AttributeProto* cpu = find_attr(node, "is_cpu_op");
  return node.type() == ChakraProtoMsg::COMP_NODE && is_gemm_op(node.name()) && cpu != nullptr &&
         cpu->value_case() == AttributeProto::kBoolVal && cpu->bool_val();
}

ChakraOp convert_chakra_node(const Node& node, std::size_t index, const std::string& file,
                             Dtype comm_dtype, const ChakraRanks& ranks,
                             const ChakraLauncher& launcher) {
  const NodeReader r(node, index, file);
  if (!is_valid_utf8(node.name())) r.fail("name", "the name is not valid UTF-8; fix the converter");
  const double duration_us = static_cast<double>(node.duration_micros());
  if (duration_us > kMaxMicroseconds) {
    r.fail("duration_micros", fmt::format("duration_micros {} exceeds {} us; fix the node",
                                          node.duration_micros(), kMaxMicroseconds));
  }
  ChakraOp out;
  out.op.kind = OpKind::kFixed;
  out.op.duration_us = duration_us;
  out.op.name = node.name();
  out.pointer = r.pointer();
  out.detail = "'" + node.name() + "'";
  switch (node.type()) {
    case ChakraProtoMsg::COMP_NODE:
      if (r.flag("is_cpu_op")) {
        out.op.stream = kHostStream;
      } else {
        convert_compute(node, r, file, launcher, out);
      }
      break;
    case ChakraProtoMsg::COMM_COLL_NODE:
      convert_collective(node, r, comm_dtype, out);
      break;
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE:
      convert_point_to_point(node, r, ranks, comm_dtype, out);
      break;
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE:
      out.op.stream = kMemoryStream;
      out.category = ChakraCategory::kMemoryFixed;
      out.unmodelled = "memory load/store nodes (remote memory is not modelled)";
      break;
    case ChakraProtoMsg::METADATA_NODE:
      out.op.stream = kHostStream;
      break;
    default:
      r.fail("type", fmt::format("node type {} is not one t3sim reads (COMP_NODE 4, COMM_COLL_NODE "
                                 "7, ...); fix the node's type",
                                 static_cast<int>(node.type())));
  }
  if (out.op.kind == OpKind::kFixed)
    out.op.measured_us.reset();
  else if (duration_us > 0)
    out.op.measured_us = duration_us;
  if (out.op.kind != OpKind::kFixed) out.op.duration_us = 0;
  out.op.id = fmt::format("n{}.{}", node.id(), to_string(out.op.kind));
  return out;
}

}  // namespace t3sim::workload
