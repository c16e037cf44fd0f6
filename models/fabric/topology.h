// The fabric as a plain directed graph, before any simulation object exists: nodes (GPUs, NVSwitch
// planes, NICs, InfiniBand switches, a PCIe switch) and one edge per link direction, each with its
// own bandwidth, latency and credits. Builders (builders.h) produce it from a config; routing
// (routing.h) and the Fabric component consume it. A switch's switching latency is folded into its
// egress edges and its port rate into the bandwidth of the edges at that port (min of the two
// ends). Invariants: GPU g is node g (GPUs come first, ids 0..num_gpus-1); node and edge ids are
// dense and assigned in build order, which fixes routing tie-breaks and hence determinism.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/fabric/specs.h"
#include "sim/units.h"

namespace t3sim::fabric {

// kPcieSwitch: a host's PCIe fabric (nvlink_pairs); it forwards but reduces nothing.
enum class NodeKind : uint8_t { kGpu, kNvSwitch, kNic, kIbSwitch, kPcieSwitch };

const char* to_string(NodeKind k);

struct TopoNode {
  NodeKind kind = NodeKind::kGpu;
  std::string name;  // component name, unique within the fabric ("gpu3", "nvswitch0", "nic5")
  Bandwidth reduce_bandwidth{};  // NVSwitch: in-switch reduction per port (zero: none)
};

// One direction of a link.
struct TopoEdge {
  uint32_t from = 0;
  uint32_t to = 0;
  Bandwidth bandwidth;
  Duration latency;
  uint32_t credits = 0;  // 0 = unlimited
  bool routable = true;  // false: the wire exists but routing never uses it (unidirectional ring)
  // What one traversal costs routing (routes minimise the sum; 1 = a hop). A dragonfly's global
  // links cost more, so that its minimal routes cross at most one (topologies/dragonfly.h).
  uint8_t cost = 1;
};

struct Topology {
  std::string kind;  // builder name, e.g. "ring"
  int num_gpus = 0;
  int gpus_per_node = 0;  // GPUs per node of a multi-node fabric; 0 = all GPUs in one node
  // > 0: at IB switches, routing breaks ties between equally short next hops by the destination's
  // node position (dst / spread_block, through `position` when set) mod count instead of the
  // lowest id (D-mod-K up/down routing, leaf_spine).
  int spread_block = 0;
  std::vector<uint32_t> position;  // per node: its physical position (empty: the node index)
  uint32_t spread_key(int dst) const {
    const auto node = static_cast<uint32_t>(dst / spread_block);
    return position.empty() ? node : position[node];
  }
  // How the Fabric moves bytes over this graph: packets through links (default) or fluid flows
  // sharing edges by max-min fairness (fluid.h).
  bool fluid = false;
  Bytes packet_size;
  Duration local_latency;
  std::vector<TopoNode> nodes;
  std::vector<TopoEdge> edges;

  uint32_t add_node(NodeKind kind, std::string name);
  uint32_t add_edge(const TopoEdge& e);
  // Both directions of a full-duplex link: a->b uses `ab`, b->a uses `ba` (from/to are filled in).
  void add_duplex(uint32_t a, uint32_t b, TopoEdge ab, TopoEdge ba);
};

}  // namespace t3sim::fabric
