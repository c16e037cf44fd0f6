// NCCL's tuning constants (src/graph/tuning.cc, validation/reference/nccl-tuning.md): for each
// (algorithm, protocol) pair NCCL models, a base latency, a per-step hardware latency on NVLink,
// PCI and the network, the protocol's share of the bus bandwidth and an optional per-channel cap;
// plus the LL bandwidth cap, the ring's multi-node Simple latency factor and the share of the
// planned ring bandwidth that NCCL's model credits. No C++ defaults: the collective presets'
// "tuner" object holds the values with their sources. Invariants after bind_tuner(): every share is
// in [0, 1] (0: NCCL has no such pair, the tuner never picks it); a pair's latencies are all given.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/config.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::collectives {

// The algorithms NCCL's model covers; t3sim's hierarchical schedule borrows the ring's cells.
enum class TunerAlgo : uint8_t { kRing, kTree, kNvls };
// The hardware a step crosses (NCCL's NCCL_HW_NVLINK, _PCI, _NET).
enum class Hw : uint8_t { kNvlink, kPci, kNet };

struct TunerCell {
  Duration base;               // launch and setup, once per collective (NCCL baseLat)
  std::array<Duration, 3> hw;  // per step, indexed by Hw (NCCL hwLat)
  uint32_t share_ppm = 0;      // bus bandwidth share of the protocol; 0: pair not modelled
  Bandwidth channel_max;       // per-channel cap; zero: none
  bool available() const { return share_ppm > 0; }
};

struct TunerConstants {
  std::array<std::array<TunerCell, 3>, 3> cells;    // [TunerAlgo][proto_index(): simple, ll128, ll]
  Bandwidth ll_max;                                 // cap of LL's bus bandwidth (NCCL llMaxBw)
  uint32_t bus_ppm = 1'000'000;                     // planned ring bandwidth NCCL's model credits
  uint32_t ring_multi_node_simple_ppm = 1'000'000;  // ring Simple latency factor across nodes
  // Tree all-reduce bandwidth factor per protocol by floor(log2(bytes / 64)); past the end: 1.
  std::array<std::vector<uint32_t>, 3> tree_correction_ppm;
  const TunerCell& cell(TunerAlgo a, size_t proto) const {
    return cells[static_cast<size_t>(a)][proto];
  }
};

// The "tuner" object's keys, for `t3sim describe collectives` and bind_tuner().
Params tuner_params();
// Contract: binds `node` strictly (ConfigError naming file, JSON pointer and fix on any violation).
TunerConstants bind_tuner(const ConfigNode& node);

}  // namespace t3sim::collectives
