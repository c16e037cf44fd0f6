#include "models/hbm/hbm_config.h"

#include <cmath>

namespace t3sim::hbm {

Params hbm_params() {
  using K = ParamKind;
  Params p;
  p.required("stacks", K::kInt, "HBM stacks").range(1, 64);
  p.required("channels_per_stack", K::kInt, "independent channels (pseudo-channels) per stack")
      .range(1, 256);
  p.required("bandwidth", K::kBandwidth, "peak bandwidth, all stacks together").at_least(1);
  p.optional("efficiency", K::kReal, 0.9,
             "achievable fraction of peak; covers refresh and row-miss overheads the "
             "channel-level model does not simulate")
      .range(0.01, 1.0);
  p.optional("interleave", K::kBytes, "4 KiB",
             "channel interleave granularity; a request must not cross a block")
      .at_least(1);
  p.optional("read_queue", K::kInt, 64, "read queue entries per channel").range(1, 1 << 16);
  p.optional("write_queue", K::kInt, 64, "write queue entries per channel (WRITEs and UPDATEs)")
      .range(1, 1 << 16);
  p.optional("latency", K::kDuration, "100 ns", "unloaded latency added to every completion");
  p.optional("turnaround", K::kDuration, "10 ns", "read<->write data-bus turnaround penalty");
  p.required("nmc_bandwidth", K::kBandwidth,
             "near-memory UPDATE (read-modify-write) throughput, all stacks together")
      .at_least(1);
  p.optional("policy", K::kString, "fr-fcfs", "arbitration policy").one_of({"fr-fcfs", "mca"});
  p.optional("write_high_watermark", K::kReal, 0.8,
             "enter write-drain mode at this fraction of the write queue")
      .range(0.0, 1.0);
  p.optional("write_low_watermark", K::kReal, 0.2,
             "leave write-drain mode at this fraction of the write queue")
      .range(0.0, 1.0);
  p.optional("mca_mode", K::kString, "dynamic", "MCA threshold: measured per channel or fixed")
      .one_of({"dynamic", "static"});
  p.optional("mca_threshold", K::kInt, 16, "MCA static threshold in queued entries")
      .range(1, 1 << 20);
  p.optional("mca_window", K::kDuration, "5 us",
             "MCA dynamic mode: compute-activity window that measures memory intensity");
  p.optional("mca_starvation_limit", K::kDuration, "2 us",
             "MCA: a communication request queued this long issues regardless");
  p.optional("mca_compute_first", K::kBool, true, "MCA: serve compute traffic first");
  p.optional("timeline_bin", K::kDuration, "10 us", "traffic timeline bin (0 = off)");
  return p;
}

Bandwidth HbmConfig::channel_bandwidth() const {
  const auto eff_ppb = static_cast<uint64_t>(std::llround(efficiency * 1e9));
  return bandwidth.scaled(eff_ppb, uint64_t{1'000'000'000} * channels());
}

HbmConfig HbmConfig::from(const ConfigNode& node) {
  const BoundParams b = bind(hbm_params(), node);
  HbmConfig c;
  c.stacks = static_cast<uint32_t>(b.integer("stacks"));
  c.channels_per_stack = static_cast<uint32_t>(b.integer("channels_per_stack"));
  c.bandwidth = b.bandwidth("bandwidth");
  c.efficiency = b.real("efficiency");
  c.interleave_bytes = b.bytes("interleave").count();
  c.read_queue = static_cast<uint32_t>(b.integer("read_queue"));
  c.write_queue = static_cast<uint32_t>(b.integer("write_queue"));
  c.latency = b.duration("latency");
  c.turnaround = b.duration("turnaround");
  c.nmc_bandwidth = b.bandwidth("nmc_bandwidth");
  c.policy = b.str("policy");
  PolicyConfig& p = c.policy_cfg;
  p.write_high_watermark = b.real("write_high_watermark");
  p.write_low_watermark = b.real("write_low_watermark");
  p.mca_dynamic = b.str("mca_mode") == "dynamic";
  p.mca_threshold = static_cast<uint32_t>(b.integer("mca_threshold"));
  p.mca_window = b.duration("mca_window");
  p.mca_starvation_limit = b.duration("mca_starvation_limit");
  p.mca_compute_first = b.boolean("mca_compute_first");
  c.timeline_bin = b.duration("timeline_bin");
  c.resolved = b.resolved();
  if (p.write_low_watermark >= p.write_high_watermark) {
    node.fail_key("write_low_watermark", "write_low_watermark must be below write_high_watermark");
  }
  if (c.channel_bandwidth().bytes_per_second() == 0) {
    node.fail_key("bandwidth", "bandwidth x efficiency / channels rounds to 0 B/s per channel");
  }
  if (c.channel_nmc_bandwidth().bytes_per_second() == 0) {
    node.fail_key("nmc_bandwidth", "nmc_bandwidth / channels rounds to 0 B/s per channel");
  }
  return c;
}

}  // namespace t3sim::hbm
