// Loaded-latency probe: drives one Hbm (built from an HbmConfig) with a deterministic open-loop
// stream at a series of offered loads and reports, per load, offered and achieved bandwidth and
// the mean and p99 request latency (offer -> completion, source queueing included). Requests of
// `request` bytes are offered at a constant rate, each to one interleave block: successive blocks
// (every channel in turn) or pseudo-random blocks from a fixed hash (channel conflicts, as from
// many independent requesters); each channel has its own unbounded FIFO at the source, so a full
// channel never blocks another. The knee is the first
// load whose mean latency exceeds 2x the unloaded latency (one request alone).
// Contract: deterministic; request <= the interleave; 0 <= read_share <= 1; loads in (0, 2].
#pragma once

#include <optional>
#include <vector>

#include "models/hbm/hbm_config.h"
#include "sim/units.h"

namespace t3sim::hbm {

struct LoadedLatencySpec {
  Bytes request{4096};
  double read_share = 1.0;    // the rest are WRITEs, spread evenly through the stream
  std::vector<double> loads;  // fractions of the nominal peak; empty = 0.05, 0.10, ..., 1.00
  uint32_t requests_per_channel = 200;  // per point
  bool random_blocks = true;            // false: successive blocks
};

struct LoadedLatencyPoint {
  double load = 0;  // fraction of the nominal peak
  double offered_gbps = 0;
  double achieved_gbps = 0;  // bytes completed while the stream was offered / its duration
  double mean_ns = 0;
  double p99_ns = 0;
};

struct LoadedLatencyCurve {
  double peak_gbps = 0;  // nominal
  double unloaded_ns = 0;
  std::vector<LoadedLatencyPoint> points;
  std::optional<size_t> knee;  // index into points
};

// Contract: throws ModelError for a request larger than the interleave or a bad share / load.
LoadedLatencyCurve loaded_latency(const HbmConfig& cfg, const LoadedLatencySpec& spec);

}  // namespace t3sim::hbm
