#include "models/hbm/policies/mca.h"

#include <algorithm>
#include <cmath>

namespace t3sim::hbm {

McaPolicy::McaPolicy(const McaSettings& s, const ChannelShape& shape)
    : s_(s),
      core_(s.fr.high, s.fr.low, shape.write_capacity),
      bus_(shape.bus),
      threshold_(s.dynamic ? kNoLimit : std::max<uint64_t>(1, s.threshold.count())) {}

void McaPolicy::maybe_finalize(Tick now) {
  if (!window_open_ || now < window_start_ + s_.window) return;
  window_open_ = false;
  measured_ = true;
  const double full = static_cast<double>(bytes_in(s_.window, bus_).count());
  intensity_ = full <= 0.0 ? 1.0 : std::min(1.0, window_bytes_ / full);
  const double room = static_cast<double>(bytes_in(s_.horizon, bus_).count()) * (1.0 - intensity_);
  threshold_ = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(std::max(0.0, room))));
}

bool McaPolicy::admit(const common::MemRequest& req, uint64_t occupancy, Tick now) {
  if (common::is_compute(req.cls)) return true;
  maybe_finalize(now);
  if (threshold_ == kNoLimit || occupancy < threshold_) {
    if (threshold_ != kNoLimit) max_gated_admit_ = std::max(max_gated_admit_, occupancy);
    refused_since_ = Tick::max();
    return true;
  }
  if (refused_since_ == Tick::max()) refused_since_ = now;
  if (now < refused_since_ + s_.starvation_limit) return false;
  ++starved_admits_;
  refused_since_ = Tick::max();
  return true;
}

Decision McaPolicy::pick(const ChannelView& v) {
  maybe_finalize(v.now);
  uint8_t starved_mask = 0;
  Tick next_deadline = Tick::max();
  for (const SubQueue q : {SubQueue::kCommRead, SubQueue::kCommWrite}) {
    const Queued* h = v.head[static_cast<size_t>(q)];
    if (h == nullptr) continue;
    if (starved(h, v.now)) {
      starved_mask |= bit(q);
    } else {
      next_deadline = std::min(next_deadline, h->req.enqueued + s_.starvation_limit);
    }
  }
  int pick = -1;
  core_mask_ = kAllSubQueues;
  if (!s_.compute_first) {
    pick = core_.pick(v, kAllSubQueues);
  } else if (starved_mask != 0) {
    pick = v.oldest_in(starved_mask);
    ++starved_issues_;
  } else if (v.bytes_in(kComputeMask) > 0) {
    core_mask_ = kComputeMask;
    pick = core_.pick(v, kComputeMask);
  } else {
    core_mask_ = kCommMask;
    pick = core_.pick(v, kCommMask);
  }
  if (pick < 0) return Decision::idle_until(next_deadline);
  const uint64_t grant = core_.grant(v, core_mask_);
  return Decision::issue(pick, (bit(pick) & starved_mask) != 0 ? 0 : grant);
}

bool McaPolicy::preempts(const ChannelView& v, int serving, int arrived) const {
  if (core_.read_cuts_drain(v, serving, arrived) &&
      !(is_comm(serving) && starved(v.head[static_cast<size_t>(serving)], v.now))) {
    return true;
  }
  const bool serving_writes = (bit(serving) & kWriteMask) != 0;
  if (!s_.compute_first) return core_.next_write_mode(v, kAllSubQueues) != serving_writes;
  if (is_comm(serving)) {
    return !is_comm(arrived) && !starved(v.head[static_cast<size_t>(serving)], v.now);
  }
  return !is_comm(arrived) && core_.next_write_mode(v, kComputeMask) != serving_writes;
}

void McaPolicy::on_service(const common::MemRequest& req, uint64_t bytes, Tick start, Tick end) {
  core_.served(req, bytes);
  if (!s_.dynamic || measured_ || !common::is_compute(req.cls) || bytes == 0) return;
  if (!window_open_) {
    window_open_ = true;
    window_start_ = start;
  }
  const Tick window_end = window_start_ + s_.window;
  if (start >= window_end || end <= start) return;
  const double inside = static_cast<double>((std::min(end, window_end) - start).count_ps()) /
                        static_cast<double>((end - start).count_ps());
  window_bytes_ += static_cast<double>(bytes) * inside;
}

namespace {

void declare_mca(Params& p) {
  using K = ParamKind;
  p.optional("mca_mode", K::kString, "dynamic", "MCA threshold: measured per channel or fixed")
      .one_of({"dynamic", "static"});
  p.optional("mca_threshold", K::kBytes, "32 KiB",
             "MCA static mode: communication enters while queued bytes are below this")
      .at_least(1);
  p.optional("mca_window", K::kDuration, "5 us",
             "MCA dynamic mode: first-stage window, from a channel's first compute service, that "
             "measures memory intensity")
      .at_least(1);
  p.optional("mca_horizon", K::kDuration, "4 us",
             "MCA dynamic mode: threshold = (1 - intensity) x channel bandwidth x this")
      .at_least(1);
  p.optional("mca_starvation_limit", K::kDuration, "2 us",
             "MCA: communication refused or queued this long is admitted / served regardless");
  p.optional("mca_compute_first", K::kBool, true, "MCA: serve compute traffic first");
}

PolicyMaker make_mca(const BoundParams& b) {
  McaSettings s;
  s.fr = bind_fr_fcfs(b);
  s.dynamic = b.str("mca_mode") == "dynamic";
  s.threshold = b.bytes("mca_threshold");
  s.window = b.duration("mca_window");
  s.horizon = b.duration("mca_horizon");
  s.starvation_limit = b.duration("mca_starvation_limit");
  s.compute_first = b.boolean("mca_compute_first");
  return [s](const ChannelShape& c) -> std::unique_ptr<ArbitrationPolicy> {
    return std::make_unique<McaPolicy>(s, c);
  };
}

}  // namespace

PolicySpec mca_policy_spec() {
  return PolicySpec{
      "mca",
      "T3 communication-aware arbitration: compute first, communication admitted "
      "only below a byte threshold from the first stage's memory intensity, "
      "starvation limit",
      {"mca_mode", "mca_threshold", "mca_window", "mca_horizon", "mca_starvation_limit",
       "mca_compute_first", "write_high_watermark", "write_low_watermark"},
      &declare_mca,
      &make_mca};
}

}  // namespace t3sim::hbm
