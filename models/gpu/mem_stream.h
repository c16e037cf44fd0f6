// MemStream: turns large accesses (a panel read, a tile store, a DMA chunk) into transaction-sized
// memory requests to one MemTarget, in FIFO order, with back-pressure and a cap on requests in
// flight (the requester's MSHRs / load-store queue). Fidelity knob: txn_bytes (convergence-tested).
// Contract: every submitted access completes exactly once via AccessDone::access_done(tag) after
// its last transaction completes; accesses are issued in submission order; no allocation per
// request in steady state (slots are recycled).
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/memory.h"

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
  bool l2_hit = false;  // served by the L2 slice, not DRAM (MemRequest::l2_hit)
  AccessDone* done = nullptr;
  uint64_t tag = 0;
};

class MemStream final : public common::MemClient {
 public:
  MemStream(common::MemTarget& target, uint32_t txn_bytes, uint32_t max_in_flight, uint16_t gpu);
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
  };
  void pump();
  uint32_t alloc_slot();

  common::MemTarget& target_;
  uint32_t txn_bytes_;
  uint32_t max_in_flight_;
  uint16_t gpu_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> fifo_;  // slot ids awaiting issue, consumed from head_
  size_t head_ = 0;
  uint32_t in_flight_ = 0;
  size_t live_ = 0;
  bool waiting_ = false;
};

}  // namespace t3sim::gpu
