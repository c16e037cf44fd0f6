#include "models/hbm/hbm_config.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace t3sim::hbm {
namespace {

void declare_channel(Params& p) {
  using K = ParamKind;
  p.required("stacks", K::kInt, "HBM stacks").range(1, 64);
  p.required("channels_per_stack", K::kInt, "independent channels (pseudo-channels) per stack")
      .range(1, 256);
  p.required("bandwidth", K::kBandwidth, "peak bandwidth, all stacks together").at_least(1);
  p.optional("efficiency", K::kReal, 0.9,
             "achievable fraction of peak; covers refresh and row-miss overheads the "
             "channel-level model does not simulate")
      .range(0.01, 1.0);
  p.optional("interleave", K::kBytes, "4 KiB",
             "channel interleave granularity of the address map (a request must not cross a "
             "block); not a fidelity knob: a coarser map puts a collective's pieces on fewer "
             "channels")
      .at_least(1);
  p.optional("read_queue", K::kBytes, "2 MiB",
             "read queue capacity per channel in bytes (an empty queue accepts any request)")
      .range(1, 1ull << 40);
  p.optional("write_queue", K::kBytes, "2 MiB",
             "write queue capacity per channel in bytes, WRITEs and UPDATEs (an empty queue "
             "accepts any request)")
      .range(1, 1ull << 40);
  p.optional("burst", K::kBytes, "64 B",
             "data-bus burst: a transfer can be preempted (and the channel re-arbitrated) at "
             "burst boundaries")
      .at_least(1);
  p.optional("latency", K::kDuration, "100 ns", "unloaded latency added to every completion");
  p.optional("turnaround", K::kDuration, "10 ns", "read<->write data-bus turnaround penalty");
  p.required("nmc_bandwidth", K::kBandwidth,
             "near-memory UPDATE (read-modify-write) throughput, all stacks together")
      .at_least(1);
  p.optional("update", K::kString, "nmc",
             "how an UPDATE is performed: nmc (near-bank ALUs), bus-rmw (read and write back "
             "over the bus, no NMC) or none (UPDATE is an error)")
      .one_of({"nmc", "bus-rmw", "none"});
  p.optional("fidelity", K::kString, "channel",
             "channel: bus time only, row/refresh overheads in efficiency (fast); bank: banks, "
             "rows and DRAM timing (studies)")
      .one_of({"channel", "bank"});
  p.optional("policy", K::kString, "fr-fcfs", "arbitration policy (see the policy table)")
      .one_of(policy_names());
  p.optional("timeline_bin", K::kDuration, "10 us", "traffic timeline bin (0 = off)");
}

UpdateMode update_mode(const std::string& s) {
  if (s == "bus-rmw") return UpdateMode::kBusRmw;
  if (s == "none") return UpdateMode::kNone;
  return UpdateMode::kNmc;
}

}  // namespace

Params hbm_params() {
  Params p;
  declare_channel(p);
  BankTiming::declare(p);
  PimUnit::declare(p);
  for (const PolicySpec& s : policy_table()) s.declare(p);
  return p;
}

Bandwidth HbmConfig::channel_bandwidth() const {
  const auto eff_ppb = static_cast<uint64_t>(std::llround(efficiency * 1e9));
  return bandwidth.scaled(eff_ppb, uint64_t{1'000'000'000} * channels());
}

Bandwidth HbmConfig::bus_bandwidth() const {
  if (fidelity != Fidelity::kBank) return channel_bandwidth();
  const uint64_t refi = std::max<uint64_t>(1, bank.tREFI.count_ps());
  const uint64_t busy = std::min(refi, bank.tRFC.count_ps());
  return bandwidth.scaled(refi - busy, refi * channels());
}

const PolicyMaker* HbmConfig::maker(std::string_view name) const {
  for (const auto& [n, m] : makers) {
    if (n == name) return &m;
  }
  return nullptr;
}

HbmConfig HbmConfig::from(const ConfigNode& node) {
  const BoundParams b = bind(hbm_params(), node);
  HbmConfig c;
  c.stacks = static_cast<uint32_t>(b.integer("stacks"));
  c.channels_per_stack = static_cast<uint32_t>(b.integer("channels_per_stack"));
  c.bandwidth = b.bandwidth("bandwidth");
  c.efficiency = b.real("efficiency");
  c.interleave_bytes = b.bytes("interleave").count();
  c.read_queue = b.bytes("read_queue");
  c.write_queue = b.bytes("write_queue");
  c.burst = b.bytes("burst");
  c.latency = b.duration("latency");
  c.turnaround = b.duration("turnaround");
  c.nmc_bandwidth = b.bandwidth("nmc_bandwidth");
  c.update = update_mode(b.str("update"));
  c.fidelity = b.str("fidelity") == "bank" ? Fidelity::kBank : Fidelity::kChannel;
  c.bank = BankTiming::bind(b);
  if (PimUnit::selected(b)) c.pim = PimUnit::bind(b);
  c.policy = b.str("policy");
  for (const PolicySpec& s : policy_table()) c.makers.emplace_back(std::string(s.name), s.bind(b));
  c.timeline_bin = b.duration("timeline_bin");
  c.resolved = b.resolved();
  if (b.real("write_low_watermark") >= b.real("write_high_watermark")) {
    node.fail_key("write_low_watermark", "write_low_watermark must be below write_high_watermark");
  }
  if (c.channel_bandwidth().bytes_per_second() == 0) {
    node.fail_key("bandwidth", "bandwidth x efficiency / channels rounds to 0 B/s per channel");
  }
  if (c.fidelity == Fidelity::kBank && c.bank.tRFC >= c.bank.tREFI) {
    node.fail_key("tRFC", "tRFC must be shorter than tREFI");
  }
  if (c.pim && c.bank.banks % c.pim->banks_per_alu != 0) {
    node.fail_key("pim_banks_per_alu", "pim_banks_per_alu (" +
                                           std::to_string(c.pim->banks_per_alu) +
                                           ") must divide banks (" + std::to_string(c.bank.banks) +
                                           "); set it to a divisor of banks");
  }
  if (c.channel_nmc_bandwidth().bytes_per_second() == 0) {
    node.fail_key("nmc_bandwidth", "nmc_bandwidth / channels rounds to 0 B/s per channel");
  }
  return c;
}

}  // namespace t3sim::hbm
