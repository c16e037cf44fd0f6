// The first topologies: ring, fully_connected, switch and two_level. ring: GPU g has full-duplex
// links to g+1 and g-1 (one link when n == 2); its own key "bidirectional" = false keeps both wires
// but routes only g -> g-1, T3's ring direction (t3-paper.md §3.1), so g -> g+1 takes n-1 hops.
// fully_connected: a link per GPU pair (xGMI). switch: NVSwitch star, each GPU attached with its
// aggregate NVLink bandwidth; all pairs 2 hops. two_level: nodes x gpus_per_node, an NVSwitch
// plane per node, a NIC per GPU, rail-optimised (local GPU i of every node -> IB switch i).
// Contract: builders describe wires and never route; sizes pass their checks first.
#pragma once

#include <optional>

#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "models/fabric/topology.h"
#include "sim/params.h"

namespace t3sim::fabric {

void declare_ring(Params& p);
Topology build_ring(const FabricConfig& c);

std::optional<SizeProblem> check_fully_connected(const FabricConfig& c);
Topology build_fully_connected(const FabricConfig& c);

Topology build_switch(const FabricConfig& c);

std::optional<SizeProblem> check_two_level(const FabricConfig& c);
Topology build_two_level(const FabricConfig& c);

// `attached` ports on each `what` against ports (a hint naming leaf_spine when exceeded).
std::optional<SizeProblem> too_few_ports(int attached, int ports, const char* key,
                                         const char* what);

}  // namespace t3sim::fabric
