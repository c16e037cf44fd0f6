// In-switch reduction as a fabric service (NVLink SHARP, validation/reference/hardware.md §5.1):
// each GPU's copy crosses its link up into the switch (an in-switch segment); the switch counts
// the copies of each reduction, and when the last is in, the reducer at the destination's port
// reduces them and the reduced copy goes down to its GPU. Fidelity: one reducer per GPU-facing
// port at the switch's `reduce_bandwidth`, streaming into the port: a reducer at least as fast as
// its port never holds a reduced copy back (the port drains no faster), so the copy goes down at
// once; a slower one serves reductions in the order they complete, each holding it for bytes /
// reduce_bandwidth from its start, when its copy starts down. The switch buffers any number of
// partial reductions.
// Invariants (finish()): every opened reduction completed with all its copies; bytes in = copies
// x bytes, bytes out = reductions x bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/common/fabric_api.h"
#include "models/fabric/routing.h"
#include "models/fabric/topology.h"
#include "sim/component.h"
#include "sim/slot_pool.h"
#include "sim/stats.h"

namespace t3sim::fabric {

class SwitchReductions final : public Component, public common::FabricReceiver {
 public:
  // `send` sends an in-switch segment over the fabric (Fabric::send_segment).
  using SendSegment = std::function<void(int src, int dst, common::PathSegment seg, Bytes bytes,
                                         common::FabricReceiver* rx, uint64_t tag)>;
  SwitchReductions(Simulator& sim, Component* parent, const Topology& topo,
                   const RouteTable& routes, SendSegment send);

  // True if some switch of the topology reduces.
  bool available() const { return available_; }
  // Contract: common::FabricApi::reduce_in_switch.
  void contribute(int src, int via, const common::SwitchReduction& r, common::FabricReceiver* up_rx,
                  uint64_t up_tag);
  void delivered(uint64_t tag) override;
  uint64_t reductions() const { return reductions_.value(); }
  uint64_t contributions() const { return contributions_.value(); }
  uint64_t reducer_waits() const { return reducer_waits_.value(); }
  void finish() override;

 private:
  struct Key {
    const common::FabricReceiver* rx;
    uint64_t tag;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.rx) ^
             (std::hash<uint64_t>()(k.tag) * 0x9e3779b97f4a7c15ULL);
    }
  };
  struct Reduction {
    common::SwitchReduction r;
    uint32_t arrived = 0;
    uint32_t node = 0;  // the switch
    Tick opened{};      // first copy in the switch (timeline)
  };
  struct Up {
    uint32_t reduction = 0;
    common::FabricReceiver* rx = nullptr;
    uint64_t tag = 0;
  };
  uint32_t switch_of(int src, int via) const;  // the switch the first hop of src -> via enters
  int other_gpu(int gpu) const;  // the lowest GPU != gpu two hops away via gpu's first switch
  void copy_in(uint32_t up);
  void reduce(uint64_t reduction);
  void trace(const Reduction& red) const;

  const Topology& topo_;
  const RouteTable& routes_;
  SendSegment send_;
  bool available_ = false;
  std::unordered_map<Key, uint32_t, KeyHash> open_;  // counting copies
  SlotPool<Reduction> reductions_live_;
  SlotPool<Up> ups_;
  std::vector<Tick> reducer_free_;  // per edge (a switch's port towards a GPU)
  mutable std::vector<int> other_;  // per GPU: other_gpu(), -2 until computed
  Counter reductions_;
  Counter contributions_;
  Counter bytes_in_;
  Counter bytes_out_;
  Counter reducer_waits_;
};

}  // namespace t3sim::fabric
