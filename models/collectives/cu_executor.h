// CU executor (NCCL/RCCL-style kernels): each channel holds one CU on every GPU of the group while
// the collective runs. A lane runs its ops in order, moving each slice in pieces: loads (local
// data, received slot) then stores (local result; protocol lines into the peer's slot via
// RemoteMemory, their link headers ahead of them); a piece holds payload x fan bytes of cu_window
// from first load until its stores are posted (Little's law on loads in flight, as the preset
// derives cu_window); the slice ends when every store has landed. Per slice: NCCL_STEPS slot
// credits, then the step latency; Simple slices become visible at their flag, LL/LL128 data as they
// land; flags and credits take the fabric path latency (+ inter-node latency). Source: hardware.md
// §5.2-5.4; T3 §2.4. Contract: as CollectiveExecutor; completions arrive through access_done();
// nothing is dropped.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/collectives/executor.h"
#include "models/gpu/mem_stream.h"

namespace t3sim::collectives {

class CuExecutor final : public CollectiveExecutor,
                         public gpu::AccessDone,
                         public common::FabricReceiver {
 public:
  explicit CuExecutor(ExecContext ctx);
  ~CuExecutor() override;
  void start() override;
  bool finished() const override { return finished_; }
  std::string progress() const override;
  void access_done(uint64_t tag) override;
  void delivered(uint64_t) override {}  // link-header messages carry no data

 private:
  struct LaneState {
    uint32_t op = 0;  // ops completed = index of the current op
    uint32_t cu = 0;
    uint64_t issued = 0;  // payload bytes of the current op whose pieces started
    uint64_t completed = 0;
    bool begun = false;    // the current op passed its start checks and claimed its slots
    Tick began;            // when it did (timeline only)
    bool syncing = false;  // paying the step latency
    bool in_window_queue = false;
    bool pace_waiting = false;  // fair share: a wake-up for its next sending piece is scheduled
  };

  struct ConnState {
    uint32_t started = 0;    // slices the sender began (slot claims)
    uint32_t credited = 0;   // slots the sender knows are free again
    uint32_t published = 0;  // slices whose flag reached the receiver
    uint32_t consumed = 0;   // slices the receiver finished
    uint64_t visible = 0;    // cumulative payload the receiver may read
    uint64_t recv_pos = 0;   // cumulative payload before the receiver's current slice
    uint64_t slot_base = 0;
    uint64_t slot_bytes = 0;
    uint64_t stage_base = 0;    // inter-node: the sender's staging slots (NCCL proxy buffers)
    uint32_t synced = 0;        // inter-node: slices whose sender finished its step
    uint32_t proxied = 0;       // inter-node: slices the proxy has flagged
    uint64_t proxy_landed = 0;  // inter-node: payload landed at the receiver
    uint64_t proxy_cum = 0;     // inter-node: payload of the flagged slices
    Duration flag;
    Bandwidth share;     // fair share: its CU's part of its first link (0: unpaced)
    uint32_t pacer = 0;  // fair share: index into pace_at_ (its CU on that link)
    bool send_waiting = false;
    bool recv_waiting = false;
  };

  struct CuState {
    int gpu = 0;
    uint64_t window = 0;
    uint64_t inflight = 0;
    gpu::MemStream* stream = nullptr;
    uint32_t rr = 0;  // round-robin start among its lanes waiting for window
  };

  struct Piece {
    uint32_t lane = 0;
    uint32_t op = 0;
    uint64_t off = 0;  // within the op's slice
    uint64_t payload = 0;
    uint64_t charge = 0;
    uint32_t pending = 0;
    bool writing = false;
  };

  void launch(uint64_t);
  void advance(uint32_t lane);
  bool can_begin(uint32_t lane, const Op& op);
  bool piece_ready(uint32_t lane, const Op& op, uint64_t end);
  bool direct_recv(const Op& op) const;
  void begin(const Op& op);
  void start_piece(uint32_t lane, uint32_t op_id, uint64_t off, uint64_t payload);
  void issue_reads(uint32_t piece);
  void issue_writes(uint32_t piece);
  void send_piece(uint32_t piece, uint32_t conn, uint32_t k);
  void proxy_landed(uint32_t conn, uint64_t payload);
  void proxy_publish(uint32_t conn);
  void piece_done(uint32_t piece);
  void op_synced(uint64_t lane);
  void publish(uint64_t conn);
  void credit(uint64_t conn);
  void wake_window(uint32_t cu);
  void share_links();
  bool paced(uint32_t lane, const Op& op, uint64_t payload);
  void pace_wake(uint64_t lane);
  void lane_finished();
  uint64_t slot_addr(uint32_t conn, uint32_t seq, uint64_t off) const;
  gpu::Access access(uint64_t addr, uint64_t bytes, common::MemCmd cmd, common::TrafficClass cls,
                     uint32_t piece);
  uint32_t alloc_piece();

  ExecContext x_;
  std::vector<LaneState> lanes_;
  std::vector<ConnState> conns_;
  std::vector<CuState> cus_;
  std::vector<std::unique_ptr<gpu::MemStream>> streams_;  // one per CU
  std::vector<Piece> pieces_;
  std::vector<gpu::Access> scratch_;  // loads or stores of one piece, before submission
  std::vector<uint32_t> free_pieces_;
  std::vector<uint32_t> op_lane_;                   // op id -> lane
  std::vector<std::vector<uint32_t>> cu_lanes_;     // CU -> its lanes
  std::vector<std::vector<uint32_t>> dep_waiters_;  // lane -> lanes waiting for one of its ops
  std::vector<int> group_gpus_;
  std::vector<Tick> pace_at_;  // per (CU, link): earliest start of its next sending piece
  uint64_t piece_ = 0;
  uint64_t piece_slot_ = 0;  // wire bytes a piece occupies in a slot, 4 KiB aligned
  size_t lanes_left_ = 0;
  bool finished_ = false;
};

}  // namespace t3sim::collectives
