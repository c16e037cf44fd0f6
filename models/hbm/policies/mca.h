// MCA, communication-aware memory-controller arbitration ("mca"; T3 §4.5, t3-paper.md §3.7).
// Fidelity: the paper gives only the policy's shape (compute first; communication issues only while
// the DRAM queue occupancy is below a threshold estimated from the kernel's memory intensity in its
// first stage; a starvation limit). Every number and exact rule below is t3sim's choice
// (t3-paper.md §9 item 8) and each is a parameter. Invariants: a communication request is admitted
// only while the channel's queued bytes are below the threshold, unless it starved; the threshold
// is >= 1 B, so communication always enters an empty channel.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "models/hbm/arbitration.h"
#include "models/hbm/policies/fr_fcfs.h"
#include "models/hbm/policy_table.h"

namespace t3sim::hbm {

struct McaSettings {
  FrFcfsSettings fr;
  bool dynamic = true;
  Bytes threshold{32768};
  Duration window = Duration::us(5);
  Duration horizon = Duration::us(4);
  Duration starvation_limit = Duration::us(2);
  bool compute_first = true;
};

// Rules:
//  - compute (common::is_compute) first, FR-FCFS among it; a compute arrival preempts a
//    communication transfer at the next burst boundary; mca_compute_first = false makes it one
//    FR-FCFS over compute plus the communication that passed the gate;
//  - gate (admission): a communication request enters the channel only while the channel's queued
//    bytes (read + write queues, bytes not yet on the bus) are < threshold, so compute arrivals
//    find a short queue; a refused requester is back-pressured like a full queue;
//  - threshold: "static" = mca_threshold; "dynamic" = per channel, from the first stage, defined as
//    the mca_window after the channel's first compute service: intensity = compute bytes served in
//    the window / (bus bandwidth x window), threshold = max(1 B, (1 - intensity) x bus bandwidth x
//    mca_horizon): communication may keep at most the channel time compute leaves idle, over one
//    horizon, queued ahead of compute; nothing is gated before the window closes; a new policy
//    instance (Hbm::set_policy) measures again;
//  - starvation: communication refused at the gate for >= mca_starvation_limit (since its first
//    refusal) is admitted at its next retry; a queued communication request waiting >= the limit
//    is served ahead of compute (compute-first) and is not preempted.
class McaPolicy final : public ArbitrationPolicy {
 public:
  static constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();

  McaPolicy(const McaSettings& s, const ChannelShape& shape);
  std::string_view name() const override { return "mca"; }
  Decision pick(const ChannelView& v) override;
  bool preempts(const ChannelView& v, int serving, int arrived) const override;
  bool admit(const common::MemRequest& req, uint64_t occupancy, Tick now) override;
  Tick readmit_at() const override {
    return refused_since_ == Tick::max() ? Tick::max() : refused_since_ + s_.starvation_limit;
  }
  void on_service(const common::MemRequest& req, uint64_t bytes, Tick start, Tick end) override;

  // Current gate threshold in bytes (kNoLimit while a dynamic measurement is still open).
  uint64_t threshold() const { return threshold_; }
  bool measured() const { return measured_; }
  double intensity() const { return intensity_; }
  uint64_t starved_issues() const { return starved_issues_; }
  uint64_t starved_admits() const { return starved_admits_; }
  // Largest occupancy at which a communication request was admitted other than by starvation
  // (0 if none): always < threshold() once gating started.
  uint64_t max_gated_admit_occupancy() const { return max_gated_admit_; }

 private:
  void maybe_finalize(Tick now);
  bool starved(const Queued* h, Tick now) const {
    return h != nullptr && now >= h->req.enqueued + s_.starvation_limit;
  }

  McaSettings s_;
  FrFcfsCore core_;
  uint8_t core_mask_ = kAllSubQueues;  // scope of the last FR-FCFS pick (for its grant)
  Bandwidth bus_;
  uint64_t threshold_;
  bool window_open_ = false;
  bool measured_ = false;
  Tick window_start_{};
  double window_bytes_ = 0.0;
  double intensity_ = 0.0;
  Tick refused_since_ = Tick::max();
  uint64_t starved_issues_ = 0;
  uint64_t starved_admits_ = 0;
  uint64_t max_gated_admit_ = 0;
};

PolicySpec mca_policy_spec();

}  // namespace t3sim::hbm
