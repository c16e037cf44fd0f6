#include "models/fabric/node.h"

namespace t3sim::fabric {

Node::Node(Simulator& sim, Component* parent, const TopoNode& spec)
    : Component(sim, parent, spec.name), kind_(spec.kind) {
  StatGroup& s = stats();
  s.add("bytes_forwarded", bytes_forwarded, "B", "transit bytes (arrived, not destined here)");
  s.add("packets_forwarded", packets_forwarded, "count", "transit packets");
  if (kind_ != NodeKind::kGpu) return;
  s.add("bytes_sent", bytes_sent, "B", "bytes of messages sent from this GPU (incl. to itself)");
  s.add("bytes_received", bytes_received, "B", "bytes delivered to this GPU (incl. from itself)");
  s.add("packets_sent", packets_sent, "count", "packets injected into the fabric");
  s.add("packets_received", packets_received, "count", "packets delivered from the fabric");
  s.add("messages_sent", messages_sent, "count", "messages sent");
  s.add("messages_received", messages_received, "count", "messages delivered");
}

OutPort<Packet>& Node::add_out(const std::string& name, CreditListener* listener) {
  outs_.push_back(std::make_unique<OutPort<Packet>>(*this, name, listener));
  declare_port(*outs_.back());
  return *outs_.back();
}

InPort<Packet>& Node::add_in(const std::string& name, Receiver<Packet>& rx) {
  ins_.push_back(std::make_unique<InPort<Packet>>(*this, name, rx));
  declare_port(*ins_.back());
  return *ins_.back();
}

}  // namespace t3sim::fabric
