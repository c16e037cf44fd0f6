// One HBM channel (pseudo-channel) and its controller. Fidelity: channel level, no banks/rows: the
// data bus moves `bus` bytes/s (peak x efficiency / channels); a READ/WRITE moves its bytes at
// that rate; an UPDATE also spends bytes/nmc beside the banks (or a second bus pass without NMC).
// Service is preemptive-resume at `burst` granularity: the policy picks a sub-queue head; an
// arrival that the policy says may preempt stops the transfer at the next burst boundary and the
// channel re-arbitrates; the stopped head keeps its place and its remaining bytes. A change of bus
// direction waits `turnaround` after the previous transfer ended; a completion comes `latency`
// after the request's last byte (bank fidelity: an NMC UPDATE's after its in-bank RMW). With bank
// fidelity (bank_timing.h) a segment's data starts when its first chunk's bank is ready and runs at
// the pace the banks allow; FR-FCFS prefers heads whose row is open. Invariants: queue capacities
// in bytes (an empty queue accepts any request); completions in order of last byte; at most one
// pending bus event; O(1) events per request amortised (one per transfer segment plus the batched
// completion event).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/common/memory.h"
#include "models/hbm/arbitration.h"
#include "models/hbm/bank_timing.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_stats.h"
#include "sim/event.h"
#include "sim/ring_buffer.h"
#include "sim/simulator.h"

namespace t3sim::hbm {

struct ChannelTiming {
  Bandwidth bus;
  Bandwidth nmc;
  Duration latency;
  Duration turnaround;
  Bytes read_capacity;
  Bytes write_capacity;
  Bytes burst;
  UpdateMode update = UpdateMode::kNmc;
  const BankTiming* bank = nullptr;  // bank fidelity when set
  Bandwidth nmc_bank;                // one bank's RMW throughput (bank fidelity, no PIM unit)
  const PimUnit* pim = nullptr;      // the in-bank RMW's PIM unit (bank fidelity, update nmc)
  uint32_t channels = 1;             // of the Hbm, to form channel-local addresses
  uint64_t interleave = 1;

  // Bus (plus near-bank) time to serve `bytes` of a request with command `cmd`.
  Duration service(common::MemCmd cmd, uint64_t bytes) const;
};

// State shared by the channels of one Hbm.
struct ChannelEnv {
  Simulator& sim;
  std::string path;  // the Hbm's component path, for error messages
  ChannelTiming timing;
  HbmStats& stats;
  common::UpdateObserver* observer = nullptr;
  uint64_t outstanding = 0;  // accepted and not yet completed, all channels
  // Timeline counters (sim/timeline.h), empty when off: one per traffic class, then one per stack.
  std::vector<uint32_t> trace_counters{};
  uint32_t channels_per_stack = 1;
};

class Channel {
 public:
  Channel(ChannelEnv& env, std::unique_ptr<ArbitrationPolicy> policy);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Contract: false (nothing changes) if req's queue has no room for it or the policy refuses it.
  bool try_accept(const common::MemRequest& req);
  // Queues `c` for one mem_retry() when the `dir` queue has space (at once if the last refused
  // request fits now).
  void add_waiter(BusDir dir, common::MemClient* c);
  // Replaces the policy and re-arbitrates (the new policy may issue what the old one held back).
  void set_policy(std::unique_ptr<ArbitrationPolicy> p);
  const ArbitrationPolicy& policy() const { return *policy_; }
  void set_index(uint32_t index) { index_ = index; }
  uint32_t queued() const { return entries_; }
  size_t in_service() const {
    return pipelines_[0].size() + pipelines_[1].size() + (serving_ >= 0 ? 1 : 0);
  }
  uint64_t queued_bytes() const { return bytes_[0] + bytes_[1] + bytes_[2] + bytes_[3]; }
  uint64_t queued_bytes(BusDir d) const {
    return d == BusDir::kRead ? bytes_[0] + bytes_[1] : bytes_[2] + bytes_[3];
  }

 private:
  struct InFlight {
    Tick done;
    common::MemRequest req;
  };
  uint64_t capacity(BusDir d) const {
    return (d == BusDir::kRead ? env_.timing.read_capacity : env_.timing.write_capacity).count();
  }
  bool fits(BusDir d, uint64_t bytes) const {
    const uint64_t occ = queued_bytes(d);
    return occ == 0 || occ + bytes <= capacity(d);
  }
  ChannelView view() const;
  void on_arrival(int q);
  Tick next_boundary(Tick now) const;
  void on_bus_free();
  void arbitrate();
  void settle(Tick now);
  void start_segment(int q, uint64_t grant);
  // env_.timing.service(cmd, bytes), remembering the last answer (segments repeat their sizes).
  Duration segment_time(common::MemCmd cmd, uint64_t bytes) {
    if (cmd != memo_cmd_ || bytes != memo_bytes_) {
      memo_cmd_ = cmd;
      memo_bytes_ = bytes;
      memo_time_ = env_.timing.service(cmd, bytes);
    }
    return memo_time_;
  }
  // Service time of one burst of `cmd` (computed on first use, as the segment's own).
  Duration burst_service(common::MemCmd cmd) {
    const auto c = static_cast<size_t>(cmd);
    if ((burst_known_ & (1u << c)) == 0) {
      burst_service_[c] = env_.timing.service(cmd, env_.timing.burst.count());
      burst_known_ |= static_cast<uint8_t>(1u << c);
    }
    return burst_service_[c];
  }
  void plan_banks(const Queued& h, Tick start);
  void look_ahead(const Queued& serving, Tick start);
  // Bank fidelity: queued entries per sub-queue whose rows are opened ahead (chosen by t3sim:
  // enough for 64 B requests to hide tRCD + tRP behind a 2 KiB row's transfer).
  static constexpr size_t kLookahead = 16;
  void finish_transfer(int q);
  void trace_service(common::TrafficClass cls, Tick end, uint64_t served);
  void on_complete();
  void schedule_completion();
  void wake_waiters(BusDir d);
  void wake_later(uint64_t dir) { wake_waiters(static_cast<BusDir>(dir)); }
  void on_readmit();

  ChannelEnv& env_;
  uint32_t index_ = 0;  // within the Hbm (its stack is index_ / channels_per_stack)
  std::unique_ptr<ArbitrationPolicy> policy_;
  std::array<RingBuffer<Queued>, kNumSubQueues> queues_;
  std::array<uint64_t, kNumSubQueues> bytes_{};  // bytes not yet on the bus, per sub-queue
  uint32_t entries_ = 0;
  uint64_t seq_ = 0;
  int serving_ = -1;  // sub-queue whose head is on the bus, -1 = bus free
  Tick seg_start_{};
  Tick seg_end_{};
  uint64_t seg_bytes_ = 0;  // bytes the current segment moves by seg_end_
  Duration burst_time_{};
  std::array<Duration, 3> burst_service_{};  // burst_service() per common::MemCmd
  uint8_t burst_known_ = 0;                  // bit per common::MemCmd: burst_service_ is set
  common::MemCmd memo_cmd_ = common::MemCmd::kRead;  // segment_time()'s last question and answer
  uint64_t memo_bytes_ = 0;
  Duration memo_time_{};
  Tick nmc_done_{};                        // bank fidelity: in-bank RMW end of the current segment
  std::array<Tick, 2> last_done_{};        // latest completion per pipeline (each stays ordered)
  std::unique_ptr<BankSet> banks_;         // bank fidelity only
  std::vector<uint64_t> lookahead_banks_;  // bit per bank, scratch for look_ahead()
  // [0] completions in bus order; [1] bank fidelity: NMC UPDATEs after their in-bank RMW.
  std::array<RingBuffer<InFlight>, 2> pipelines_;
  std::array<RingBuffer<common::MemClient*>, 2> waiters_;  // [0] read queue, [1] write queue
  BusDir last_dir_ = BusDir::kNone;
  Tick last_end_{};
  MemberEvent<Channel, &Channel::on_bus_free> bus_event_{this};
  MemberEvent<Channel, &Channel::on_complete> done_event_{this};
  MemberEvent<Channel, &Channel::on_readmit> readmit_event_{this};
  bool arbitrating_ = false;        // inside on_bus_free: arrivals defer to it
  uint8_t arrived_mask_ = 0;        // sub-queues that got arrivals while arbitrating_
  bool refused_by_policy_ = false;  // the last refusal was the policy's admission check
  uint64_t refused_bytes_ = 0;      // size of the last refused request
};

}  // namespace t3sim::hbm
