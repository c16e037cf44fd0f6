#include "models/hbm/arbitration.h"

namespace t3sim::hbm {

uint64_t ChannelView::bytes_in(uint8_t mask) const {
  uint64_t n = 0;
  for (size_t q = 0; q < kNumSubQueues; ++q) {
    if (mask & (1u << q)) n += bytes[q];
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

}  // namespace t3sim::hbm
