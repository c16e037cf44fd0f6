// MCA, communication-aware memory-controller arbitration ("mca"; T3 §4.5, t3-paper.md §3.7).
// Fidelity: the paper gives only the policy's shape (compute first; communication issues only while
// the DRAM queue occupancy is below a threshold estimated from the kernel's memory intensity in its
// first stage; a starvation limit). Every number and exact rule below is t3sim's choice
// (t3-paper.md §9 item 8) and each is a parameter. Invariants: threshold >= 1, so a lone
// communication request always passes the gate; a gated channel sleeps until the oldest
// communication request's starvation deadline or the next arrival.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "models/hbm/arbitration.h"
#include "models/hbm/fr_fcfs.h"

namespace t3sim::hbm {

// Rules:
//  - compute (common::is_compute) first, FR-FCFS among it; mca_compute_first = false makes it one
//    FR-FCFS over compute plus the communication that passes the gate;
//  - gate (admission): a communication request enters the channel queue only while the number of
//    queued requests (read + write queues) is < threshold, so compute arrivals find a short queue;
//    a refused requester is back-pressured like a full queue; threshold >= capacity never gates;
//  - threshold: "static" = mca_threshold; "dynamic" = per channel, measured over mca_window from
//  the
//    channel's first compute service: intensity = fraction of the window the bus served compute,
//    threshold = max(1, round(capacity x (1 - intensity))); nothing is gated before the window
//    closes; a new policy instance (Hbm::set_policy) measures again;
//  - starvation: a communication request queued >= mca_starvation_limit issues regardless (ahead of
//    compute when compute-first, otherwise it rejoins the FR-FCFS set).
class McaPolicy final : public ArbitrationPolicy {
 public:
  static constexpr uint32_t kNoLimit = std::numeric_limits<uint32_t>::max();

  // Contract: total_capacity = read + write queue entries of the channel.
  McaPolicy(const PolicyConfig& cfg, uint32_t total_capacity, uint32_t write_capacity);
  std::string_view name() const override { return "mca"; }
  Decision pick(const ChannelView& v) override;
  bool admit(const common::MemRequest& req, uint32_t queued) override;
  void on_service(const common::MemRequest& req, Tick start, Tick end) override;

  // Current gate threshold in entries (kNoLimit while a dynamic measurement is still open).
  uint32_t threshold() const { return threshold_; }
  bool measured() const { return measured_; }
  double intensity() const { return intensity_; }
  uint64_t starved_issues() const { return starved_issues_; }

 private:
  void maybe_finalize(Tick now);

  FrFcfsCore core_;
  uint32_t total_capacity_;
  bool dynamic_;
  bool compute_first_;
  Duration window_;
  Duration starvation_limit_;
  uint32_t threshold_;
  bool window_open_ = false;
  bool measured_ = false;
  Tick window_start_{};
  Duration window_busy_{};
  double intensity_ = 0.0;
  uint64_t starved_issues_ = 0;
};

}  // namespace t3sim::hbm
