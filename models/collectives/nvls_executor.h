// NVLS executor (NVLink SHARP, NCCL's NVLS algorithm; hardware.md §5.1-5.2): each channel holds one
// CU per GPU; a lane works through its chunks in pieces. multimem.ld_reduce: the request crosses to
// the switch, which reads the piece from every GPU's HBM; each copy crosses its GPU's link up into
// the fabric's in-switch reduction (common::FabricApi::reduce_in_switch), which sends one reduced
// piece down to the requester once all n copies are there.
// multimem.st: the piece goes up once and the switch multicasts it down to every GPU, where it is
// written to HBM. A piece holds its bytes of the CU's window from issue until its loaded (reduced
// or local) data is in the CU; stores are posted; the lane ends when every store has landed, then
// pays the protocol's step latency (the closing flag). Fidelity: the switch reduces at its ports'
// reduce_bandwidth and replicates at line rate, with no buffer limit; read requests cost one path
// latency and no link bytes.
// Folded (ExecContext::fold_gpus): GPU 0 alone; the copies other GPUs would read and receive cross
// GPU 0's links and memory at their rotated offsets (collectives/fold.h fold_offsets).
// Contract: as CollectiveExecutor; needs every pair of the group to meet in one switch (two hops).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/collectives/executor.h"
#include "models/gpu/mem_stream.h"

namespace t3sim::collectives {

class NvlsExecutor final : public CollectiveExecutor,
                           public gpu::AccessDone,
                           public common::FabricReceiver {
 public:
  explicit NvlsExecutor(ExecContext ctx);
  ~NvlsExecutor() override;
  void start() override;
  bool finished() const override { return finished_; }
  std::string progress() const override;
  void access_done(uint64_t tag) override;
  void delivered(uint64_t tag) override;

 private:
  enum Step : uint8_t { kRead, kUp, kReduced, kCastUp, kCastDown, kLanded };
  struct LaneState {
    uint32_t op = 0;
    uint64_t issued = 0;
    uint32_t outstanding = 0;  // pieces issued whose stores have not all landed
    uint32_t cu = 0;
    bool waiting = false;  // for window
    bool done = false;
  };
  struct Piece {
    uint32_t lane = 0;
    uint32_t op = 0;
    uint64_t off = 0;  // byte offset in the data buffer
    uint64_t payload = 0;
    uint32_t count = 0;  // multicast stores landed
    bool charged = false;
  };

  void launch(uint64_t);
  void advance(uint32_t lane);
  void issue_reduce(uint64_t piece);
  void loaded(uint32_t piece);
  void cast(uint32_t piece);
  void piece_done(uint32_t piece);
  void lane_end(uint64_t lane);
  void release_window(uint32_t piece);
  int other(int gpu) const;  // a group member != gpu (the source of a switch-to-gpu segment)
  uint64_t folded_off(const Piece& pc, size_t i) const;  // folded: rank -i's offset of pc
  int folded_peer(int i) const;  // folded: GPU i's segment partner, rotated onto GPU 0
  uint64_t tag(uint32_t piece, Step s, int gpu = 0) const;
  gpu::Access access(int gpu, uint64_t off, uint64_t bytes, common::MemCmd cmd,
                     common::TrafficClass cls, uint64_t tag);

  ExecContext x_;
  std::vector<LaneState> lanes_;
  std::vector<uint64_t> inflight_;  // per CU (group position x channels + channel)
  std::vector<std::vector<uint32_t>> cu_lanes_;
  std::vector<std::unique_ptr<gpu::MemStream>> cu_streams_;    // per CU: its own loads
  std::vector<std::unique_ptr<gpu::MemStream>> switch_reads_;  // per GPU: reads for the switch
  std::vector<std::unique_ptr<gpu::MemStream>> cast_writes_;   // per GPU: multicast landings
  std::vector<int> group_;
  std::vector<int> pos_;  // GPU id -> group position (-1: not in the group)
  std::vector<Piece> pieces_;
  std::vector<uint32_t> free_pieces_;
  uint32_t channels_ = 1;
  size_t n_ = 0;  // GPUs of the group (folded: the group GPU 0 stands for)
  uint64_t window_ = 0;
  uint64_t piece_ = 0;
  size_t lanes_left_ = 0;
  bool finished_ = false;
};

}  // namespace t3sim::collectives
