#include "models/fabric/leaf_spine.h"

#include <cmath>
#include <string>
#include <vector>

namespace t3sim::fabric {
namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

TopoEdge edge(Bandwidth bw, Duration latency, uint32_t credits) {
  TopoEdge e;
  e.bandwidth = bw;
  e.latency = latency;
  e.credits = credits;
  return e;
}

Bandwidth min_bw(Bandwidth a, Bandwidth b) { return a < b ? a : b; }

}  // namespace

LeafSpineShape leaf_spine_shape(const FabricConfig& c) {
  LeafSpineShape s;
  const int per_leaf = std::min(c.nodes_per_leaf, c.nodes);
  s.groups = ceil_div(c.nodes, per_leaf);
  s.leaves = s.groups * c.gpus_per_node;
  if (s.groups > 1) {
    s.uplinks = std::max(1, static_cast<int>(std::ceil(per_leaf / c.oversubscription - 1e-9)));
    const int links = s.leaves * s.uplinks;
    s.spines = ceil_div(links, c.ib_switch->ports);
    s.spine_ports = ceil_div(links, s.spines);
    s.oversubscription = static_cast<double>(per_leaf) / s.uplinks;
  }
  return s;
}

std::optional<SizeProblem> check_leaf_spine(const FabricConfig& c) {
  const LeafSpineShape s = leaf_spine_shape(c);
  const int ports = c.ib_switch->ports;
  const int leaf_ports = std::min(c.nodes_per_leaf, c.nodes) + s.uplinks;
  if (leaf_ports > ports) {
    return SizeProblem{"nodes_per_leaf",
                       std::to_string(leaf_ports) + " ports needed on each leaf (" +
                           std::to_string(std::min(c.nodes_per_leaf, c.nodes)) + " down, " +
                           std::to_string(s.uplinks) + " up) but ib_switch.ports is " +
                           std::to_string(ports) +
                           " (lower nodes_per_leaf or raise oversubscription)"};
  }
  return std::nullopt;  // spines are sized to fit, so only the leaves can overflow
}

// Node ids: GPUs, NVSwitch planes, NICs, leaves (group-major, then rail), spines. Edges: as in
// two_level up to the NIC; NIC <-> leaf at min(NIC effective rate, port rate); leaf <-> spine at
// the port rate. Every switch adds ib_switch.latency on its egress edges.
Topology build_leaf_spine(const FabricConfig& c) {
  const LeafSpineShape s = leaf_spine_shape(c);
  const int gpn = c.gpus_per_node;
  const int per_leaf = std::min(c.nodes_per_leaf, c.nodes);
  Topology t;
  t.kind = c.topology;
  t.num_gpus = c.nodes * gpn;
  t.gpus_per_node = gpn;
  t.spread_block = gpn;
  t.packet_size = c.link.packet_size;
  t.local_latency = c.local_latency;
  for (int g = 0; g < t.num_gpus; ++g) t.add_node(NodeKind::kGpu, "gpu" + std::to_string(g));
  std::vector<uint32_t> nvsw(static_cast<size_t>(c.nodes));
  for (int n = 0; n < c.nodes && gpn > 1; ++n) {
    nvsw[n] = t.add_node(NodeKind::kNvSwitch, "nvswitch" + std::to_string(n));
  }
  const auto first_nic = static_cast<uint32_t>(t.nodes.size());
  for (int g = 0; g < t.num_gpus; ++g) t.add_node(NodeKind::kNic, "nic" + std::to_string(g));
  const auto first_leaf = static_cast<uint32_t>(t.nodes.size());
  for (int grp = 0; grp < s.groups; ++grp) {
    for (int r = 0; r < gpn; ++r) {
      t.add_node(NodeKind::kIbSwitch, "leaf" + std::to_string(grp) + "_" + std::to_string(r));
    }
  }
  const auto first_spine = static_cast<uint32_t>(t.nodes.size());
  for (int sp = 0; sp < s.spines; ++sp) {
    t.add_node(NodeKind::kIbSwitch, "spine" + std::to_string(sp));
  }

  const NicSpec& nic = *c.nic;
  const IbSwitchSpec& ib = *c.ib_switch;
  const Bandwidth nic_bw = nic.effective();
  const Bandwidth wire_bw = min_bw(nic_bw, ib.port_bandwidth);
  for (int g = 0; g < t.num_gpus; ++g) {
    const auto gpu = static_cast<uint32_t>(g);
    const uint32_t nic_id = first_nic + gpu;
    const int node = g / gpn;
    if (gpn > 1) {
      const Bandwidth bw = min_bw(c.link.bandwidth, c.nvswitch->port_bandwidth);
      t.add_duplex(gpu, nvsw[node], edge(bw, c.link.latency, c.link.credits),
                   edge(bw, c.link.latency + c.nvswitch->latency, c.link.credits));
    }
    t.add_duplex(gpu, nic_id, edge(nic_bw, nic.latency, 0), edge(nic_bw, nic.latency, 0));
    const uint32_t leaf = first_leaf + static_cast<uint32_t>((node / per_leaf) * gpn + g % gpn);
    t.add_duplex(nic_id, leaf, edge(wire_bw, Duration(), 0), edge(wire_bw, ib.latency, 0));
  }
  for (int l = 0; l < s.leaves; ++l) {
    for (int u = 0; u < s.uplinks; ++u) {
      const auto spine = first_spine + static_cast<uint32_t>((l * s.uplinks + u) % s.spines);
      t.add_duplex(first_leaf + static_cast<uint32_t>(l), spine,
                   edge(ib.port_bandwidth, ib.latency, 0), edge(ib.port_bandwidth, ib.latency, 0));
    }
  }
  return t;
}

}  // namespace t3sim::fabric
