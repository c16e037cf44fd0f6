#include "models/fabric/topologies/leaf_spine.h"

#include <cmath>
#include <string>
#include <vector>

#include "models/fabric/build_parts.h"

namespace t3sim::fabric {
namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

int nodes_per_leaf(const FabricConfig& c) {
  return std::min(static_cast<int>(c.own.integer("nodes_per_leaf")), c.nodes);
}

}  // namespace

void declare_leaf_spine(Params& p) {
  p.required("nodes_per_leaf", ParamKind::kInt,
             "nodes per group; each group has one leaf switch per rail")
      .range(1, kMaxGpus);
  p.optional("oversubscription", ParamKind::kReal, 1.0,
             "leaf down / up ports (1 = full bisection); uplinks = "
             "ceil(nodes_per_leaf / oversubscription)")
      .range(1.0, 1024.0);
}

LeafSpineShape leaf_spine_shape(const FabricConfig& c) {
  LeafSpineShape s;
  const int per_leaf = nodes_per_leaf(c);
  s.groups = ceil_div(c.nodes, per_leaf);
  s.leaves = s.groups * c.gpus_per_node;
  if (s.groups > 1) {
    s.uplinks =
        std::max(1, static_cast<int>(std::ceil(per_leaf / c.own.real("oversubscription") - 1e-9)));
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
  const int per_leaf = nodes_per_leaf(c);
  const int leaf_ports = per_leaf + s.uplinks;
  if (leaf_ports > ports) {
    return SizeProblem{"nodes_per_leaf",
                       std::to_string(leaf_ports) + " ports needed on each leaf (" +
                           std::to_string(per_leaf) + " down, " + std::to_string(s.uplinks) +
                           " up) but ib_switch.ports is " + std::to_string(ports) +
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
  const int per_leaf = nodes_per_leaf(c);
  Topology t = start_topology(c, c.nodes * gpn);
  t.gpus_per_node = gpn;
  t.spread_block = gpn;
  if (c.striped) {  // node n: group n mod groups, slot n / groups
    t.position.resize(static_cast<size_t>(c.nodes));
    for (int n = 0; n < c.nodes; ++n) {
      t.position[static_cast<size_t>(n)] =
          static_cast<uint32_t>((n % s.groups) * per_leaf + n / s.groups);
    }
  }
  const HostNodes hosts = add_host_nodes(t, c);
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
  const IbSwitchSpec& ib = *c.ib_switch;
  for (int g = 0; g < t.num_gpus; ++g) {
    const int node = static_cast<int>(t.spread_key(g));
    wire_host(t, c, hosts, g,
              first_leaf + static_cast<uint32_t>((node / per_leaf) * gpn + g % gpn));
  }
  for (int l = 0; l < s.leaves; ++l) {
    for (int u = 0; u < s.uplinks; ++u) {
      const auto spine = first_spine + static_cast<uint32_t>((l * s.uplinks + u) % s.spines);
      t.add_duplex(first_leaf + static_cast<uint32_t>(l), spine,
                   make_edge(ib.port_bandwidth, ib.latency, 0),
                   make_edge(ib.port_bandwidth, ib.latency, 0));
    }
  }
  return t;
}

}  // namespace t3sim::fabric
