#include "models/fabric/builders.h"

#include <algorithm>
#include <array>

#include "models/fabric/topologies/basic.h"
#include "models/fabric/topologies/direct.h"
#include "models/fabric/topologies/dragonfly.h"
#include "models/fabric/topologies/leaf_spine.h"
#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

constexpr uint32_t kHost = kKeyNodes | kKeyGpusPerNode | kKeySwitch | kKeyNic | kKeyIbSwitch;

// One row per topology; nothing else lists them.
constexpr auto kTopologies = std::to_array<TopologyKind>({
    {"ring", "GPU g linked to g-1 and g+1 (the T3 ring)", kKeyGpus, 0, &declare_ring,
     Symmetry::kRotation, nullptr, &build_ring},
    {"fully_connected", "a link per GPU pair (xGMI)", kKeyGpus, 0, nullptr, Symmetry::kRotation,
     &check_fully_connected, &build_fully_connected},
    {"switch", "every GPU on one NVSwitch plane", kKeyGpus | kKeySwitch, 0, nullptr,
     Symmetry::kRotation, nullptr, &build_switch},
    // Rails make GPU g's peers depend on g mod gpus_per_node: not one rotation for all GPUs, but
    // node and local rotations apart (one IB switch per rail joins every node's NIC of it).
    {"two_level", "nodes (NVSwitch plane, a NIC per GPU) on one IB switch per rail", kHost,
     kKeyGpus, nullptr, Symmetry::kNodesByRails, &check_two_level, &build_two_level},
    // Leaves hold groups of nodes: a node rotation moves nodes across leaves (more hops), so
    // only traffic whose routes look alike from every GPU folds.
    {"leaf_spine", "nodes on rail-optimised leaves and spines (two-tier fat tree)", kHost,
     kKeyGpus | kKeyPlacement, &declare_leaf_spine, Symmetry::kNodesByRailsRouted,
     &check_leaf_spine, &build_leaf_spine},
    // Direct-connect fabrics whose GPUs see different neighbourhoods under g -> g + d (a torus
    // maps onto itself under row and column shifts apart, which GpuRotation expresses only for
    // multi-node fabrics; a cube-mesh's double links and a bridge's pairs do not rotate).
    {"torus_2d", "rows x columns GPUs, each linked to its four neighbours", kKeyGpus, 0,
     &declare_torus_2d, Symmetry::kNone, &check_torus_2d, &build_torus_2d},
    {"cube_mesh", "DGX-1V's hybrid cube-mesh of 8 GPUs", kKeyGpus, 0, nullptr, Symmetry::kNone,
     &check_cube_mesh, &build_cube_mesh},
    {"nvlink_pairs", "GPU pairs on NVLink bridges, all on one PCIe switch", kKeyGpus | kKeySwitch,
     0, nullptr, Symmetry::kNone, &check_nvlink_pairs, &build_nvlink_pairs},
    // Groups see each other through global links whose endpoints differ from group to group.
    {"dragonfly", "nodes on routers: all-to-all inside a group, global links between groups", kHost,
     kKeyGpus, &declare_dragonfly, Symmetry::kNone, &check_dragonfly, &build_dragonfly},
});

bool multi_node(const TopologyKind& k) { return (k.needs & kKeyNodes) != 0; }

std::optional<SizeProblem> check_shared_sizes(const TopologyKind& k, const FabricConfig& c) {
  if (!multi_node(k)) {
    if (c.gpus < 1) return SizeProblem{"gpus", "'gpus' must be at least 1"};
    return std::nullopt;
  }
  if (c.nodes < 1) return SizeProblem{"nodes", "'nodes' must be at least 1"};
  if (c.gpus_per_node < 1) {
    return SizeProblem{"gpus_per_node", "'gpus_per_node' must be at least 1"};
  }
  if (c.nodes * c.gpus_per_node > kMaxGpus) {
    return SizeProblem{"nodes",
                       "nodes x gpus_per_node = " + std::to_string(c.nodes * c.gpus_per_node) +
                           " GPUs; at most " + std::to_string(kMaxGpus) + " (use fewer nodes)"};
  }
  if (c.gpus != 0 && c.gpus != c.nodes * c.gpus_per_node) {
    return SizeProblem{"gpus",
                       "gpus = " + std::to_string(c.gpus) + " but nodes x gpus_per_node = " +
                           std::to_string(c.nodes * c.gpus_per_node) + " (drop 'gpus' or fix it)"};
  }
  return std::nullopt;
}

}  // namespace

std::span<const TopologyKind> topology_kinds() { return kTopologies; }

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

Params own_params(const TopologyKind& kind) {
  Params p;
  if (kind.declare != nullptr) kind.declare(p);
  return p;
}

int fabric_gpus(const FabricConfig& c) {
  const TopologyKind* k = find_topology(c.topology);
  return k != nullptr && multi_node(*k) ? c.nodes * c.gpus_per_node : c.gpus;
}

std::optional<SizeProblem> check_sizes(const FabricConfig& c) {
  const TopologyKind* k = find_topology(c.topology);
  if (k == nullptr) return SizeProblem{"topology", "unknown topology '" + c.topology + "'"};
  if (auto p = check_shared_sizes(*k, c)) return p;
  if (k->check != nullptr) {
    if (auto p = k->check(c)) return p;
  }
  if (c.nvswitch) {
    const int attached = multi_node(*k) ? c.gpus_per_node : c.gpus;
    if (auto p = too_few_ports(attached, c.nvswitch->ports, "switch", "NVSwitch plane")) return p;
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
  FabricConfig full = cfg;  // a config built by hand may leave the row's defaults out
  full.own.add_defaults(own_params(*k));
  if (auto p = check_sizes(full)) throw ModelError("fabric", p->key + ": " + p->message);
  Topology t = k->build(full);
  t.fluid = cfg.fluid;
  return t;
}

}  // namespace t3sim::fabric
