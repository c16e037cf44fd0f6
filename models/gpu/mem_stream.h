// MemStream: turns large accesses (a panel read, a tile store, a DMA chunk) into transaction-sized
// memory requests to one MemTarget, in FIFO order, with back-pressure and a cap on requests in
// flight (the requester's MSHRs / load-store queue). Fidelity knob: txn_bytes (convergence-tested).
// With bypass = 0 one FIFO issues in submission order and a refusal stalls the whole stream (one
// queue, e.g. a CU's or a DMA engine's). With bypass = B > 0 the stream stands for many
// independent issuers (every SM of a GPU): up to B accesses behind a refused one may issue, each
// refused access registers with the queue that refused it, and any retry re-offers every blocked
// access, so one full memory channel or L2 slice does not block traffic to the others (no
// head-of-line blocking across channels) and every queue that refused the stream wakes it; chunks
// of one access stay in order. Contract: every submitted access completes exactly once via
// AccessDone::access_done(tag) after its last transaction completes; no allocation per request in
// steady state. Speed: the bypass window is scanned through a bitmap of FIFO positions that may
// issue (a superset: a position whose slot is blocked or fully issued is dropped when met; the
// bitmap covers positions up to the furthest window end so far and grows with it). A slot that
// becomes able to issue (submitted, or retried) re-marks every covered position that names it: a
// released slot's id can be handed out again while its old position is still in the window.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/memory.h"
#include "sim/slot_pool.h"

namespace t3sim::gpu {

class AccessDone {
 public:
  virtual ~AccessDone() = default;
  virtual void access_done(uint64_t tag) = 0;
};

struct Access {
  uint64_t addr = 0;
  uint64_t bytes = 0;
  common::MemCmd cmd = common::MemCmd::kRead;
  common::TrafficClass cls = common::TrafficClass::kGemmRead;
  uint32_t tile = common::kNoTile;
  uint16_t contrib = 1;
  bool l2_hit = false;      // served by the L2 slice, not DRAM (MemRequest::l2_hit)
  bool write_back = false;  // a WRITE the L2 may buffer dirty (MemRequest::write_back)
  common::L2Policy l2 = common::L2Policy::kDefault;  // MemRequest::l2
  AccessDone* done = nullptr;
  uint64_t tag = 0;
};

class MemStream final : public common::MemClient {
 public:
  MemStream(common::MemTarget& target, uint32_t txn_bytes, uint32_t max_in_flight, uint16_t gpu,
            uint32_t bypass = 0);
  void submit(const Access& a);
  size_t pending_accesses() const { return live_; }
  common::MemTarget& target() { return target_; }
  uint32_t in_flight() const { return in_flight_; }
  void mem_done(const common::MemRequest& req) override;
  void mem_retry() override;

 private:
  struct Slot {
    Access a;
    uint64_t issued = 0;     // bytes issued so far
    uint64_t completed = 0;  // bytes completed so far
    bool blocked = false;    // refused; waits for a retry (bypass mode)
  };
  static constexpr uint8_t kIssued = 1;   // flags_: every byte of the slot's access issued
  static constexpr uint8_t kBlocked = 2;  // flags_: Slot::blocked
  void pump();
  void set_flags(uint32_t s) {
    const Slot& slot = slots_[s];
    flags_[s] = static_cast<uint8_t>((slot.issued == slot.a.bytes ? kIssued : 0) |
                                     (slot.blocked ? kBlocked : 0));
  }
  // First FIFO position in [i, end) whose slot may issue (flags 0), or end (bypass mode).
  size_t next_ready(size_t i, size_t end);
  void mark(size_t i) { ready_[i / 64] |= uint64_t{1} << (i % 64); }
  // Marks every covered FIFO position at or after head_ that names slot s (bypass mode).
  void mark_slot(uint32_t s);
  void rebuild_links();
  void push_fifo(uint32_t s);
  void compact_fifo();
  void pump_window();
  bool issue_chunk(uint32_t s);

  common::MemTarget& target_;
  uint32_t txn_bytes_;
  uint32_t max_in_flight_;
  uint16_t gpu_;
  SlotPool<Slot> slots_;
  std::vector<uint8_t> flags_;  // per slot id: kIssued | kBlocked, mirrors slots_ (bypass scans)
  uint32_t blocked_ = 0;        // slots with Slot::blocked set
  std::vector<uint32_t> fifo_;  // slot ids awaiting issue, consumed from head_
  // Bypass mode: bit per covered FIFO position that may issue (a superset; positions from
  // covered_ on have no bit yet); per position the next position naming the same slot; per slot
  // its first position at or after head_ (or an earlier one, pruned when used) and its last one.
  // Positions here are absolute: base_ + FIFO index.
  static constexpr uint64_t kNoPos = ~uint64_t{0};
  std::vector<uint64_t> ready_;
  std::vector<uint64_t> next_pos_;
  std::vector<uint64_t> first_pos_;
  std::vector<uint64_t> last_pos_;
  uint64_t base_ = 0;
  uint64_t covered_ = 0;
  size_t head_ = 0;
  uint32_t in_flight_ = 0;
  size_t live_ = 0;
  bool waiting_ = false;
  uint32_t bypass_ = 0;
  bool pumping_ = false;
  bool repump_ = false;
};

}  // namespace t3sim::gpu
