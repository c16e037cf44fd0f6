// Dragonfly (Kim et al., ISCA 2008): `groups` groups of `routers_per_group` routers; the routers
// of a group are linked all-to-all (local links), each router has `global_links_per_router` global
// links to routers of other groups, and `gpus_per_router` GPUs' NICs. Hosts are as in two_level:
// nodes x gpus_per_node GPUs, an NVSwitch plane per node, a NIC per GPU; GPU g's NIC attaches to
// router g / gpus_per_router (group-major), so a node's GPUs lie in one group. Global links:
// each pair of groups is joined by the same number m = routers_per_group x global_links_per_router
// / (groups - 1) of links; slot k = r x h + j of group i (router r, its j-th global link) reaches
// group i + (k mod (groups - 1)) + 1. Routers are ib_switch objects (latency on egress, radix).
// Modelled: minimal routing, local-global-local as on a dragonfly: a global link costs
// kGlobalHopCost hops to routing, so no route crosses two global links; ties between minimal paths
// are spread by destination GPU (D-mod-K). Not modelled: adaptive (UGAL) or Valiant routing,
// virtual channels, congestion feedback. Contract: dragonfly_shape() and check_dragonfly() agree
// with what build_dragonfly() builds.
#pragma once

#include <optional>

#include "models/fabric/builders.h"
#include "models/fabric/specs.h"
#include "models/fabric/topology.h"
#include "sim/params.h"

namespace t3sim::fabric {

// Routing cost of a global link: with at most 6 unit edges beside the global one on a minimal
// route (GPU -> NIC -> router -> router, twice), 3 makes any two-global route (at least 2 x 3 + 4)
// cost more than every minimal one (at most 3 + 6).
constexpr uint8_t kGlobalHopCost = 3;

struct DragonflyShape {
  int groups = 0;
  int routers_per_group = 0;
  int gpus_per_router = 0;
  int global_per_router = 0;
  int routers = 0;               // groups x routers_per_group
  int gpus = 0;                  // routers x gpus_per_router
  int local_links = 0;           // full-duplex links inside all groups
  int global_links = 0;          // full-duplex links between groups
  int links_per_group_pair = 0;  // m
  int router_ports = 0;          // GPUs + local + global links of one router
};

void declare_dragonfly(Params& p);
DragonflyShape dragonfly_shape(const FabricConfig& c);
std::optional<SizeProblem> check_dragonfly(const FabricConfig& c);
Topology build_dragonfly(const FabricConfig& c);

}  // namespace t3sim::fabric
