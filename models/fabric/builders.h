// Topology builders: a table of named topologies (config keys each needs and allows) and functions
// turning a FabricConfig into a Topology graph. ring: GPU g has full-duplex links to g+1 and g-1
// (one link when n == 2); bidirectional=false keeps both wires but routes only g -> g-1, T3's ring
// direction (t3-paper.md §3.1), so g -> g+1 takes n-1 hops. fully_connected: a link per GPU pair
// (xGMI). switch: NVSwitch star, each GPU attached with its aggregate NVLink bandwidth; all pairs 2
// hops. two_level: nodes x gpus_per_node, an NVSwitch plane per node, a NIC per GPU, rail-optimised
// (local GPU i of every node -> IB switch i). leaf_spine: leaf_spine.h. torus_2d, cube_mesh,
// nvlink_pairs: direct_builders.h. Contract: builders describe wires and never route.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/common/mirror.h"
#include "models/fabric/specs.h"
#include "models/fabric/topology.h"

namespace t3sim::fabric {

// Bit flags naming the optional top-level keys of a fabric config.
enum ConfigKey : uint32_t {
  kKeyGpus = 1u << 0,
  kKeyNodes = 1u << 1,
  kKeyGpusPerNode = 1u << 2,
  kKeyBidirectional = 1u << 3,
  kKeySwitch = 1u << 4,
  kKeyNic = 1u << 5,
  kKeyIbSwitch = 1u << 6,
  kKeyNodesPerLeaf = 1u << 7,
  kKeyOversubscription = 1u << 8,
  kKeyPlacement = 1u << 9,
  kKeyRows = 1u << 10,
};

// kNodesByRailsRouted: node and local rotations map GPUs onto GPUs but not every link onto a link
// (leaf-spine: rotating nodes moves them across leaves); a folded run first checks that the
// routes its schedule uses look the same from every GPU (Fabric::fold_problem).
enum class Symmetry : uint8_t { kNone, kRotation, kNodesByRails, kNodesByRailsRouted };

struct TopologyKind {
  std::string_view name;
  uint32_t needs;   // keys that must be present
  uint32_t allows;  // keys that may be present (needs is implied)
  // Every GPU sees the same fabric up to a rotation of GPU ids (kRotation: g -> g + d mod N maps
  // links onto links; kNodesByRails: rotating node and local index apart does, as on a
  // rail-optimised fabric with one switch per rail): the condition for folded runs
  // (models/common/mirror.h).
  Symmetry symmetry;
  Topology (*build)(const FabricConfig&);
};

std::vector<std::string> topology_names();
// nullptr if unknown.
const TopologyKind* find_topology(std::string_view name);
struct SizeProblem {
  std::string key;  // top-level key to blame
  std::string message;
};
// First inconsistency of sizes and port counts (gpus vs nodes x gpus_per_node, ports), if any.
std::optional<SizeProblem> check_sizes(const FabricConfig& cfg);
// The rotations a sublayer's folded run relies on (models/common/mirror.h), if the topology has
// them: one rotation of all GPU ids (Symmetry::kRotation), or whole-node rotations of a two-level
// fabric with several nodes (a flat ring across nodes maps onto itself only under those; node 0's
// GPUs are simulated), and of a leaf-spine fabric, where every source of traffic (collectives, the
// fused reduce-scatter) has its routes checked by Fabric::fold_problem before the run folds.
std::optional<common::GpuRotation> sublayer_rotation(const FabricConfig& cfg);
// Builds the graph of cfg.topology. ModelError on an unknown name or bad sizes; configs never get
// here with those: parse_fabric_config rejects them first as ConfigErrors naming the key.
Topology build_topology(const FabricConfig& cfg);

}  // namespace t3sim::fabric
