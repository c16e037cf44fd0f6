#include "models/hbm/arbitration.h"

#include "models/hbm/fr_fcfs.h"
#include "models/hbm/mca.h"

namespace t3sim::hbm {

uint32_t ChannelView::count_in(uint8_t mask) const {
  uint32_t n = 0;
  for (size_t q = 0; q < kNumSubQueues; ++q) {
    if (mask & (1u << q)) n += count[q];
  }
  return n;
}

int ChannelView::oldest_in(uint8_t mask) const {
  int best = -1;
  for (size_t q = 0; q < kNumSubQueues; ++q) {
    if (!(mask & (1u << q)) || head[q] == nullptr) continue;
    if (best < 0 || head[q]->seq < head[static_cast<size_t>(best)]->seq) best = static_cast<int>(q);
  }
  return best;
}

std::unique_ptr<ArbitrationPolicy> make_policy(std::string_view name, const PolicyConfig& cfg,
                                               uint32_t read_capacity, uint32_t write_capacity) {
  if (name == "fr-fcfs") {
    return std::make_unique<FrFcfsPolicy>(cfg.write_high_watermark, cfg.write_low_watermark,
                                          write_capacity);
  }
  if (name == "mca")
    return std::make_unique<McaPolicy>(cfg, read_capacity + write_capacity, write_capacity);
  return nullptr;
}

}  // namespace t3sim::hbm
