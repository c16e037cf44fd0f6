#include "models/hbm/mca.h"

#include <algorithm>
#include <cmath>

namespace t3sim::hbm {

McaPolicy::McaPolicy(const PolicyConfig& cfg, uint32_t total_capacity, uint32_t write_capacity)
    : core_(cfg.write_high_watermark, cfg.write_low_watermark, write_capacity),
      total_capacity_(total_capacity),
      dynamic_(cfg.mca_dynamic),
      compute_first_(cfg.mca_compute_first),
      window_(cfg.mca_window),
      starvation_limit_(cfg.mca_starvation_limit),
      threshold_(cfg.mca_dynamic ? kNoLimit : cfg.mca_threshold) {}

void McaPolicy::maybe_finalize(Tick now) {
  if (!window_open_ || now < window_start_ + window_) return;
  window_open_ = false;
  measured_ = true;
  intensity_ = window_.count_ps() == 0 ? 1.0
                                       : static_cast<double>(window_busy_.count_ps()) /
                                             static_cast<double>(window_.count_ps());
  const double room = static_cast<double>(total_capacity_) * (1.0 - intensity_);
  threshold_ = std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(std::max(0.0, room))));
}

bool McaPolicy::admit(const common::MemRequest& req, uint32_t queued) {
  // Communication enters the queue only while occupancy is below the threshold, so compute
  // requests arriving later find a short queue; compute is always admitted (capacity permitting).
  return common::is_compute(req.cls) || threshold_ == kNoLimit || queued < threshold_;
}

Decision McaPolicy::pick(const ChannelView& v) {
  maybe_finalize(v.now);
  uint8_t starved = 0;
  Tick next_deadline = Tick::max();
  for (const SubQueue q : {SubQueue::kCommRead, SubQueue::kCommWrite}) {
    const Queued* h = v.head[static_cast<size_t>(q)];
    if (h == nullptr) continue;
    const Tick deadline = h->req.enqueued + starvation_limit_;
    if (v.now >= deadline) {
      starved |= bit(q);
    } else {
      next_deadline = std::min(next_deadline, deadline);
    }
  }
  int pick = -1;
  if (compute_first_) {
    if (starved != 0) {
      pick = v.oldest_in(starved);
      ++starved_issues_;
    } else if (v.count_in(kComputeMask) > 0) {
      pick = core_.pick(v, kComputeMask);
    } else {
      pick = core_.pick(v, kCommMask);
    }
  } else {
    pick = core_.pick(v, static_cast<uint8_t>(kComputeMask | kCommMask));
  }
  if (pick < 0) return Decision::idle_until(next_deadline);
  return Decision::issue(pick);
}

void McaPolicy::on_service(const common::MemRequest& req, Tick start, Tick end) {
  if (!dynamic_ || measured_ || !common::is_compute(req.cls)) return;
  if (!window_open_) {
    window_open_ = true;
    window_start_ = start;
  }
  const Tick window_end = window_start_ + window_;
  if (start >= window_end) return;
  window_busy_ += (std::min(end, window_end) - start);
}

}  // namespace t3sim::hbm
