// RemoteMemory: the path of a store, write or NMC update from one GPU into another GPU's HBM.
// The data crosses the fabric as one message; at the destination an ingress queue issues it into
// the destination HBM as transaction-sized requests (so remote traffic contends with the
// destination's own traffic at its memory controller), then the sender is told it completed.
// Fidelity: the completion acknowledgement's return trip is not modelled (it is a few bytes);
// local accesses (src == dst) skip the fabric. Each access carries a contribution count so the
// reduce-scatter can prove every chunk ends with exactly N contributions. An access with
// `switch_copies` > 0 is one GPU's copy for an in-switch reduction (common::FabricApi::
// reduce_in_switch): it completes for its sender when the copy is in the switch, and the
// reduced copy lands once at dst, carrying every copy's contributions.
// Contract: post() completes exactly once via AccessDone (if given); nothing is dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/common/fabric_api.h"
#include "models/common/memory.h"
#include "models/common/mirror.h"
#include "models/gpu/mem_stream.h"
#include "sim/component.h"
#include "sim/slot_pool.h"

namespace t3sim::gpu {

struct RemoteAccess {
  int src = 0;
  int dst = 0;
  uint64_t addr = 0;  // in the destination's HBM
  uint64_t bytes = 0;
  common::MemCmd cmd = common::MemCmd::kWrite;
  common::TrafficClass cls = common::TrafficClass::kRsWrite;
  uint32_t tile = common::kNoTile;  // destination tracker tile (UPDATEs)
  uint16_t contrib = 1;             // partial sums carried (reduce-scatter bookkeeping)
  // > 0: a copy reduced in the switch with the other copies for the same (dst, addr) (this many
  // in all; one reduction per destination address at a time), then written once at dst.
  uint16_t switch_copies = 0;
  AccessDone* done = nullptr;
  uint64_t tag = 0;
  uint64_t flow = 0;  // timeline flow arrow (sim/timeline.h), 0 = none
  Tick landing;       // when it reached the destination's ingress (timeline only)
};

// Admission check at a destination's ingress (the T3 tracker): an UPDATE refused here is parked
// until unpark(dst) is called, without blocking other arrivals.
class IngressGate {
 public:
  virtual ~IngressGate() = default;
  virtual bool admit_remote(uint32_t tile) = 0;
};

class RemoteMemory : public Component, public common::FabricReceiver, public AccessDone {
 public:
  // `targets[g]` is GPU g's HBM (nullptr: a GPU a folded run leaves out, which nothing may land
  // at); `fabric` carries the data between GPUs.
  RemoteMemory(Simulator& sim, Component* parent, std::string name, common::FabricApi& fabric,
               std::vector<common::MemTarget*> targets, uint32_t txn_bytes,
               uint32_t ingress_in_flight);
  void post(const RemoteAccess& a);
  uint64_t bytes_posted(int gpu) const { return posted_[static_cast<size_t>(gpu)]; }
  uint64_t bytes_landed(int gpu) const { return landed_[static_cast<size_t>(gpu)]; }
  size_t outstanding() const { return live_; }
  // Folded run (models/common/mirror.h): an access for a GPU d that `rot` does not simulate
  // crosses the fabric to d, then lands at rot.rep(d) with its address and tile rotated by `map`
  // (nullptr: unchanged).
  void fold(const common::MirrorMap* map, const common::GpuRotation& rot) {
    folded_ = true;
    mirror_ = map;
    rot_ = rot;
  }
  void set_gate(int dst, IngressGate* gate) { gates_[static_cast<size_t>(dst)] = gate; }
  // Re-offers parked tiles of `dst` to its gate in arrival order, stopping at the first refusal.
  void unpark(int dst);
  // Lands every parked access of `tile` at `dst` (its entry was just allocated by the GPU itself).
  void unpark_tile(int dst, uint32_t tile);
  size_t parked(int dst) const { return parked_[static_cast<size_t>(dst)].order.size(); }
  void delivered(uint64_t tag) override;
  void access_done(uint64_t tag) override;
  void finish() override;

 private:
  void land(uint32_t slot);
  void post_copy(uint32_t slot);
  void gate(uint32_t slot);
  common::FabricApi& fabric_;
  std::map<std::pair<int, uint64_t>, uint32_t> reducing_;  // (dst, addr) -> reduced access slot
  struct Parked {
    std::unordered_map<uint32_t, std::vector<uint32_t>> by_tile;  // tile -> access slots
    std::deque<uint32_t> order;                                   // tiles in arrival order
  };
  std::vector<IngressGate*> gates_;
  std::vector<Parked> parked_;
  std::vector<std::unique_ptr<MemStream>> ingress_;  // one per destination GPU
  SlotPool<RemoteAccess> slots_;
  std::vector<uint64_t> posted_;
  std::vector<uint64_t> landed_;
  size_t live_ = 0;
  bool folded_ = false;
  const common::MirrorMap* mirror_ = nullptr;
  common::GpuRotation rot_;
  Counter messages_;
  Counter bytes_;
  Counter parked_count_;
};

}  // namespace t3sim::gpu
