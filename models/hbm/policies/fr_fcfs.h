// FR-FCFS at channel level ("fr-fcfs", the default policy). Without rows, the analogue of a row hit
// is a request that keeps the data-bus direction (no read<->write turnaround), so the policy
// batches by direction with Ramulator 2's write-mode hysteresis, in bytes: reads are served first;
// the controller enters write mode when the write queue holds >= high x capacity bytes or no read
// is waiting, and leaves it when writes fall to <= low x capacity with a read waiting (or no write
// remains). Within the chosen direction the oldest row hit (bank fidelity) goes first, else the
// oldest request; an arrival preempts the
// transfer in service only when it flips the write mode. Source: Ramulator 2 generic DRAM
// controller + FRFCFS scheduler (watermark defaults 0.8 / 0.2); the channel-level reduction is
// t3sim's.
#pragma once

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
  // The write mode pick() would choose now, without changing state.
  bool next_write_mode(const ChannelView& v, uint8_t mask) const;
  bool write_mode() const { return write_mode_; }

 private:
  uint64_t high_bytes_;
  uint64_t low_bytes_;
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
    return Decision::issue(core_.pick(v, kAllSubQueues));
  }
  bool preempts(const ChannelView& v, int serving, int /*arrived*/) const override {
    return core_.next_write_mode(v, kAllSubQueues) != ((bit(serving) & kWriteMask) != 0);
  }

 private:
  FrFcfsCore core_;
};

PolicySpec fr_fcfs_policy_spec();

}  // namespace t3sim::hbm
