#include "models/hbm/fr_fcfs.h"

#include <algorithm>
#include <cmath>

namespace t3sim::hbm {

FrFcfsCore::FrFcfsCore(double high, double low, uint32_t write_capacity)
    : high_entries_(std::max<uint32_t>(
          1, static_cast<uint32_t>(std::ceil(high * static_cast<double>(write_capacity))))),
      low_entries_(static_cast<uint32_t>(std::floor(low * static_cast<double>(write_capacity)))) {}

int FrFcfsCore::pick(const ChannelView& v, uint8_t mask) {
  const uint32_t reads = v.count_in(mask & kReadMask);
  const uint32_t writes = v.count_in(mask & kWriteMask);
  if (reads == 0 && writes == 0) return -1;
  if (!write_mode_) {
    if (writes >= high_entries_ || reads == 0) write_mode_ = true;
  } else if ((writes <= low_entries_ && reads > 0) || writes == 0) {
    write_mode_ = false;
  }
  return v.oldest_in(mask & (write_mode_ ? kWriteMask : kReadMask));
}

}  // namespace t3sim::hbm
