#include "models/fabric/builders.h"

#include <algorithm>
#include <array>

#include "models/fabric/build_parts.h"
#include "models/fabric/direct_builders.h"
#include "models/fabric/leaf_spine.h"
#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

TopoEdge link_edge(const LinkSpec& l) { return make_edge(l.bandwidth, l.latency, l.credits); }

std::optional<SizeProblem> too_few_ports(int attached, int ports, const char* key,
                                         const char* what) {
  if (attached <= ports) return std::nullopt;
  return SizeProblem{key, std::to_string(attached) + " ports needed on each " + what +
                              " but it has " + std::to_string(ports) +
                              " (raise 'ports', shrink the system or use topology leaf_spine)"};
}

Topology build_ring(const FabricConfig& c) {
  Topology t = start_topology(c, c.gpus);
  const int n = c.gpus;
  for (int g = 0; g < n && n > 1; ++g) {
    const int next = (g + 1) % n;
    if (n == 2 && g == 1) break;        // 0<->1 already built: one full-duplex link
    TopoEdge up = link_edge(c.link);    // g -> g+1
    TopoEdge down = link_edge(c.link);  // g+1 -> g, i.e. T3's g -> g-1 direction
    up.routable = c.bidirectional || n == 2;
    t.add_duplex(static_cast<uint32_t>(g), static_cast<uint32_t>(next), up, down);
  }
  return t;
}

Topology build_fully_connected(const FabricConfig& c) {
  Topology t = start_topology(c, c.gpus);
  t.edges.reserve(static_cast<size_t>(c.gpus) * static_cast<size_t>(c.gpus - 1));
  for (int i = 0; i < c.gpus; ++i) {
    for (int j = i + 1; j < c.gpus; ++j) {
      t.add_duplex(static_cast<uint32_t>(i), static_cast<uint32_t>(j), link_edge(c.link),
                   link_edge(c.link));
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

constexpr std::array<TopologyKind, 8> kTopologies{{
    {"ring", kKeyGpus, kKeyBidirectional, Symmetry::kRotation, &build_ring},
    {"fully_connected", kKeyGpus, 0, Symmetry::kRotation, &build_fully_connected},
    {"switch", kKeyGpus | kKeySwitch, 0, Symmetry::kRotation, &build_switch},
    // Rails make GPU g's peers depend on g mod gpus_per_node: not one rotation for all GPUs, but
    // node and local rotations apart (one IB switch per rail joins every node's NIC of it).
    {"two_level", kKeyNodes | kKeyGpusPerNode | kKeySwitch | kKeyNic | kKeyIbSwitch, kKeyGpus,
     Symmetry::kNodesByRails, &build_two_level},
    // Leaves hold groups of nodes: a node rotation moves nodes across leaves (more hops), so
    // only traffic whose routes look alike from every GPU folds.
    {"leaf_spine",
     kKeyNodes | kKeyGpusPerNode | kKeySwitch | kKeyNic | kKeyIbSwitch | kKeyNodesPerLeaf,
     kKeyGpus | kKeyOversubscription | kKeyPlacement, Symmetry::kNodesByRailsRouted,
     &build_leaf_spine},
    // Direct-connect fabrics whose GPUs see different neighbourhoods under g -> g + d (a torus
    // maps onto itself under row and column shifts apart, which GpuRotation expresses only for
    // multi-node fabrics; a cube-mesh's double links and a bridge's pairs do not rotate).
    {"torus_2d", kKeyGpus | kKeyRows, 0, Symmetry::kNone, &build_torus_2d},
    {"cube_mesh", kKeyGpus, 0, Symmetry::kNone, &build_cube_mesh},
    {"nvlink_pairs", kKeyGpus | kKeySwitch, 0, Symmetry::kNone, &build_nvlink_pairs},
}};

}  // namespace

std::vector<std::string> topology_names() {
  std::vector<std::string> out;
  for (const auto& k : kTopologies) out.emplace_back(k.name);
  return out;
}

const TopologyKind* find_topology(std::string_view name) {
  const auto it = std::find_if(kTopologies.begin(), kTopologies.end(),
                               [&](const TopologyKind& k) { return k.name == name; });
  return it == kTopologies.end() ? nullptr : &*it;
}

std::optional<SizeProblem> check_sizes(const FabricConfig& c) {
  const bool two_level = c.topology == "two_level";
  const bool multi_node = two_level || c.topology == "leaf_spine";
  if (!multi_node && c.gpus < 1) return SizeProblem{"gpus", "'gpus' must be at least 1"};
  if (auto p = check_direct_sizes(c)) return p;
  if (c.topology == "fully_connected" && c.gpus > kMaxFullyConnectedGpus) {
    return SizeProblem{"gpus", "a fully connected fabric of " + std::to_string(c.gpus) +
                                   " GPUs needs a link per GPU pair; at most " +
                                   std::to_string(kMaxFullyConnectedGpus) +
                                   " GPUs (use a switch or leaf_spine topology)"};
  }
  if (multi_node) {
    if (c.nodes < 1) return SizeProblem{"nodes", "'nodes' must be at least 1"};
    if (c.gpus_per_node < 1)
      return SizeProblem{"gpus_per_node", "'gpus_per_node' must be at least 1"};
    if (c.nodes * c.gpus_per_node > kMaxGpus) {
      return SizeProblem{"nodes",
                         "nodes x gpus_per_node = " + std::to_string(c.nodes * c.gpus_per_node) +
                             " GPUs; at most " + std::to_string(kMaxGpus) + " (use fewer nodes)"};
    }
    if (c.gpus != 0 && c.gpus != c.nodes * c.gpus_per_node) {
      return SizeProblem{
          "gpus", "gpus = " + std::to_string(c.gpus) + " but nodes x gpus_per_node = " +
                      std::to_string(c.nodes * c.gpus_per_node) + " (drop 'gpus' or fix it)"};
    }
    if (two_level) {
      if (auto p = too_few_ports(c.nodes, c.ib_switch->ports, "ib_switch", "IB switch (rail)"))
        return p;
    } else {
      if (c.nodes_per_leaf < 1)
        return SizeProblem{"nodes_per_leaf", "'nodes_per_leaf' must be at least 1"};
      if (auto p = check_leaf_spine(c)) return p;
    }
  }
  if (c.nvswitch) {
    const int attached = multi_node ? c.gpus_per_node : c.gpus;
    const char* what = c.topology == "nvlink_pairs" ? "PCIe switch" : "NVSwitch plane";
    if (auto p = too_few_ports(attached, c.nvswitch->ports, "switch", what)) return p;
  }
  return std::nullopt;
}

std::optional<common::GpuRotation> sublayer_rotation(const FabricConfig& cfg) {
  const TopologyKind* k = find_topology(cfg.topology);
  const int per_node = cfg.gpus_per_node;
  const int gpus = cfg.nodes > 0 ? cfg.nodes * per_node : cfg.gpus;
  if (k == nullptr || gpus < 1) return std::nullopt;
  if (k->symmetry == Symmetry::kRotation) return common::GpuRotation{1, gpus};
  const bool by_nodes =
      k->symmetry == Symmetry::kNodesByRails || k->symmetry == Symmetry::kNodesByRailsRouted;
  if (!by_nodes || per_node < 1) return std::nullopt;
  if (gpus <= per_node) return common::GpuRotation{1, gpus};  // one node: one switch plane
  return common::GpuRotation{gpus / per_node, per_node, true};
}

Topology build_topology(const FabricConfig& cfg) {
  const TopologyKind* k = find_topology(cfg.topology);
  if (k == nullptr) throw ModelError("fabric", "unknown topology '" + cfg.topology + "'");
  if (auto p = check_sizes(cfg)) throw ModelError("fabric", p->key + ": " + p->message);
  Topology t = k->build(cfg);
  t.fluid = cfg.fluid;
  return t;
}

}  // namespace t3sim::fabric
