#include "models/hbm/hbm_stats.h"

#include <string>

#include "sim/simulator.h"

namespace t3sim::hbm {

void HbmStats::register_in(StatGroup& g, const Simulator& sim, uint32_t channels) {
  for (size_t i = 0; i < common::kNumTrafficClasses; ++i) {
    const auto name = std::string(common::to_string(static_cast<common::TrafficClass>(i)));
    StatGroup& c = g.group(name);
    c.add("bytes", cls[i].bytes, "B", "bytes of " + name + " requests completed");
    c.add("requests", cls[i].requests, "count", name + " requests completed");
    c.add("latency", cls[i].latency_ns, "ns", "enqueue -> completion latency of " + name);
  }
  for (const auto cmd : {common::MemCmd::kRead, common::MemCmd::kWrite, common::MemCmd::kUpdate}) {
    const auto name = std::string(common::to_string(cmd));
    g.add(name + "_bytes", cmd_bytes[static_cast<size_t>(cmd)], "B", name + " bytes completed");
  }
  g.add("total_bytes", total_bytes, "B", "bytes completed, all classes");
  g.add("bus_busy", bus_busy_ps, "ps", "data-bus + NMC occupancy, summed over channels");
  g.add("nmc_busy", nmc_busy_ps, "ps", "near-memory read-modify-write time, summed over channels");
  g.add("turnarounds", turnarounds, "count", "read<->write data-bus direction changes");
  g.add("turnaround_time", turnaround_ps, "ps", "bus time lost to turnarounds, summed");
  g.add("queue_depth", queue_depth, "entries", "queued requests, summed over channels");
  g.add("refusals", refusals, "count", "try_issue() refused: the channel's queue was full");
  g.add("activations", activations, "count", "row activations (bank fidelity)");
  g.add("row_hits", row_hits, "count",
        "transfer segments whose first chunk found its row open (bank fidelity)");
  g.add("retries", retries, "count", "mem_retry() calls made to waiting clients");
  const Simulator* s = &sim;
  g.add_formula(
      "utilisation",
      [this, s, channels] {
        const double t = static_cast<double>(s->now().ps()) * channels;
        return t > 0 ? static_cast<double>(bus_busy_ps.value()) / t : 0.0;
      },
      "ratio", "bus busy / (elapsed x channels)");
  g.add_formula(
      "bandwidth",
      [this, s] {
        const double t = s->now().to_us();
        return t > 0 ? static_cast<double>(total_bytes.value()) / t / 1e3 : 0.0;
      },
      "GB/s", "total bytes / elapsed time");
}

}  // namespace t3sim::hbm
