#include "models/hbm/policies/fr_fcfs.h"

#include <algorithm>
#include <cmath>

namespace t3sim::hbm {

FrFcfsCore::FrFcfsCore(double high, double low, Bytes write_capacity)
    : high_bytes_(std::max<uint64_t>(
          1, static_cast<uint64_t>(std::ceil(high * static_cast<double>(write_capacity.count()))))),
      low_bytes_(
          static_cast<uint64_t>(std::floor(low * static_cast<double>(write_capacity.count())))),
      capacity_(write_capacity.count()) {}

bool FrFcfsCore::next_write_mode(const ChannelView& v, uint8_t mask) const {
  const uint64_t reads = v.bytes_in(mask & kReadMask);
  const uint64_t writes = v.bytes_in(mask & kWriteMask);
  if (!write_mode_) return writes > 0 && (writes >= high_bytes_ || reads == 0);
  return !(((writes <= low_bytes_ || drained_ >= batch_bytes_) && reads > 0) || writes == 0);
}

uint64_t FrFcfsCore::grant(const ChannelView& v, uint8_t mask) {
  unlimited_ = !write_mode_ || v.bytes_in(mask & kReadMask) == 0;
  if (unlimited_) return 0;
  return std::max<uint64_t>(1, batch_bytes_ - std::min(batch_bytes_, drained_));
}

int FrFcfsCore::pick(const ChannelView& v, uint8_t mask) {
  if (v.bytes_in(mask) == 0) return -1;
  const bool was = write_mode_;
  write_mode_ = next_write_mode(v, mask);
  if (write_mode_ && !was) {  // the drain: what the queue holds now, down to the low watermark
    const uint64_t held = std::min(v.bytes_in(mask & kWriteMask), capacity_);
    batch_bytes_ = std::max<uint64_t>(1, held - std::min(held, low_bytes_));
    drained_ = 0;
  }
  const uint8_t dir = mask & (write_mode_ ? kWriteMask : kReadMask);
  const int hit = v.oldest_in(dir & v.hit_mask);  // first ready: a row hit goes first
  return hit >= 0 ? hit : v.oldest_in(dir);
}

FrFcfsSettings bind_fr_fcfs(const BoundParams& b) {
  return FrFcfsSettings{b.real("write_high_watermark"), b.real("write_low_watermark")};
}

namespace {

void declare_fr_fcfs(Params& p) {
  p.optional("write_high_watermark", ParamKind::kReal, 0.8,
             "enter write-drain mode at this fraction of the write queue's bytes")
      .range(0.0, 1.0);
  p.optional("write_low_watermark", ParamKind::kReal, 0.2,
             "leave write-drain mode at this fraction of the write queue's bytes")
      .range(0.0, 1.0);
}

PolicyMaker make_fr_fcfs(const BoundParams& b) {
  const FrFcfsSettings s = bind_fr_fcfs(b);
  return [s](const ChannelShape& c) -> std::unique_ptr<ArbitrationPolicy> {
    return std::make_unique<FrFcfsPolicy>(s, c.write_capacity);
  };
}

}  // namespace

PolicySpec fr_fcfs_policy_spec() {
  return PolicySpec{"fr-fcfs",
                    "first-ready FCFS: reads first, write drain between byte watermarks, oldest "
                    "first within a direction",
                    {"write_high_watermark", "write_low_watermark"},
                    &declare_fr_fcfs,
                    &make_fr_fcfs};
}

}  // namespace t3sim::hbm
