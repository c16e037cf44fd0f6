// Parameters of an Hbm (one GPU's HBM), declared once in hbm_params() (the policies' parameters
// come from the policy table) and bound strictly from a config object. Fidelity notes live in
// hbm.h; each value's provenance lives in the preset JSONs under configs/presets/hbm/.
// Invariants after from(): channels() >= 1, the per-channel bus and NMC bandwidths are non-zero,
// 0 <= write_low_watermark < write_high_watermark <= 1, tRFC < tREFI with bank fidelity, a PIM
// unit's banks_per_alu divides banks, and a maker exists for every policy in the table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/hbm/bank_timing.h"
#include "models/hbm/pim_unit.h"
#include "models/hbm/policy_table.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim::hbm {

Params hbm_params();

// How the memory performs an UPDATE (atomic add-and-store of the request's data).
enum class UpdateMode : uint8_t {
  kNmc,     // near-bank ALUs: bus transfer in, then bytes / nmc_bandwidth beside the banks
  kBusRmw,  // no near-bank ALUs; the controller reads and writes back over the data bus
  kNone,    // UPDATEs are not supported: an UPDATE is a ModelError
};

// "channel" (default): bus time only, row and refresh overheads folded into `efficiency`; cheap
// enough for the full reproduction. "bank": banks, rows and JEDEC timing (bank_timing.h) for
// studies of row locality, NMC timing and arbitration; more work per request, same events.
enum class Fidelity : uint8_t { kChannel, kBank };

struct HbmConfig {
  uint32_t stacks = 1;
  uint32_t channels_per_stack = 1;
  Bandwidth bandwidth;  // peak, all stacks
  double efficiency = 0.9;
  uint64_t interleave_bytes = 4096;
  Bytes read_queue{2u << 20};   // per channel
  Bytes write_queue{2u << 20};  // per channel (WRITEs and UPDATEs)
  Bytes burst{64};              // preemption / re-arbitration granularity of the data bus
  Duration latency;
  Duration turnaround;
  Bandwidth nmc_bandwidth;  // near-memory update throughput, all stacks
  UpdateMode update = UpdateMode::kNmc;
  Fidelity fidelity = Fidelity::kChannel;
  BankTiming bank;  // used when fidelity == kBank
  // "nmc_timing": "pim": the in-bank RMW's PIM unit (used with bank fidelity and update nmc);
  // empty: nmc_bandwidth / (channels x banks) per bank.
  std::optional<PimUnit> pim;
  std::string policy = "fr-fcfs";
  std::vector<std::pair<std::string, PolicyMaker>> makers;  // one per policy-table entry
  Duration timeline_bin;
  nlohmann::ordered_json resolved;  // every parameter with defaults filled in, for the results dump

  uint32_t channels() const { return stacks * channels_per_stack; }
  // Peak x efficiency / channels.
  Bandwidth channel_bandwidth() const;
  // The data bus the channels run at: channel_bandwidth(), or with bank fidelity peak / channels
  // x (1 - tRFC / tREFI) (row overheads are then simulated, refresh stays a derate).
  Bandwidth bus_bandwidth() const;
  Bandwidth channel_nmc_bandwidth() const { return nmc_bandwidth / channels(); }
  // nullptr for an unknown policy name.
  const PolicyMaker* maker(std::string_view name) const;

  // Contract: binds `node` against hbm_params(); throws ConfigError on any violation.
  static HbmConfig from(const ConfigNode& node);
};

}  // namespace t3sim::hbm
