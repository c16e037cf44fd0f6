// One operation of a workload trace: a GEMM, a communication op over a group (a collective, or one
// side of a point-to-point send/recv), a memory-bound kernel or a fixed-duration op, with the
// in-order stream it runs on and the ops it waits for. Plain data; the trace parser (trace.h)
// enforces the invariants: kind-specific payload present (gemm: shape; communication, memory:
// bytes; send/recv: peer; fixed: duration_us), sizes in [1, 2^50), ids unique, deps acyclic.
// Units: bytes; microseconds (double) for measured, fixed and idle times. Format spec:
// traces/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload/dtype.h"
#include "models/workload/sublayer.h"

namespace t3sim::workload {

enum class OpKind {
  kGemm,
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kMemory,
  kFixed,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSend,
  kRecv,
};

std::string_view to_string(OpKind kind);  // "gemm", "all_reduce", ..., "fixed", "send", "recv"
std::optional<OpKind> parse_op_kind(std::string_view name);
std::vector<std::string> op_kind_names();
// Communication ops: every collective and send/recv (they carry bytes, dtype and a group).
bool is_collective(OpKind kind);
bool is_point_to_point(OpKind kind);  // send, recv
bool is_rooted(OpKind kind);          // broadcast, reduce

// Stream convention: 0 = compute, 1 = communication; other ids are further in-order queues.
constexpr int kComputeStream = 0;
constexpr int kCommStream = 1;

struct Op {
  std::string id;
  OpKind kind = OpKind::kFixed;
  GemmShape shape;             // gemm only
  std::int64_t bytes = 0;      // collectives (full buffer) and memory (read + written)
  double duration_us = 0;      // fixed only
  std::optional<Dtype> dtype;  // required for gemm and collectives
  int stream = kComputeStream;
  std::vector<std::string> deps;  // ids this op waits for
  std::optional<int> tp_group;    // ranks in the group (required for collectives)
  // Communication: the index of its process group in TraceMetadata::process_groups (the group's
  // global ranks); unset: the group is the ranks 0 .. tp_group - 1 in order.
  std::optional<int> process_group;
  int peer = 0;  // send/recv: the other rank as an offset in the group (rank + peer, mod group)
  int root = 0;  // broadcast/reduce: the root's rank in the group
  std::optional<Sublayer> sublayer;  // T3 sublayer tag
  std::optional<Pass> pass;
  std::optional<double> measured_us;  // duration observed on hardware
  double idle_us = 0;  // observed stream idle between the op becoming ready and its start
  std::string name;    // free text
  bool operator==(const Op&) const = default;
};

}  // namespace t3sim::workload
