// FR-FCFS at channel level ("fr-fcfs", the default policy). Without rows, the analogue of a row hit
// is a request that keeps the data-bus direction (no read<->write turnaround), so the policy
// batches by direction with Ramulator 2's write-mode hysteresis, in bytes: reads are served first;
// the controller enters write mode when the write queue holds >= high x capacity bytes or no read
// is waiting, and leaves it when writes fall to <= low x capacity with a read waiting (or no write
// remains). Within the chosen direction the oldest row hit (bank fidelity) goes first, else the
// oldest request; an arrival preempts the transfer in service only when it flips the write mode.
// Drain batch: on entering write mode the controller drains what its write queue holds then
// (at most its capacity) down to the low watermark, and with a read waiting it leaves write mode
// once that batch is written, not chasing writes that arrived meanwhile. Without coarse requests
// and refills this is Ramulator's "drain to low"; t3sim's requests are coarse (a 32 KiB transaction
// can exceed an 8 KiB queue on its own, of which the queue physically holds only its capacity), so
// a write-mode pick is granted at most the rest of the batch while a read waits; a read arriving
// during an unlimited drain makes the controller re-arbitrate at the next burst boundary.
// Source: Ramulator 2 generic DRAM controller +
// FRFCFS scheduler (watermark defaults 0.8 / 0.2); the channel-level reduction and the byte batch
// are t3sim's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "models/hbm/arbitration.h"
#include "models/hbm/policy_table.h"

namespace t3sim::hbm {

// The FR-FCFS decision over a subset of the sub-queues, with its write-mode state; MCA reuses it.
class FrFcfsCore {
 public:
  // Contract: 0 <= low < high <= 1 (checked by the Hbm's parameter binding).
  FrFcfsCore(double high, double low, Bytes write_capacity);
  // Oldest request of the direction chosen by the write-mode rule among the sub-queues in `mask`
  // (byte counts are those of the masked sub-queues); -1 if they are all empty.
  int pick(const ChannelView& v, uint8_t mask);
  // Bytes the last pick() may move before the controller asks again (0: until it is done).
  uint64_t grant(const ChannelView& v, uint8_t mask);
  // A read arriving while a write drains with no batch limit (no read was waiting when it began)
  // must re-arbitrate so the batch applies from now on.
  bool read_cuts_drain(const ChannelView& v, int serving, int arrived) const {
    return write_mode_ && unlimited_ && (bit(serving) & kWriteMask) != 0 &&
           (bit(arrived) & kReadMask) != 0 &&
           v.bytes_in(kWriteMask) > batch_bytes_ - std::min(batch_bytes_, drained_);
  }
  // The write mode pick() would choose now, without changing state.
  bool next_write_mode(const ChannelView& v, uint8_t mask) const;
  bool write_mode() const { return write_mode_; }
  // Bytes served (the channel's on_service): counts the current write drain.
  void served(const common::MemRequest& req, uint64_t bytes) {
    if (write_mode_ && req.cmd != common::MemCmd::kRead) drained_ += bytes;
  }

 private:
  uint64_t high_bytes_;
  uint64_t low_bytes_;
  uint64_t capacity_;
  uint64_t batch_bytes_ = 1;  // the current drain (set on entering write mode)
  uint64_t drained_ = 0;      // bytes written since write mode began
  bool unlimited_ = false;    // the last grant had no byte limit
  bool write_mode_ = false;
};

struct FrFcfsSettings {
  double high = 0.8;
  double low = 0.2;
};
// Binds the write watermarks (declared by the fr-fcfs table entry).
FrFcfsSettings bind_fr_fcfs(const BoundParams& b);

class FrFcfsPolicy final : public ArbitrationPolicy {
 public:
  FrFcfsPolicy(const FrFcfsSettings& s, Bytes write_capacity)
      : core_(s.high, s.low, write_capacity) {}
  std::string_view name() const override { return "fr-fcfs"; }
  Decision pick(const ChannelView& v) override {
    const int q = core_.pick(v, kAllSubQueues);
    return Decision::issue(q, core_.grant(v, kAllSubQueues));
  }
  void on_service(const common::MemRequest& req, uint64_t bytes, Tick /*start*/,
                  Tick /*end*/) override {
    core_.served(req, bytes);
  }
  bool preempts(const ChannelView& v, int serving, int arrived) const override {
    return core_.next_write_mode(v, kAllSubQueues) != ((bit(serving) & kWriteMask) != 0) ||
           core_.read_cuts_drain(v, serving, arrived);
  }

 private:
  FrFcfsCore core_;
};

PolicySpec fr_fcfs_policy_spec();

}  // namespace t3sim::hbm
