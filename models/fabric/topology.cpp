#include "models/fabric/topology.h"

#include "sim/errors.h"

namespace t3sim::fabric {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::kGpu:
      return "gpu";
    case NodeKind::kNvSwitch:
      return "nvswitch";
    case NodeKind::kNic:
      return "nic";
    case NodeKind::kIbSwitch:
      return "ib_switch";
    case NodeKind::kPcieSwitch:
      return "pcie_switch";
  }
  return "?";
}

uint32_t Topology::add_node(NodeKind kind, std::string name) {
  nodes.push_back(TopoNode{kind, std::move(name)});
  return static_cast<uint32_t>(nodes.size() - 1);
}

uint32_t Topology::add_edge(const TopoEdge& e) {
  if (e.from >= nodes.size() || e.to >= nodes.size() || e.from == e.to) {
    throw ModelError("fabric", "bad edge " + std::to_string(e.from) + "->" + std::to_string(e.to));
  }
  if (e.bandwidth.bytes_per_second() == 0) {
    throw ModelError(
        "fabric", "edge " + nodes[e.from].name + "->" + nodes[e.to].name + " has zero bandwidth");
  }
  edges.push_back(e);
  return static_cast<uint32_t>(edges.size() - 1);
}

void Topology::add_duplex(uint32_t a, uint32_t b, TopoEdge ab, TopoEdge ba) {
  ab.from = a;
  ab.to = b;
  ba.from = b;
  ba.to = a;
  add_edge(ab);
  add_edge(ba);
}

}  // namespace t3sim::fabric
