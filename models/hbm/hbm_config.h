// Parameters of an Hbm (one GPU's HBM), declared once in hbm_params() and bound strictly from a
// config object. Fidelity notes live in hbm.h; each value's provenance lives in the preset JSONs
// under configs/presets/hbm/. Invariants after from(): channels() >= 1, the per-channel bus and NMC
// bandwidths are non-zero, 0 <= write_low_watermark < write_high_watermark <= 1.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "models/hbm/arbitration.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::hbm {

Params hbm_params();

struct HbmConfig {
  uint32_t stacks = 1;
  uint32_t channels_per_stack = 1;
  Bandwidth bandwidth;  // peak, all stacks
  double efficiency = 0.9;
  uint64_t interleave_bytes = 4096;
  uint32_t read_queue = 64;
  uint32_t write_queue = 64;
  Duration latency;
  Duration turnaround;
  Bandwidth nmc_bandwidth;  // near-memory update throughput, all stacks
  std::string policy = "fr-fcfs";
  PolicyConfig policy_cfg;
  Duration timeline_bin;
  nlohmann::ordered_json resolved;  // every parameter with defaults filled in, for the results dump

  uint32_t channels() const { return stacks * channels_per_stack; }
  // Peak x efficiency / channels.
  Bandwidth channel_bandwidth() const;
  Bandwidth channel_nmc_bandwidth() const { return nmc_bandwidth / channels(); }

  // Contract: binds `node` against hbm_params(); throws ConfigError on any violation.
  static HbmConfig from(const ConfigNode& node);
};

}  // namespace t3sim::hbm
