// FR-FCFS at channel level ("fr-fcfs", the default policy). Without rows, the analogue of a row hit
// is a request that keeps the data-bus direction (no read<->write turnaround), so the policy
// batches by direction with Ramulator 2's write-mode hysteresis: reads are served first; the
// controller enters write mode when the write queue holds >= ceil(high x capacity) entries or no
// read is waiting, and leaves it when writes fall to <= floor(low x capacity) with a read waiting
// (or no write remains). Within the chosen direction the oldest request goes first. Source:
// Ramulator 2 generic DRAM controller + FRFCFS scheduler (watermark defaults 0.8 / 0.2); the
// channel-level reduction is t3sim's.
#pragma once

#include <cstdint>
#include <string_view>

#include "models/hbm/arbitration.h"

namespace t3sim::hbm {

// The FR-FCFS decision over a subset of the sub-queues, with its write-mode state; MCA reuses it.
class FrFcfsCore {
 public:
  // Contract: 0 <= low < high <= 1 (checked by the Hbm's parameter binding).
  FrFcfsCore(double high, double low, uint32_t write_capacity);
  // Oldest request of the direction chosen by the write-mode rule among the sub-queues in `mask`
  // (counts are those of the masked sub-queues); -1 if they are all empty.
  int pick(const ChannelView& v, uint8_t mask);
  bool write_mode() const { return write_mode_; }

 private:
  uint32_t high_entries_;
  uint32_t low_entries_;
  bool write_mode_ = false;
};

class FrFcfsPolicy final : public ArbitrationPolicy {
 public:
  FrFcfsPolicy(double high, double low, uint32_t write_capacity)
      : core_(high, low, write_capacity) {}
  std::string_view name() const override { return "fr-fcfs"; }
  Decision pick(const ChannelView& v) override {
    return Decision::issue(core_.pick(v, kAllSubQueues));
  }

 private:
  FrFcfsCore core_;
};

}  // namespace t3sim::hbm
