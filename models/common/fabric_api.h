// The narrow boundary between traffic generators (DMA engines, collective kernels, remote stores)
// and the interconnect, in the spirit of ASTRA-sim's network API: a message of some bytes goes from
// GPU `src` to GPU `dst` and the receiver is told when its last byte has arrived. Which links,
// switches and NICs it crosses is the fabric's business (static shortest-path routing).
// Contract: send() never drops; deliveries between one (src, dst) pair arrive in send order;
// delivered() is called exactly once per message at its arrival time.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/common/mirror.h"
#include "sim/errors.h"
#include "sim/units.h"

namespace t3sim::common {

class FabricReceiver {
 public:
  virtual ~FabricReceiver() = default;
  virtual void delivered(uint64_t tag) = 0;
};

// Which hops of the src -> dst path a message crosses: all of them, or, for in-switch collectives
// (NVLink SHARP: reduction and multicast in the NVSwitch, hardware.md §5.1), only the first hop,
// ending in the switch, or only the last, leaving the switch for dst.
enum class PathSegment : uint8_t { kWhole, kToSwitch, kFromSwitch };

// One directed link on a route: an id unique within the fabric (each direction of a wire has its
// own) and its peak rate in that direction. Collective planning charges these (channel_plan.h).
struct PathLink {
  uint32_t id = 0;
  Bandwidth bandwidth;
};

// One in-switch reduction (NVLink SHARP, validation/reference/hardware.md §5.1): `contributions`
// copies of `bytes` meet in a switch, which reduces them and sends one reduced copy to `dst`. The
// pair (rx, tag) names it: the first contribution opens it, the last one completes it.
struct SwitchReduction {
  int dst = 0;
  uint32_t contributions = 0;
  Bytes bytes;                   // of each copy and of the reduced copy (wire bytes)
  FabricReceiver* rx = nullptr;  // told `tag` when the reduced copy has arrived at dst
  uint64_t tag = 0;
  int down_from = -1;  // the reduced copy takes the last hop of route down_from -> dst (-1: any)
};

class FabricApi {
 public:
  virtual ~FabricApi() = default;
  virtual int num_gpus() const = 0;
  virtual void send(int src, int dst, Bytes bytes, FabricReceiver* rx, uint64_t tag) = 0;
  // True if send_segment() works (a packet-level fabric; a flow-level one has no switch state).
  virtual bool has_switch_segments() const { return false; }
  // Contract: as send(), over `seg` of the path; the path must cross a switch (src != dst). A
  // fabric without in-switch paths throws ModelError.
  virtual void send_segment(int src, int dst, PathSegment seg, Bytes bytes, FabricReceiver* rx,
                            uint64_t tag) {
    (void)src, (void)dst, (void)seg, (void)bytes, (void)rx, (void)tag;
    throw ModelError("fabric", "this fabric model has no in-switch message segments");
  }
  // True if reduce_in_switch() works (a packet-level fabric whose switches reduce).
  virtual bool has_switch_reduction() const { return false; }
  // Contract: sends GPU src's copy for reduction `r` over the first hop of route src -> via into
  // its switch (via -1: the route to r.dst, or to another GPU of that switch when src == r.dst);
  // `up_rx` (may be null) is told `up_tag` when the copy is in the switch. Every copy of one
  // reduction must reach the same switch and agree on `r`; a fabric without in-switch reduction
  // throws ModelError.
  virtual void reduce_in_switch(int src, int via, const SwitchReduction& r, FabricReceiver* up_rx,
                                uint64_t up_tag) {
    (void)src, (void)via, (void)r, (void)up_rx, (void)up_tag;
    throw ModelError("fabric", "this fabric model has no in-switch reduction");
  }
  // Peak per-direction bandwidth and one-way latency between two GPUs (for schedule planning,
  // e.g. choosing slice sizes; never used to compute results directly).
  virtual Bandwidth path_bandwidth(int src, int dst) const = 0;
  virtual Duration path_latency(int src, int dst) const = 0;
  virtual int hops(int src, int dst) const = 0;
  // The directed links the route src -> dst crosses, in order (empty for src == dst). For planning
  // only (NCCL-like ring search); a fabric that does not expose its links returns nothing for
  // every pair, and planners then keep the group's own order.
  virtual std::vector<PathLink> path_links(int src, int dst) const {
    (void)src, (void)dst;
    return {};
  }
  // For a folded run: why the traffic of a rotation-symmetric schedule, the representatives
  // (GpuRotation::reps()) sending over `rep_pairs` (src, dst) and every GPU g as rep(g) rotated
  // by shift(g), would not look the same from every GPU (empty: it does). A fabric that maps onto
  // itself under rot says so at once.
  virtual std::string fold_problem(const std::vector<std::pair<int, int>>& rep_pairs,
                                   const GpuRotation& rot) const {
    (void)rep_pairs, (void)rot;
    return "this fabric does not declare its symmetry";
  }
};

}  // namespace t3sim::common
