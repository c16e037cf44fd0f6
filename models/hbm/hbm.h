// Hbm: one GPU's high-bandwidth memory as a common::MemTarget: stacks x channels_per_stack
// independent channels, each with its own controller (channel.h) and arbitration policy from the
// policy table (policy_table.h: "fr-fcfs", T3's "mca"). Fidelity: channel level with byte-sized
// queues and burst-preemptive service; refresh and row misses are folded into `efficiency`.
// UPDATE ("update": "nmc") = near-memory read-modify-write beside the banks (T3 §4.3): bus time +
// bytes/nmc_bandwidth; "bus-rmw" = two bus passes; "none" = an UPDATE is a ModelError. T3 gives no
// NMC timing; t3sim sizes nmc_bandwidth from HBM-PIM's ~4x bank-level parallelism (hardware.md
// §4.1). Invariants: every accepted request completes exactly once; finish() throws otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/memory.h"
#include "models/hbm/address_map.h"
#include "models/hbm/channel.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/hbm_stats.h"
#include "sim/component.h"
#include "sim/registry.h"

namespace t3sim::hbm {

class Hbm final : public Component, public common::MemTarget {
 public:
  Hbm(Simulator& sim, Component* parent, std::string name, const ConfigNode& cfg);
  Hbm(Simulator& sim, Component* parent, std::string name, HbmConfig cfg);
  ~Hbm() override;

  // Contract (common::MemTarget): a request must lie inside one `interleave` block, and an UPDATE
  // needs "update" != "none" (ModelError otherwise). A refused requester calls wait_for_space()
  // before its next try_issue() on this Hbm: it is queued on the channel queue that refused it and
  // gets one mem_retry() when that frees.
  bool try_issue(const common::MemRequest& req) override;
  void wait_for_space(common::MemClient* c) override;

  // Switches every channel to policy `name` (an entry of policy_table()) with fresh state (MCA
  // re-measures); ModelError for an unknown name.
  void set_policy(std::string_view name);
  // Timeline (when the simulator records one): bandwidth counters under process `pid`.
  void trace_as(int pid);
  const std::string& policy() const { return policy_; }
  const ArbitrationPolicy& channel_policy(uint32_t ch) const { return channels_[ch]->policy(); }
  // Called once for every completed UPDATE with tile != kNoTile (before the client's mem_done).
  void set_update_observer(common::UpdateObserver* obs) { env_.observer = obs; }

  uint64_t bytes(common::TrafficClass c) const;
  uint64_t total_bytes() const { return stats_.total_bytes.value(); }
  size_t outstanding() const { return env_.outstanding; }  // queued + in service
  const std::vector<TimelineBin>& timeline() const { return stats_.timeline; }
  Duration timeline_bin() const { return stats_.timeline_bin; }  // widened past 4096 bins
  const HbmStats& counters() const { return stats_; }
  const HbmConfig& config() const { return cfg_; }
  uint32_t channels() const { return cfg_.channels(); }
  uint32_t channel_of(uint64_t addr) const { return map_.channel(addr); }

  void finish() override;

 private:
  ChannelShape shape() const;

  HbmConfig cfg_;
  AddressMap map_;
  HbmStats stats_;
  ChannelEnv env_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::string policy_;
  uint32_t refused_channel_ = UINT32_MAX;  // channel and queue of the last refusal
  BusDir refused_dir_ = BusDir::kNone;
};

void register_hbm_models(Registry& r);

}  // namespace t3sim::hbm
