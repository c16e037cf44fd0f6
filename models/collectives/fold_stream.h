// Folding while a schedule is generated (ScheduleBuilder in fold mode): the representatives' lanes
// (GPUs [0, rot.reps()), mirror.h) are kept as usual; every other GPU g's chunk ops are compared
// with rep(g)'s op at the same place (same lane index among the GPU's lanes, same chunk index) as
// they are generated and then dropped, so a folded schedule and its proof of symmetry need the
// representatives' ops and the connections alone. The proof is fold_schedule's (fold.h) at chunk
// level: a chunk's slices follow from its arguments.
// Contract: rep(g)'s lane k must be generated before GPU g's lane k; FoldError otherwise, and for
// every difference fold_schedule would reject. fold() returns what fold_schedule returns.
#pragma once

#include <cstdint>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/collectives/schedule.h"
#include "models/common/mirror.h"

namespace t3sim::collectives {

class FoldStream {
 public:
  explicit FoldStream(const common::GpuRotation& rot);

  // Called by ScheduleBuilder for every lane and chunk of every GPU, in generation order. A chunk
  // returns its handle (what the builder hands back as the chunk's id); `real_last` is the id of
  // its last stored slice (representatives only). `dep` is a handle or kNone.
  void open_lane(int gpu, uint32_t channel);
  uint32_t chunk(uint8_t flags, Phase phase, uint64_t bytes, uint64_t stride,
                 std::span<const uint32_t> sends, std::span<const uint32_t> recvs, uint32_t dep,
                 uint32_t real_last) {
    if (repeats(flags, phase, bytes, stride, sends, recvs, dep)) {
      ++at_;
      return next_++;
    }
    return chunk_checked(flags, phase, bytes, stride, sends, recvs, dep, real_last);
  }
  bool storing() const { return gpu_ >= 0 && gpu_ < rot_.reps(); }
  // The stored op id of handle `h`'s last slice; h must be one of a representative's chunks.
  uint32_t real(uint32_t h) const;

  // Finishes the proof over `s` (the representatives' lanes and ops, every connection) and returns
  // the folded schedule, finalized.
  Schedule fold(Schedule s);

 private:
  struct Chunk {
    uint64_t bytes, stride;
    uint8_t flags;
    Phase phase;
    uint16_t sends, recvs;
    uint32_t refs;      // first of sends then recvs in refs_
    uint32_t dep_lane;  // local lane of the dependency (kNone: none)
    uint32_t dep_chunk;
    uint32_t real_last;
  };
  struct LaneRec {
    int gpu;
    uint32_t local;  // index among its GPU's lanes
    uint32_t first;  // handle of its first chunk
  };
  uint32_t chunk_checked(uint8_t flags, Phase phase, uint64_t bytes, uint64_t stride,
                         std::span<const uint32_t> sends, std::span<const uint32_t> recvs,
                         uint32_t dep, uint32_t real_last);
  // The common case on a GPU that is not a representative, counted without the full check: no
  // dependency, at most one send and one receive, on the connections the lane's previous checked
  // chunk paired with its representative's, which uses the same ones here with the same arguments.
  bool repeats(uint8_t flags, Phase phase, uint64_t bytes, uint64_t stride,
               std::span<const uint32_t> sends, std::span<const uint32_t> recvs, uint32_t dep) {
    if (rep_lane_ == nullptr || dep != kNone || stride != 0 || sends.size() > 1 ||
        recvs.size() > 1 || at_ >= rep_lane_->size()) {
      return false;
    }
    const Chunk& x = (*rep_lane_)[at_];
    if (x.bytes != bytes || x.stride != 0 || x.flags != flags || x.phase != phase ||
        x.sends != sends.size() || x.recvs != recvs.size() || x.dep_lane != kNone) {
      return false;
    }
    if (!sends.empty() && (sends[0] != last_send_ || refs_[x.refs] != paired_send_)) return false;
    if (!recvs.empty() && (recvs[0] != last_recv_ || refs_[x.refs + x.sends] != paired_recv_)) {
      return false;
    }
    if (!sends.empty()) ++nsend_[sends[0]];
    if (!recvs.empty()) ++nrecv_[recvs[0]];
    return true;
  }
  const LaneRec& lane_of(uint32_t handle) const;
  void grow(size_t n);  // per-connection arrays to at least n
  void note_conn(uint32_t c, bool send, uint16_t fan);
  void match(uint32_t cg, uint32_t c0);
  void close_lane();

  common::GpuRotation rot_;
  int gpu_ = -1;
  uint32_t local_ = 0;  // current lane's index among gpu_'s lanes
  uint32_t at_ = 0;     // chunks of the current lane so far
  uint32_t next_ = 0;   // next handle
  // The current lane's last noted send (fan-out 0) and receive connections; and, while a lane of
  // a GPU that is not a representative is open, its representative's lane (else nullptr).
  uint32_t last_send_ = kNone, last_recv_ = kNone;
  const std::vector<Chunk>* rep_lane_ = nullptr;
  // The representative's connections that the current lane's last checked chunk paired with
  // last_send_ and last_recv_.
  uint32_t paired_send_ = kNone, paired_recv_ = kNone;
  std::vector<uint32_t> lanes_per_gpu_;
  std::vector<LaneRec> lanes_;
  std::vector<std::vector<uint32_t>> rep_channel_;    // per representative, by local lane
  std::vector<std::vector<std::vector<Chunk>>> rep_;  // per representative, chunks by local lane
  std::vector<uint32_t> refs_;
  // Per connection: key of its first send (sender GPU, lane, chunk, fan), chunk sends and receives,
  // and the lanes (global index) that send and receive on it.
  std::vector<uint64_t> key_;
  std::vector<uint32_t> nsend_, nrecv_, send_lane_, recv_lane_;
  // (connection of GPU g, rep(g)'s connection at the same place, g): checked when keys are known.
  std::vector<std::pair<uint32_t, uint32_t>> lane_match_;  // the current lane's, deduplicated
  std::vector<std::tuple<uint32_t, uint32_t, int>> matches_;
};

}  // namespace t3sim::collectives
