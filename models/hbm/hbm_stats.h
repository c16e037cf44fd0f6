// Statistics of one Hbm (one GPU's memory): per traffic class bytes, requests and latency
// (enqueue -> completion); bytes per command; bus, NMC and turnaround time summed over channels;
// queue depth (time-weighted, summed over channels); refusals, retries; a traffic timeline (bytes
// per class per bin, counted at the start of each transfer segment) for paper Fig. 17-style plots.
// Invariants: class bytes, command bytes and total_bytes all count completions, so they agree.
// Contract: plain members that the channels update; register_in() registers them once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/common/memory.h"
#include "sim/stats.h"
#include "sim/units.h"

namespace t3sim {
class Simulator;
}

namespace t3sim::hbm {

using TimelineBin = std::array<uint64_t, common::kNumTrafficClasses>;

struct HbmStats {
  struct PerClass {
    Counter bytes;
    Counter requests;
    Accumulator latency_ns;
  };
  std::array<PerClass, common::kNumTrafficClasses> cls;
  std::array<Counter, 3> cmd_bytes;  // indexed by common::MemCmd
  Counter total_bytes;
  Counter bus_busy_ps;
  Counter nmc_busy_ps;
  Counter turnarounds;
  Counter turnaround_ps;
  TimeWeighted queue_depth;
  Counter refusals;
  Counter activations;  // bank fidelity: row activations
  Counter row_hits;     // bank fidelity: segments whose first chunk found its row open
  Counter retries;
  // The timeline holds at most kMaxTimelineBins bins: when a transfer starts past the last one,
  // the bin width doubles (neighbouring bins merge) until it fits, so a tiny bin or a long run
  // takes bounded memory (4096 x 56 B per GPU); timeline_bin is the width in force.
  static constexpr size_t kMaxTimelineBins = 4096;
  Duration timeline_bin;  // 0 = timeline off
  std::vector<TimelineBin> timeline;

  void on_service(Tick start, const common::MemRequest& r, uint64_t bytes) {
    if (timeline_bin.count_ps() == 0) return;
    uint64_t i = start.ps() / timeline_bin.count_ps();
    while (i >= kMaxTimelineBins) {
      coarsen_timeline();
      i = start.ps() / timeline_bin.count_ps();
    }
    if (i >= timeline.size()) timeline.resize(i + 1, TimelineBin{});
    timeline[i][static_cast<size_t>(r.cls)] += bytes;
  }
  // Doubles the bin width, adding each pair of bins into one.
  void coarsen_timeline() {
    for (size_t b = 0; b < timeline.size(); ++b) {
      if (b % 2 == 0)
        timeline[b / 2] = timeline[b];
      else {
        for (size_t c = 0; c < timeline[b].size(); ++c) timeline[b / 2][c] += timeline[b][c];
      }
    }
    timeline.resize((timeline.size() + 1) / 2);
    timeline_bin = timeline_bin * 2;
  }
  void on_complete(Tick now, const common::MemRequest& r) {
    PerClass& c = cls[static_cast<size_t>(r.cls)];
    c.bytes.inc(r.bytes);
    c.requests.inc();
    c.latency_ns.sample((now - r.enqueued).to_ns());
    cmd_bytes[static_cast<size_t>(r.cmd)].inc(r.bytes);
    total_bytes.inc(r.bytes);
  }

  // Registers every stat in `g`; formulas read the time from `sim` at dump time.
  void register_in(StatGroup& g, const Simulator& sim, uint32_t channels);
};

}  // namespace t3sim::hbm
