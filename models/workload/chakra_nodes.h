// One Chakra ET node as a t3sim op: matmul-family aten ops with operand shapes (and the kernels
// such host ops launched) become gemm ops; COMM_COLL nodes collectives of comm_size bytes (a
// barrier an all-reduce of one element); COMM_SEND / COMM_RECV nodes send / recv ops to the peer
// as an offset from this rank; all else (gather, scatter among them) a fixed op of
// duration_micros, with the reason when it should have been simulated. Malformed nodes are
// ConfigErrors naming record and node id. Streams: GPU compute 0, communication 1, host and
// metadata 2, memory load/store 3. Source: ASTRA-sim astra-sim/workload/Workload.cc (comm_type,
// comm_size, is_cpu_op) and chakra's PyTorch converter src/converter/pytorch_converter.py (IOInfo
// shapes and types as Python list text).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "chakra_et.pb.h"
#include "models/workload/chakra_summary.h"
#include "models/workload/dtype.h"
#include "models/workload/op.h"

namespace t3sim::workload {

struct ChakraOp {
  Op op;  // deps are left to the importer
  ChakraCategory category = ChakraCategory::kHost;
  std::string unmodelled;  // why a node that should be simulated is fixed ("" otherwise)
  std::string detail;      // the node's particulars for that message
  std::string pointer;     // where in the file
};

// The host op that launched a GPU node: a matmul-family COMP node among its ctrl deps (record
// `index`), whose operand shapes and types make the kernel a GEMM; node == nullptr when none.
struct ChakraLauncher {
  const ChakraProtoMsg::Node* node = nullptr;
  std::size_t index = 0;
};

// The rank whose file is read and the group's size: send/recv peers become rank offsets.
struct ChakraRanks {
  int rank = 0;
  int group = 1;
};

// A host (is_cpu_op) COMP node of a matmul-family aten op: the launcher of its GPU kernels.
bool is_host_matmul(const ChakraProtoMsg::Node& node);

// Converts node record `index` of `file`; collectives get `comm_dtype` (Chakra records none).
ChakraOp convert_chakra_node(const ChakraProtoMsg::Node& node, std::size_t index,
                             const std::string& file, Dtype comm_dtype,
                             const ChakraRanks& ranks = {}, const ChakraLauncher& launcher = {});

}  // namespace t3sim::workload
