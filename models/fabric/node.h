// A vertex of the fabric as a component: a GPU's fabric endpoint, an NVSwitch plane, a NIC or an
// InfiniBand switch. It owns the ports of its links (one out and one in per link direction) and its
// counters; the links themselves (sim/port.h Link) are its children, named "to_<peer>". Transport
// decisions (routing, arbitration) are made by the Fabric and the per-link Egress, not here.
// Stats: every node counts transit traffic (bytes/packets_forwarded: for a switch, everything it
// switched); a GPU also counts what it injected and what was delivered to it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/fabric/flow_table.h"
#include "models/fabric/topology.h"
#include "sim/component.h"
#include "sim/port.h"
#include "sim/stats.h"

namespace t3sim::fabric {

class Node final : public Component {
 public:
  Node(Simulator& sim, Component* parent, const TopoNode& spec);

  NodeKind kind() const { return kind_; }
  OutPort<Packet>& add_out(const std::string& name, CreditListener* listener);
  InPort<Packet>& add_in(const std::string& name, Receiver<Packet>& rx);

  Counter bytes_forwarded;
  Counter packets_forwarded;
  // GPU endpoints only (registered as stats only for GPUs).
  Counter bytes_sent;
  Counter bytes_received;
  Counter packets_sent;
  Counter packets_received;
  Counter messages_sent;
  Counter messages_received;

 private:
  NodeKind kind_;
  std::vector<std::unique_ptr<OutPort<Packet>>> outs_;
  std::vector<std::unique_ptr<InPort<Packet>>> ins_;
};

}  // namespace t3sim::fabric
