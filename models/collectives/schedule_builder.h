// Internal helper of the schedule generators: creates connections and lanes, and cuts each chunk
// operation into slices the way NCCL's Simple primitives do (slice = chunk / slices_per_chunk, at
// least slice_floor, 4 KiB aligned; trailing slices may be empty flag-only steps).
// Contract: ops of a lane are emitted between open_lane() calls (lanes are contiguous); take()
// finalizes and returns the schedule.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/collectives/fold_stream.h"
#include "models/collectives/schedule.h"
#include "models/collectives/schedule_limits.h"

namespace t3sim::collectives {

// NCCL's primitives (src/device/primitives.h) as op flags.
constexpr uint8_t kSendOnly = kReadLocal | kSend;
constexpr uint8_t kRecvReduceSend = kRecv | kReadLocal | kSend;
constexpr uint8_t kRecvReduceCopySend = kRecv | kReadLocal | kWriteLocal | kSend;
constexpr uint8_t kRecvReduceCopy = kRecv | kReadLocal | kWriteLocal;
constexpr uint8_t kRecvCopySend = kRecv | kWriteLocal | kSend;
constexpr uint8_t kRecvOnly = kRecv | kWriteLocal;

inline int mod(int a, int n) { return ((a % n) + n) % n; }
inline uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t round_up(uint64_t a, uint64_t b) { return div_up(a, b) * b; }
inline uint64_t clamp_len(uint64_t total, uint64_t off, uint64_t len) {
  return off >= total ? 0 : (total - off < len ? total - off : len);
}

// One loop iteration of NCCL's grid: chunk size for `parts` chunks per channel.
struct Loop {
  uint64_t grid = 0;  // start of this loop in the region
  uint64_t real = 0;  // chunk size of this loop
};
// How many loops make_loops() cuts.
uint64_t loop_count(uint64_t total, uint64_t channels, uint64_t parts, uint64_t chunk);
// Loops over a region of `total` bytes cut into channels x parts chunks of at most `chunk`.
// ScheduleTooLarge when they alone pass the bounds (a stored lane has a chunk op per loop).
std::vector<Loop> make_loops(uint64_t total, uint64_t channels, uint64_t parts, uint64_t chunk);

// A group cut into nodes of `local` consecutive ranks (the node-aware generators).
struct NodeShape {
  int local = 0;  // GPUs per node (L)
  int nodes = 0;  // N
  int rank(int node, int l) const { return node * local + l; }
};
// Contract: ConfigError naming `algo` unless gpus_per_node divides the group into at least
// `min_nodes` equal nodes whose GPUs are consecutive in the group; gpus_per_node 0 is one node.
NodeShape node_shape(const Geometry& g, const std::string& algo, int min_nodes);

// With Geometry::fold set, only GPU 0's lanes are stored and take() returns the folded schedule
// (fold_stream.h); chunk ids are then handles that are only good as `dep` of later chunks.
class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(const Geometry& g);
  ~ScheduleBuilder();
  const Geometry& geo() const { return g_; }
  int size() const { return static_cast<int>(g_.ranks.size()); }
  int gpu(int rank) const { return g_.ranks[static_cast<size_t>(rank)]; }

  // Room for `ops` ops in all: a generator that knows its count saves the growth copies (and the
  // start-up page faults of the memory they touch).
  void reserve_ops(size_t ops) { s_.ops.reserve(ops); }
  // A generator that knows its size says so first: `lanes` lanes of `chunks_per_lane` chunk ops
  // each (folded: the representatives' share is stored). ScheduleTooLarge past the bounds
  // (schedule_limits.h); without it the bounds are checked as ops are emitted.
  void expect(uint64_t lanes, uint64_t chunks_per_lane) const;
  uint32_t connect(int src_rank, int dst_rank);
  void open_lane(int rank, uint32_t channel);
  // Emits the slices of one chunk op on the open lane; returns the id of its last slice.
  uint32_t chunk(uint8_t flags, Phase phase, uint64_t offset, uint64_t bytes,
                 std::span<const uint32_t> sends, std::span<const uint32_t> recvs,
                 uint64_t stride = 0, uint32_t dep = kNone) {
    if (++chunks_ > kMaxScheduleChunks) check_schedule_size(0, chunks_);
    if (dropping_) return fold_->chunk(flags, phase, bytes, stride, sends, recvs, dep, kNone);
    return chunk_stored(flags, phase, offset, bytes, sends, recvs, stride, dep);
  }
  uint32_t chunk(uint8_t flags, Phase phase, uint64_t offset, uint64_t bytes,
                 std::initializer_list<uint32_t> sends, std::initializer_list<uint32_t> recvs,
                 uint32_t dep = kNone) {
    return chunk(flags, phase, offset, bytes,
                 std::span<const uint32_t>(sends.begin(), sends.size()),
                 std::span<const uint32_t>(recvs.begin(), recvs.size()), 0, dep);
  }
  Schedule take();

 private:
  uint32_t chunk_stored(uint8_t flags, Phase phase, uint64_t offset, uint64_t bytes,
                        std::span<const uint32_t> sends, std::span<const uint32_t> recvs,
                        uint64_t stride, uint32_t dep);
  void close_lane();
  uint32_t emit(uint8_t flags, Phase phase, uint64_t offset, uint64_t bytes, uint64_t stride,
                uint32_t send_list, uint32_t recv_list, uint16_t sends, uint16_t recvs,
                uint32_t dep);
  Geometry g_;
  Schedule s_;
  bool lane_open_ = false;  // a stored lane is open
  bool dropping_ = false;   // a folded lane is open that is checked and dropped (fold_stream.h)
  uint64_t chunks_ = 0;     // chunk ops generated, stored or dropped
  std::unique_ptr<FoldStream> fold_;
};

}  // namespace t3sim::collectives
