#include "models/fabric/build_parts.h"

#include <string>

namespace t3sim::fabric {

Topology start_topology(const FabricConfig& c, int gpus) {
  Topology t;
  t.kind = c.topology;
  t.num_gpus = gpus;
  t.packet_size = c.link.packet_size;
  t.local_latency = c.local_latency;
  for (int g = 0; g < gpus; ++g) t.add_node(NodeKind::kGpu, "gpu" + std::to_string(g));
  return t;
}

TopoEdge make_edge(Bandwidth bw, Duration latency, uint32_t credits) {
  TopoEdge e;
  e.bandwidth = bw;
  e.latency = latency;
  e.credits = credits;
  return e;
}

void attach_to_switch(Topology& t, uint32_t gpu, uint32_t sw, const LinkSpec& l,
                      const SwitchSpec& s) {
  const Bandwidth bw = min_bw(l.bandwidth, s.port_bandwidth);
  t.add_duplex(gpu, sw, make_edge(bw, l.latency, l.credits),
               make_edge(bw, l.latency + s.latency, l.credits));
}

HostNodes add_host_nodes(Topology& t, const FabricConfig& c) {
  HostNodes h;
  h.nvswitch.resize(static_cast<size_t>(c.nodes));
  for (int n = 0; n < c.nodes && c.gpus_per_node > 1; ++n) {
    const uint32_t sw = t.add_node(NodeKind::kNvSwitch, "nvswitch" + std::to_string(n));
    t.nodes[sw].reduce_bandwidth = c.nvswitch->reduce_bandwidth;
    h.nvswitch[static_cast<size_t>(n)] = sw;
  }
  h.first_nic = static_cast<uint32_t>(t.nodes.size());
  for (int g = 0; g < t.num_gpus; ++g) t.add_node(NodeKind::kNic, "nic" + std::to_string(g));
  return h;
}

void wire_host(Topology& t, const FabricConfig& c, const HostNodes& h, int g,
               uint32_t rail_switch) {
  const auto gpu = static_cast<uint32_t>(g);
  const uint32_t nic_id = h.first_nic + gpu;
  const int gpn = c.gpus_per_node;
  if (gpn > 1) {
    attach_to_switch(t, gpu, h.nvswitch[static_cast<size_t>(g / gpn)], c.link, *c.nvswitch);
  }
  const NicSpec& nic = *c.nic;
  const Bandwidth nic_bw = nic.effective();
  const Bandwidth wire_bw = min_bw(nic_bw, c.ib_switch->port_bandwidth);
  t.add_duplex(gpu, nic_id, make_edge(nic_bw, nic.latency, 0), make_edge(nic_bw, nic.latency, 0));
  t.add_duplex(nic_id, rail_switch, make_edge(wire_bw, Duration(), 0),
               make_edge(wire_bw, c.ib_switch->latency, 0));
}

}  // namespace t3sim::fabric
