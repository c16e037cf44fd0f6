#include "models/fabric/topologies/basic.h"

#include <string>

#include "models/fabric/build_parts.h"

namespace t3sim::fabric {
namespace {

TopoEdge basic_link_edge(const LinkSpec& l) { return make_edge(l.bandwidth, l.latency, l.credits); }

}  // namespace

std::optional<SizeProblem> too_few_ports(int attached, int ports, const char* key,
                                         const char* what) {
  if (attached <= ports) return std::nullopt;
  return SizeProblem{key, std::to_string(attached) + " ports needed on each " + what +
                              " but it has " + std::to_string(ports) +
                              " (raise 'ports', shrink the system or use topology leaf_spine)"};
}

void declare_ring(Params& p) {
  p.optional("bidirectional", ParamKind::kBool, true,
             "route over both directions (false: only g -> g-1, T3's direction; both wires "
             "still exist)");
}

Topology build_ring(const FabricConfig& c) {
  Topology t = start_topology(c, c.gpus);
  const int n = c.gpus;
  const bool bidirectional = c.own.boolean("bidirectional");
  for (int g = 0; g < n && n > 1; ++g) {
    const int next = (g + 1) % n;
    if (n == 2 && g == 1) break;              // 0<->1 already built: one full-duplex link
    TopoEdge up = basic_link_edge(c.link);    // g -> g+1
    TopoEdge down = basic_link_edge(c.link);  // g+1 -> g, i.e. T3's g -> g-1 direction
    up.routable = bidirectional || n == 2;
    t.add_duplex(static_cast<uint32_t>(g), static_cast<uint32_t>(next), up, down);
  }
  return t;
}

std::optional<SizeProblem> check_fully_connected(const FabricConfig& c) {
  if (c.gpus <= kMaxFullyConnectedGpus) return std::nullopt;
  return SizeProblem{"gpus", "a fully connected fabric of " + std::to_string(c.gpus) +
                                 " GPUs needs a link per GPU pair; at most " +
                                 std::to_string(kMaxFullyConnectedGpus) +
                                 " GPUs (use a switch or leaf_spine topology)"};
}

Topology build_fully_connected(const FabricConfig& c) {
  Topology t = start_topology(c, c.gpus);
  t.edges.reserve(static_cast<size_t>(c.gpus) * static_cast<size_t>(c.gpus - 1));
  for (int i = 0; i < c.gpus; ++i) {
    for (int j = i + 1; j < c.gpus; ++j) {
      t.add_duplex(static_cast<uint32_t>(i), static_cast<uint32_t>(j), basic_link_edge(c.link),
                   basic_link_edge(c.link));
    }
  }
  return t;
}

Topology build_switch(const FabricConfig& c) {
  Topology t = start_topology(c, c.gpus);
  const uint32_t sw = t.add_node(NodeKind::kNvSwitch, "nvswitch");
  t.nodes[sw].reduce_bandwidth = c.nvswitch->reduce_bandwidth;
  for (int g = 0; g < c.gpus; ++g)
    attach_to_switch(t, static_cast<uint32_t>(g), sw, c.link, *c.nvswitch);
  return t;
}

std::optional<SizeProblem> check_two_level(const FabricConfig& c) {
  return too_few_ports(c.nodes, c.ib_switch->ports, "ib_switch", "IB switch (rail)");
}

// Node ids: GPUs, then NVSwitch planes, then NICs, then IB switches. The lowest-id tie-break of
// routing therefore changes rails inside the source node (GPU -> NVSwitch -> peer GPU -> NIC),
// like NCCL's PXN, rather than on the destination side. Latency across the network: nic.latency
// on GPU -> NIC and on NIC -> GPU, ib_switch.latency on the switch's egress; cable propagation is
// folded into the NIC latency. GPU <-> NIC and NIC <-> switch run at the NIC's effective rate.
Topology build_two_level(const FabricConfig& c) {
  const int gpn = c.gpus_per_node;
  Topology t = start_topology(c, c.nodes * gpn);
  t.gpus_per_node = gpn;
  const HostNodes hosts = add_host_nodes(t, c);
  const auto first_ib = static_cast<uint32_t>(t.nodes.size());
  for (int r = 0; r < gpn; ++r) t.add_node(NodeKind::kIbSwitch, "ib_switch" + std::to_string(r));
  for (int g = 0; g < t.num_gpus; ++g) {
    wire_host(t, c, hosts, g, first_ib + static_cast<uint32_t>(g % gpn));
  }
  return t;
}

}  // namespace t3sim::fabric
