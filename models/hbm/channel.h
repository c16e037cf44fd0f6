// One HBM channel (pseudo-channel) and its controller. Fidelity: channel level, no banks/rows: the
// data bus moves `bus` bytes/s (peak x efficiency / channels); a READ/WRITE holds it for
// bytes/bus; an UPDATE holds it for bytes/bus + bytes/nmc (data in, then the near-bank read-modify-
// write); a change of bus direction cannot start a transfer until `turnaround` after the previous
// transfer ended; every completion comes `latency` after its service ends.
// Invariants: finite read and write queues (UPDATEs use the write queue); completions happen in
// service order (per-channel FIFO, one pending completion event); at most one pending arbitration
// event; an empty channel schedules nothing. Per request: O(1) work and <= 2 events.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "models/common/memory.h"
#include "models/hbm/arbitration.h"
#include "models/hbm/hbm_stats.h"
#include "models/hbm/ring_buffer.h"
#include "sim/event.h"
#include "sim/simulator.h"

namespace t3sim::hbm {

struct ChannelTiming {
  Bandwidth bus;
  Bandwidth nmc;
  Duration latency;
  Duration turnaround;
  uint32_t read_capacity = 0;
  uint32_t write_capacity = 0;
};

// State shared by the channels of one Hbm.
struct ChannelEnv {
  Simulator& sim;
  std::string path;  // the Hbm's component path, for error messages
  ChannelTiming timing;
  HbmStats& stats;
  common::UpdateObserver* observer = nullptr;
  uint64_t outstanding = 0;  // accepted and not yet completed, all channels
};

class Channel {
 public:
  Channel(ChannelEnv& env, std::unique_ptr<ArbitrationPolicy> policy);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Contract: false (nothing changes) if the queue for req's command is full.
  bool try_accept(const common::MemRequest& req);
  // Queues `c` for one mem_retry() when the `dir` queue has space (at once if it has space now).
  void add_waiter(BusDir dir, common::MemClient* c);
  // Replaces the policy and re-arbitrates (the new policy may issue what the old one held back).
  void set_policy(std::unique_ptr<ArbitrationPolicy> p);
  const ArbitrationPolicy& policy() const { return *policy_; }
  uint32_t queued() const { return reads_ + writes_; }
  size_t in_service() const { return pipeline_.size(); }

 private:
  struct InFlight {
    Tick done;
    common::MemRequest req;
  };
  uint32_t& count(BusDir d) { return d == BusDir::kRead ? reads_ : writes_; }
  uint32_t capacity(BusDir d) const {
    return d == BusDir::kRead ? env_.timing.read_capacity : env_.timing.write_capacity;
  }
  ChannelView view() const;
  void kick();
  void on_bus_free();
  BusDir start_service(SubQueue q);
  void on_complete();
  void wake_waiters(BusDir d);
  void wake_later(uint64_t dir) { wake_waiters(static_cast<BusDir>(dir)); }

  ChannelEnv& env_;
  std::unique_ptr<ArbitrationPolicy> policy_;
  std::array<RingBuffer<Queued>, kNumSubQueues> queues_;
  uint32_t reads_ = 0;
  uint32_t writes_ = 0;
  uint64_t seq_ = 0;
  RingBuffer<InFlight> pipeline_;
  std::array<RingBuffer<common::MemClient*>, 2> waiters_;  // [0] read queue, [1] write queue
  BusDir last_dir_ = BusDir::kNone;
  Tick busy_until_{};
  MemberEvent<Channel, &Channel::on_bus_free> bus_event_{this};
  MemberEvent<Channel, &Channel::on_complete> done_event_{this};
  bool refused_by_policy_ = false;  // the last refusal was the policy's admission check
};

}  // namespace t3sim::hbm
