// The output side of one link direction: the flows (hops) queued for it, served one packet at a
// time in round-robin order, so concurrent flows share the link fairly at packet granularity (flow
// = one (src, dst) pair, FIFO inside). The link (sim/port.h Link) serialises, adds latency and
// holds credits; the egress hands it a packet only when it is idle and has a credit, so arbitration
// happens when the wire frees. Cost: <= 1 wake-up event per packet sent, none while empty (idle
// sleeps). Contract: activate(slot) when a hop goes from 0 to >= 1 ready packets; each packet sent
// returns one credit to the link it arrived on. Credits on cyclic routes can deadlock (no virtual
// channels, as in hardware without them); Fabric::finish() reports it.
#pragma once

#include <cstdint>
#include <vector>

#include "models/fabric/flow_table.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/simulator.h"

namespace t3sim::fabric {

class Egress final : public CreditListener {
 public:
  // `inputs[e]` is edge e's receive port. The queue grows with the flows that use the link.
  Egress(Simulator& sim, FlowTable& flows, const std::vector<InPort<Packet>*>& inputs);
  Egress(const Egress&) = delete;
  Egress& operator=(const Egress&) = delete;

  void bind(OutPort<Packet>& out, Link<Packet>& link) {
    out_ = &out;
    link_ = &link;
  }
  void activate(uint32_t slot) {
    push(slot);
    try_send();
  }
  void credit_available() override { try_send(); }
  // Timeline: the bytes this direction sends go to counter `id` (sim/timeline.h).
  void trace_to(uint32_t id) { trace_counter_ = id; }
  uint32_t queued_flows() const { return count_; }
  Duration busy() const { return busy_; }
  // Packets queued, link idle, no credit: blocked on the downstream buffer.
  bool waiting_for_credit() const {
    return count_ > 0 && !wake_ev_.scheduled() && !link_->can_send();
  }

 private:
  void try_send();
  void wake() { try_send(); }
  void push(uint32_t slot);
  uint32_t pop();

  Simulator& sim_;
  FlowTable& flows_;
  const std::vector<InPort<Packet>*>& inputs_;
  OutPort<Packet>* out_ = nullptr;
  Link<Packet>* link_ = nullptr;
  std::vector<uint32_t>
      ring_;  // round-robin queue of non-empty slots (circular, doubles when full)
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  Duration busy_;
  uint32_t trace_counter_ = UINT32_MAX;  // none
  MemberEvent<Egress, &Egress::wake> wake_ev_;
};

}  // namespace t3sim::fabric
