// Collective schedules as data: NCCL-style primitive operations (send, recvReduceSend,
// recvReduceCopySend, recvCopySend, recv, and their fan-out/fan-in forms) on lanes, where a lane is
// one channel's sequential worker on one GPU, and connections are the directed, ordered links
// between two lanes (the k-th send on a connection matches its k-th receive). Generators (ring,
// direct, hierarchical) emit one op per slice, following NCCL's chunk/slice layout (hardware.md
// §5.1, §5.3); executors (cu_executor.h, dma_executor.h) give the ops their costs. Invariants after
// finalize(): every connection has as many sends as receives; a lane's ops are contiguous in `ops`;
// `dep` points to an earlier-generated op; offsets are 4 KiB aligned.
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/library.h"
#include "models/collectives/ring_orders.h"
#include "models/common/mirror.h"

namespace t3sim::collectives {

inline constexpr uint32_t kNone = 0xffffffffu;
inline constexpr uint64_t kChunkAlign = 4096;  // NCCL Simple: (nthreads - 32) x 8 B

enum OpFlag : uint8_t {
  kRecv = 1,        // consume one slice from each receive connection
  kReadLocal = 2,   // read the local data at offset (reduce with received data, or send it)
  kSend = 4,        // push one slice to each send connection
  kWriteLocal = 8,  // store the result into the local data
};

enum class Phase : uint8_t { kReduceScatter, kAllGather };  // selects rs_* or ag_* traffic

struct Op {
  uint64_t offset = 0;  // byte offset in this GPU's data buffer
  uint64_t stride = 0;  // per-peer addressing: + rank(peer) x stride (0: same data for all peers)
  uint64_t bytes = 0;   // payload per connection (0 = a flag-only step)
  uint32_t send_list = 0;  // first index into Schedule::conn_refs
  uint32_t recv_list = 0;
  uint16_t sends = 0;  // fan-out
  uint16_t recvs = 0;  // fan-in
  uint8_t flags = 0;
  Phase phase = Phase::kReduceScatter;
  uint32_t dep = kNone;  // op (global id) that must complete before this one starts
};

struct Lane {
  int gpu = 0;
  int rank = 0;
  uint32_t channel = 0;  // the CU this lane runs on (lanes of one channel share it)
  uint32_t first_op = 0;
  uint32_t num_ops = 0;
};

struct Conn {
  int src = 0;  // GPU ids
  int dst = 0;
  int src_rank = 0;  // positions in the group
  int dst_rank = 0;
  bool inter_node = false;
  uint64_t max_bytes = 0;      // largest slice sent on it (receive slot size)
  uint32_t send_lane = kNone;  // filled by finalize(): the one lane that sends on it
  uint32_t recv_lane = kNone;  // and the one lane that receives
};

struct Schedule {
  std::vector<Op> ops;
  std::vector<Lane> lanes;
  std::vector<Conn> conns;
  std::vector<uint32_t> conn_refs;  // op fan lists
  // Filled by finalize(): per connection, the op ids of its sends and of its receives, in order.
  std::vector<uint32_t> conn_first;  // size conns + 1
  std::vector<uint32_t> send_ops;
  std::vector<uint32_t> recv_ops;

  uint32_t send_conn(const Op& op, uint32_t k) const { return conn_refs[op.send_list + k]; }
  uint32_t recv_conn(const Op& op, uint32_t k) const { return conn_refs[op.recv_list + k]; }
  // Contract: ModelError naming the connection if its send and receive counts differ or if more
  // than one lane sends (or receives) on it.
  void finalize();
};

// What a generator needs to lay out one collective.
struct Geometry {
  Kind kind = Kind::kAllReduce;
  uint64_t bytes = 0;  // S: the full per-GPU buffer
  uint32_t elem_bytes = 4;
  int root = 0;  // broadcast, reduce: root rank
  uint32_t channels = 1;
  std::vector<int> ranks;  // GPU ids in ring order
  uint64_t chunk = 0;      // largest chunk per rank, channel and loop
  uint32_t slices_per_chunk = 1;
  uint64_t slice_floor = 0;   // smallest slice NCCL cuts (slice size / 32)
  uint64_t min_chunk = 0;     // tree, Simple: the chunk halving by tree depth stops here
  bool channel_major = true;  // Simple: a channel's chunks are contiguous; LL: interleaved
  uint32_t gpus_per_node = 0;
  int ring_step = 1;  // ring: rank r sends to r + ring_step (+1 NCCL's direction, -1 reversed)
  // Ring orders, channel c runs rings[c % size] (position -> rank); empty: the one order of
  // `ranks` (ring_orders.h: edge-disjoint rings on fully connected fabrics).
  std::vector<RingOrder> rings;
  // Set: generate the schedule folded onto GPU 0 under these rotations (fold_stream.h), proving
  // its symmetry on the way; FoldError (models/common/mirror.h) if it is not symmetric.
  const common::GpuRotation* fold = nullptr;
};

// Ring reduce-scatter / all-gather (n-1 steps) and all-reduce (2(n-1) steps), NCCL's runRing.
Schedule make_ring(const Geometry& g);
// One-shot: every GPU sends each peer its part directly, then reduces/copies what it received.
Schedule make_direct(const Geometry& g);
// All-reduce across nodes: intra-node ring RS -> inter-node ring AR among same-local-rank GPUs ->
// intra-node ring AG, on three lanes per channel pipelined by chunk (NCCL's split-thread model).
// Contract: ConfigError unless gpus_per_node divides the group into >= 2 equal nodes.
Schedule make_hierarchical(const Geometry& g);
// NCCL's Tree all-reduce: per channel a chain through each node from the channel's head GPU, the
// heads joined by one of two binary trees over the nodes; reduce up, broadcast down, one slice per
// chunk. Contract: ConfigError unless gpus_per_node (0: one node) cuts the group into equal nodes.
Schedule make_tree(const Geometry& g);
// NVLink SHARP: per rank and channel, chunks of its share for the NVLS executor (nvls_executor.h).
Schedule make_nvls(const Geometry& g);

}  // namespace t3sim::collectives
