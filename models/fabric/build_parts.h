// Pieces shared by the topology builders (builders.cpp, leaf_spine.cpp): a topology holding its
// GPUs, edge values, and the hosts of a multi-node machine. A host is a node: an NVSwitch plane
// (none when a node has one GPU) and a NIC per GPU; GPU g is wired to its plane and its NIC, and
// its NIC's cable goes to the rail switch a builder chooses. Node ids: GPUs first, then the
// planes, then the NICs. Contract: add_host_nodes follows start_topology and precedes any switch
// of the network; GPU <-> NIC and NIC <-> switch run at min(NIC effective rate, switch port rate),
// and a switch's latency is paid on its egress edges.
#pragma once

#include <cstdint>
#include <vector>

#include "models/fabric/specs.h"
#include "models/fabric/topology.h"

namespace t3sim::fabric {

// A topology of c's kind, packet size and local latency holding GPU nodes 0..gpus-1.
Topology start_topology(const FabricConfig& c, int gpus);
TopoEdge make_edge(Bandwidth bw, Duration latency, uint32_t credits);
inline Bandwidth min_bw(Bandwidth a, Bandwidth b) { return a < b ? a : b; }

// GPU <-> switch-plane port: serialised at min(GPU link, switch port) in each direction.
void attach_to_switch(Topology& t, uint32_t gpu, uint32_t sw, const LinkSpec& l,
                      const SwitchSpec& s);

struct HostNodes {
  std::vector<uint32_t> nvswitch;  // per node (unused when a node has one GPU)
  uint32_t first_nic = 0;          // GPU g's NIC is first_nic + g
};
HostNodes add_host_nodes(Topology& t, const FabricConfig& c);
// GPU g to its node's plane and its NIC, and the NIC to rail_switch.
void wire_host(Topology& t, const FabricConfig& c, const HostNodes& h, int g, uint32_t rail_switch);

}  // namespace t3sim::fabric
