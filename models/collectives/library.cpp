#include "models/collectives/library.h"

#include <algorithm>
#include <cmath>

#include "models/collectives/algorithms.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

constexpr uint64_t kLibPpm = 1'000'000;
constexpr uint64_t kAlign = 4096;  // chunk granularity of the generators (schedule.h)

// The per-protocol keys carry no C++ defaults: their values (NCCL's geometry and the costs
// fitted to the 8x A100 sweep) live in configs/presets/collectives/nccl-a100.json with sources,
// and every system extends a preset explicitly.
constexpr std::array<const char*, 3> kLibProtos{"simple", "ll128", "ll"};

void declare_protocol(Params& p, const std::string& x) {
  p.required(x + "_buffer", ParamKind::kBytes,
             x + ": receive buffer per connection and channel, wire bytes (NCCL buffSizes)")
      .at_least(4096);
  p.required(x + "_channel_bytes", ParamKind::kBytes,
             x + ": bytes of S per channel below which fewer channels run (NCCL threads x "
                 "threadThreshold; LL rings: per rank)")
      .at_least(1);
  p.required(x + "_chunk_steps", ParamKind::kInt, x + ": buffer steps per chunk (NCCL CHUNKSTEPS)")
      .range(1, 64);
  p.required(x + "_slice_steps", ParamKind::kInt, x + ": buffer steps per slice (NCCL SLICESTEPS)")
      .range(1, 64);
  p.required(x + "_step_latency", ParamKind::kDuration,
             x + ": per-slice synchronisation cost on the CU (flag write/poll" +
                 std::string(x == "simple" ? " and memory fence" : "") + ")");
  p.required(x + "_base_latency", ParamKind::kDuration,
             x + ": launch latency of the collective kernel");
  p.required(x + "_efficiency", ParamKind::kReal,
             x + ": payload bytes per wire byte (LL 8/16, LL128 120/128)")
      .range(0.01, 1.0);
}

ProtocolSpec bind_protocol(const BoundParams& b, const std::string& x, uint32_t steps,
                           double link_efficiency, const ConfigNode& node) {
  ProtocolSpec s;
  s.buffer = b.bytes(x + "_buffer");
  s.channel_bytes = b.bytes(x + "_channel_bytes");
  s.chunk_steps = static_cast<uint32_t>(b.integer(x + "_chunk_steps"));
  s.slice_steps = static_cast<uint32_t>(b.integer(x + "_slice_steps"));
  s.step_latency = b.duration(x + "_step_latency");
  s.base_latency = b.duration(x + "_base_latency");
  s.line_ppm = static_cast<uint32_t>(std::llround(b.real(x + "_efficiency") * kLibPpm));
  s.link_ppm = static_cast<uint32_t>(std::llround(link_efficiency * kLibPpm));
  s.fenced = x == "simple";
  if (s.chunk_steps % s.slice_steps != 0 || s.slice_steps > steps) {
    node.fail_key(x + "_slice_steps",
                  x + "_slice_steps must divide " + x + "_chunk_steps and be at most 'steps'");
  }
  const uint64_t step_wire = s.buffer.count() / steps;
  const uint64_t payload = step_wire * s.line_ppm / kLibPpm / kAlign * kAlign;
  if (payload == 0) {
    node.fail_key(x + "_buffer", x + "_buffer / steps holds less than 4 KiB of payload");
  }
  s.step_payload = Bytes(payload);
  s.chunk = Bytes(payload * s.chunk_steps);
  s.slices_per_chunk = s.chunk_steps / s.slice_steps;
  s.slots = steps / s.slice_steps;
  return s;
}

}  // namespace

uint64_t ProtocolSpec::line_bytes(uint64_t payload) const {
  return (payload * kLibPpm + line_ppm - 1) / line_ppm;
}

uint64_t ProtocolSpec::wire_bytes(uint64_t payload) const {
  return (line_bytes(payload) * kLibPpm + link_ppm - 1) / link_ppm;
}

size_t proto_index(Protocol p) {
  switch (p) {
    case Protocol::kSimple:
      return 0;
    case Protocol::kLL128:
      return 1;
    case Protocol::kLL:
      return 2;
    case Protocol::kAuto:
      break;
  }
  throw ModelError("collectives", "protocol 'auto' has no geometry (select() it first)");
}

const ProtocolSpec& LibraryConfig::spec(Protocol p) const { return protocols[proto_index(p)]; }

Protocol LibraryConfig::select(Protocol p, uint64_t bytes, bool multi_node) const {
  if (p != Protocol::kAuto) return p;
  if (bytes <= ll_max.count()) return Protocol::kLL;
  if (!multi_node && bytes <= ll128_max.count()) return Protocol::kLL128;
  return Protocol::kSimple;
}

uint32_t LibraryConfig::channels_for(Protocol p, uint32_t want, uint64_t bytes, int ranks,
                                     bool ring) const {
  uint64_t per = spec(p).channel_bytes.count();
  if (p == Protocol::kLL && ring) per *= static_cast<uint64_t>(ranks);
  const uint64_t fit = bytes / per;
  return static_cast<uint32_t>(std::clamp<uint64_t>(fit, 1, want));
}

Params library_params() {
  Params p;
  p.required("channels", ParamKind::kInt,
             "channels per collective: one CU (CTA) on every GPU each, 1/channels of the data")
      .range(1, 64);
  p.optional("algorithm", ParamKind::kString, "auto",
             "default algorithm (auto: the tuner's least estimated time, see \"tuner\")")
      .one_of(algorithm_names());
  p.optional("protocol", ParamKind::kString, "auto",
             "default protocol (auto: the tuner's least estimated time)")
      .one_of({"auto", "simple", "ll128", "ll"});
  p.optional("executor", ParamKind::kString, "cu", "default executor: CU kernels or DMA engines")
      .one_of({"cu", "dma"});
  p.required("steps", ParamKind::kInt, "buffer slots per connection (NCCL_STEPS)").range(1, 64);
  for (const char* x : kLibProtos) declare_protocol(p, x);
  p.required("link_efficiency", ParamKind::kReal,
             "fraction of a GPU link's raw rate left for protocol bytes after packet headers and "
             "flow control, intra-node hops only (network hops: the fabric's nic.efficiency)")
      .range(0.01, 1.0);
  p.optional("tuner", ParamKind::kObject, nullptr,
             "NCCL's tuner constants (see `t3sim describe tuner`): auto picks the algorithm and "
             "protocol of the least estimated time; absent: the size thresholds ll_max, "
             "ll128_max, nvls_min and tree_max");
  p.optional("ll_max", ParamKind::kBytes, "0 B",
             "without a tuner: auto protocol LL for sizes up to this");
  p.optional("ll128_max", ParamKind::kBytes, "0 B",
             "without a tuner: auto protocol LL128 up to this when every hop is intra-node NVLink");
  p.optional("gpus_per_node", ParamKind::kInt, 0,
             "GPUs per node for hierarchical schedules and inter-node hops (0 = one node; "
             "absent: the fabric's gpus_per_node)")
      .range(0, 4096);
  p.required("inter_node_latency", ParamKind::kDuration,
             "extra per-slice flag latency of an inter-node hop: network proxy, NIC doorbells");
  p.optional("nvls_channels", ParamKind::kInt, 0,
             "NVLink SHARP (NVLS) channels: the NVSwitch reduces and multicasts (0 = no NVLS)")
      .range(0, 64);
  p.required("nvls_chunk", ParamKind::kBytes,
             "NVLS chunk per channel and loop (NCCL_NVLS_CHUNKSIZE)")
      .at_least(4096);
  p.optional(
      "nvls_min", ParamKind::kBytes, "0 B",
      "without a tuner: auto NVLS for all-reduces of at least this size (nvls_channels > 0)");
  p.required("nvls_min_ranks", ParamKind::kInt,
             "auto algorithm: NVLS only for groups of more GPUs than this")
      .range(1, 4096);
  p.optional("tree_max", ParamKind::kBytes, "0 B",
             "without a tuner: auto Tree for all-reduces across nodes up to this size, "
             "hierarchical above");
  p.required("tree_min_chunk", ParamKind::kBytes,
             "Tree, Simple: the smallest chunk that NCCL's halving by tree depth (more pipeline "
             "stages for small sizes) cuts a step down to")
      .at_least(4096);
  p.optional("piece", ParamKind::kBytes, "16 KiB",
             "CU memory-work granularity (fidelity knob: loads then stores per piece)")
      .range(256, 1 << 20);
  p.optional("ring_direction", ParamKind::kString, "planned",
             "ring schedules: planned = rings searched on the fabric's directed links as NCCL's "
             "topology search does (both directions of a bidirectional ring, the disjoint rings "
             "of a mesh); forward = only the group's order, rank r sends to r+1; backward = only "
             "its reverse, r sends to r-1 (what-if overrides)")
      .one_of({"planned", "forward", "backward"});
  p.optional("fair_share", ParamKind::kBool, false,
             "CU executor: the k channel CUs sending over one link share it equally (the link "
             "interleaves their stores): each injects at most 1/k of the link's bandwidth, and "
             "time one spends on step synchronisation is not taken up by the others");
  p.optional("p2p_direct", ParamKind::kBool, false,
             "CU executor, Simple, intra-node: NCCL's direct pointers (one process drives every "
             "GPU): the sender stores a ring's final slice straight into the receiver's output, "
             "so the receive-only step waits for its flag and moves no bytes");
  p.optional("p2p_read", ParamKind::kBool, false,
             "CU executor, Simple, intra-node: NCCL's P2P transport in read mode (its default over "
             "NVLink between compute-capability 8.0 GPUs): the Simple buffer sits with the sender "
             "and the receiver loads from it, and NCCL hands out no direct pointers to buffers "
             "the user did not register, so p2p_direct has no effect");
  return p;
}

LibraryConfig bind_library(const ConfigNode& node, uint32_t fabric_gpus_per_node) {
  const BoundParams b = bind(library_params(), node);
  LibraryConfig c;
  c.channels = static_cast<uint32_t>(b.integer("channels"));
  c.algo = parse_algo(b.str("algorithm"), "algorithm");
  c.protocol = parse_protocol(b.str("protocol"), "protocol");
  c.executor = parse_executor(b.str("executor"), "executor");
  c.steps = static_cast<uint32_t>(b.integer("steps"));
  for (size_t i = 0; i < kLibProtos.size(); ++i) {
    c.protocols[i] = bind_protocol(b, kLibProtos[i], c.steps, b.real("link_efficiency"), node);
  }
  if (b.present("tuner")) {
    c.tuner = bind_tuner(b.node("tuner"));
  } else {
    for (const char* key : {"ll_max", "ll128_max", "nvls_min", "tree_max"}) {
      if (!b.present(key)) {
        node.fail_key("tuner", std::string("needs a \"tuner\" object (extend "
                                           "presets/collectives/nccl-a100.json) or the size "
                                           "threshold '") +
                                   key + "'");
      }
    }
    c.ll_max = b.bytes("ll_max");
    c.ll128_max = b.bytes("ll128_max");
    c.nvls_min = b.bytes("nvls_min");
    c.tree_max = b.bytes("tree_max");
  }
  c.gpus_per_node = b.present("gpus_per_node") ? static_cast<uint32_t>(b.integer("gpus_per_node"))
                                               : fabric_gpus_per_node;
  c.inter_node_latency = b.duration("inter_node_latency");
  c.nvls_channels = static_cast<uint32_t>(b.integer("nvls_channels"));
  c.nvls_chunk = b.bytes("nvls_chunk");
  c.nvls_min_ranks = static_cast<uint32_t>(b.integer("nvls_min_ranks"));
  c.tree_min_chunk = b.bytes("tree_min_chunk");
  c.piece = b.bytes("piece");
  const std::string dir = b.str("ring_direction");
  c.ring_direction = dir == "planned"   ? RingDirection::kPlanned
                     : dir == "forward" ? RingDirection::kForward
                                        : RingDirection::kBackward;
  c.fair_share = b.boolean("fair_share");
  c.p2p_direct = b.boolean("p2p_direct");
  c.p2p_read = b.boolean("p2p_read");
  return c;
}

}  // namespace t3sim::collectives
