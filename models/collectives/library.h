// The collective library's settings (a system config's "collectives" object): channels,
// algorithm/protocol/executor defaults, NCCL's per-protocol geometry (buffer, NCCL_STEPS slots,
// chunk and slice steps, per-channel thresholds), per-protocol costs (launch and per-slice
// flag/fence latency, payload fraction on the wire), GPU-link efficiency and auto thresholds.
// Fidelity: NCCL's structure (hardware.md §5.2-5.4), not its cost formula. No C++ defaults for
// NCCL's constants or the fitted costs: configs/presets/collectives/ holds them with sources and
// every system extends one explicitly. Invariants
// after bind_library(): chunk = chunk_steps x step payload, slots >= 1, efficiencies in (0, 1].
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "models/collectives/tuner_constants.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/units.h"

namespace t3sim {
class Registry;
}

namespace t3sim::collectives {

// The collective operations (kinds.h holds their table: names, sizes, bus-bandwidth rule).
enum class Kind : uint8_t {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv
};
// An algorithm: a handle on a row of the algorithm table (algorithms.h), or auto. The table is the
// one place an algorithm is registered; the constants below name the built-in rows that code
// special-cases (algorithms.cpp checks they name the rows they say), and parse_algo() hands out
// the others.
struct Algo {
  uint8_t row = 0;  // 0: auto; r > 0: algorithm_table()[r - 1]
  static const Algo kAuto, kRing, kDirect, kHierarchical, kNvls, kTree;
  friend constexpr bool operator==(Algo, Algo) = default;
};
inline constexpr Algo Algo::kAuto{0};
inline constexpr Algo Algo::kRing{1};
inline constexpr Algo Algo::kDirect{2};
inline constexpr Algo Algo::kHierarchical{3};
inline constexpr Algo Algo::kNvls{4};
inline constexpr Algo Algo::kTree{5};
enum class Protocol : uint8_t { kAuto, kSimple, kLL128, kLL };
enum class Executor : uint8_t { kCu, kDma };
enum class RingDirection : uint8_t { kPlanned, kForward, kBackward };

const char* to_string(Kind k);
const char* to_string(Algo a);
const char* to_string(Protocol p);
const char* to_string(Executor e);
// Parse the config/CLI spellings ("ring", "ll128", "dma", ...); ConfigError naming `what` if
// unknown.
Algo parse_algo(const std::string& s, const std::string& what);
Protocol parse_protocol(const std::string& s, const std::string& what);
Executor parse_executor(const std::string& s, const std::string& what);

// One protocol's geometry and costs, derived from the flat parameters.
struct ProtocolSpec {
  Bytes buffer;                   // per connection and channel, wire bytes (NCCL buffSizes)
  uint32_t chunk_steps = 1;       // steps per chunk (NCCL ALLREDUCE_CHUNKSTEPS)
  uint32_t slice_steps = 1;       // steps per slice (NCCL ALLREDUCE_SLICESTEPS)
  Duration step_latency;          // per slice: flag (and, for Simple, fence) cost on the CU
  Duration base_latency;          // launch latency of the collective kernel
  uint32_t line_ppm = 1'000'000;  // payload / protocol line bytes (LL 8/16), in ppm
  uint32_t link_ppm = 1'000'000;  // line bytes / link bytes (packet headers), in ppm
  bool fenced = false;            // Simple: a slice becomes visible only when complete
  Bytes channel_bytes;            // fewer channels below this much data per channel (NCCL)

  // Derived (filled by bind_library): payload bytes of one step, chunk, slice; slots per
  // connection.
  Bytes step_payload;
  Bytes chunk;
  uint32_t slices_per_chunk = 1;
  uint32_t slots = 1;  // slices a sender may be ahead of its receiver (steps / slice_steps)
  // Bytes a slice occupies in buffers (payload + LL/LL128 flags) and on the link (+ headers).
  uint64_t line_bytes(uint64_t payload) const;
  uint64_t wire_bytes(uint64_t payload) const;
};

struct LibraryConfig {
  uint32_t channels = 1;
  Algo algo = Algo::kAuto;
  Protocol protocol = Protocol::kAuto;
  Executor executor = Executor::kCu;
  uint32_t steps = 8;
  std::array<ProtocolSpec, 3> protocols;  // indexed by proto_index(): simple, ll128, ll
  // auto: NCCL's tuner (tuner.h) when the object has a "tuner"; else the size thresholds below.
  std::optional<TunerConstants> tuner;
  Bytes ll_max;                 // no tuner: LL up to this size (bytes of S)
  Bytes ll128_max;              // no tuner: LL128 up to this size (NVLink-only groups)
  uint32_t gpus_per_node = 0;   // 0 = every GPU in one node
  Duration inter_node_latency;  // extra per-slice flag latency on inter-node hops
  uint32_t nvls_channels = 0;   // NVLink SHARP channels (0: the switch cannot reduce)
  Bytes nvls_chunk;             // NVLS chunk per channel and loop
  Bytes nvls_min;               // no tuner: NVLS all-reduce from this size
  uint32_t nvls_min_ranks = 2;  // auto: NVLS only with more GPUs than this
  Bytes tree_max;               // no tuner: Tree across nodes up to this size
  Bytes tree_min_chunk;         // Tree, Simple: floor of the chunk halving by depth
  Bytes piece;                  // CU memory-work granularity (fidelity knob)
  // Ring orders: planned from the fabric's links (channel_plan.h), or, as a what-if override, the
  // group's order run one way only (forward: rank r sends to r+1; backward: to r-1).
  RingDirection ring_direction = RingDirection::kPlanned;
  bool fair_share = false;  // CU: a channel injects at most its share of its path's bandwidth
  bool p2p_direct =
      false;  // Simple, intra-node: the last receive of a ring finds its data in place
  // Simple, intra-node: NCCL's P2P read mode; no direct pointers, so p2p_direct is void.
  bool p2p_read = false;

  const ProtocolSpec& spec(Protocol p) const;
  // Without a tuner, auto-selection by size S (hardware.md §5.3): LL small, LL128 medium when
  // every hop is intra-node NVLink, Simple large. `p` other than kAuto is returned unchanged.
  Protocol select(Protocol p, uint64_t bytes, bool multi_node) const;
  int node_of(int gpu) const {
    return gpus_per_node == 0 ? 0 : gpu / static_cast<int>(gpus_per_node);
  }
  // NCCL's channel tuning: the largest count <= `want` whose channels each get at least
  // channel_bytes of S (x ranks for LL rings, whose threshold scales with nRanks); at least 1.
  uint32_t channels_for(Protocol p, uint32_t want, uint64_t bytes, int ranks, bool ring) const;
};

size_t proto_index(Protocol p);  // kSimple 0, kLL128 1, kLL 2 (ModelError for kAuto)

// Declared once: every key of the "collectives" object with its unit, default and description.
Params library_params();
// Contract: binds `node` strictly against library_params(); ConfigError on any violation, including
// a buffer too small for one slice. `fabric_gpus_per_node` (the fabric's two_level size, 0 if none)
// is used when the object does not set "gpus_per_node".
LibraryConfig bind_library(const ConfigNode& node, uint32_t fabric_gpus_per_node = 0);
// Adds the "collectives" parameter set to `t3sim describe`.
void register_collectives_models(Registry& r);

}  // namespace t3sim::collectives
