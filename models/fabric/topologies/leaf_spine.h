// Leaf-spine (two-tier fat tree) with rail-optimised leaves: nodes x gpus_per_node GPUs, an
// NVSwitch plane per node and a NIC per GPU as in two_level. Nodes form groups of nodes_per_leaf;
// each (group, rail) has its own leaf switch, which the NICs of that rail in that group attach to.
// A leaf has ceil(nodes_per_leaf / oversubscription) uplinks; all leaves' uplinks spread over
// ceil(uplinks in all / ports) spines (uplink u of leaf l goes to spine (l x uplinks + u) mod
// spines, so equal counts of parallel links). Routing is up/down and ECMP-free: at an IB switch,
// ties between equally short next hops go to candidate (destination position mod count), D-mod-K.
// A node's position is its index (placement "blocked") or, with "striped", group n mod groups and
// slot n / groups: position (n mod groups) x nodes_per_leaf + n / groups.
// Own keys: nodes_per_leaf, oversubscription; the shared key placement.
// Contract: leaf_spine_shape() and check_leaf_spine() agree with what build_leaf_spine() builds.
#pragma once

#include <optional>

#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "models/fabric/topology.h"
#include "sim/params.h"

namespace t3sim::fabric {

struct LeafSpineShape {
  int groups = 0;                 // ceil(nodes / nodes_per_leaf); one leaf per rail per group
  int leaves = 0;                 // groups x gpus_per_node
  int uplinks = 0;                // per leaf (0 with one group: no spines)
  int spines = 0;                 // ceil(leaves x uplinks / ports)
  int spine_ports = 0;            // most links on one spine
  double oversubscription = 1.0;  // realised: nodes_per_leaf / uplinks
};

void declare_leaf_spine(Params& p);
LeafSpineShape leaf_spine_shape(const FabricConfig& c);
// Port budgets of leaves and spines against ib_switch.ports, if exceeded.
std::optional<SizeProblem> check_leaf_spine(const FabricConfig& c);
Topology build_leaf_spine(const FabricConfig& c);

}  // namespace t3sim::fabric
