#include "models/fabric/topologies/dragonfly.h"

#include <algorithm>
#include <string>

#include "models/fabric/build_parts.h"

namespace t3sim::fabric {
namespace {

std::string str(int v) { return std::to_string(v); }

}  // namespace

void declare_dragonfly(Params& p) {
  p.required("groups", ParamKind::kInt, "groups of routers (g); at least 2").range(2, kMaxGpus);
  p.required("routers_per_group", ParamKind::kInt, "routers in a group (a), linked all-to-all")
      .range(1, kMaxGpus);
  p.required("gpus_per_router", ParamKind::kInt, "GPUs (NICs) attached to each router (p)")
      .range(1, kMaxGpus);
  p.required("global_links_per_router", ParamKind::kInt,
             "links from each router to routers of other groups (h)")
      .range(1, kMaxGpus);
  p.required("local_link_bandwidth", ParamKind::kBandwidth,
             "router-to-router link inside a group, per direction")
      .at_least(1);
  p.required("local_link_latency", ParamKind::kDuration, "propagation of a local link");
  p.required("global_link_bandwidth", ParamKind::kBandwidth, "link between groups, per direction")
      .at_least(1);
  p.required("global_link_latency", ParamKind::kDuration, "propagation of a global link");
}

DragonflyShape dragonfly_shape(const FabricConfig& c) {
  DragonflyShape s;
  s.groups = static_cast<int>(c.own.integer("groups"));
  s.routers_per_group = static_cast<int>(c.own.integer("routers_per_group"));
  s.gpus_per_router = static_cast<int>(c.own.integer("gpus_per_router"));
  s.global_per_router = static_cast<int>(c.own.integer("global_links_per_router"));
  const int64_t routers = int64_t{s.groups} * s.routers_per_group;
  const int64_t gpus = routers * s.gpus_per_router;
  const int64_t slots = int64_t{s.routers_per_group} * s.global_per_router;  // per group
  s.routers = static_cast<int>(std::min<int64_t>(routers, kMaxGpus + 1));
  s.gpus = static_cast<int>(std::min<int64_t>(gpus, kMaxGpus + 1));
  s.local_links = s.routers * (s.routers_per_group - 1) / 2;
  s.global_links = static_cast<int>(std::min<int64_t>(routers * s.global_per_router / 2, kMaxGpus));
  s.links_per_group_pair = static_cast<int>(slots / (s.groups - 1));
  s.router_ports = s.gpus_per_router + s.routers_per_group - 1 + s.global_per_router;
  return s;
}

std::optional<SizeProblem> check_dragonfly(const FabricConfig& c) {
  const DragonflyShape s = dragonfly_shape(c);
  const int hosts = c.nodes * c.gpus_per_node;
  if (s.gpus != hosts) {
    return SizeProblem{"gpus_per_router",
                       "groups x routers_per_group x gpus_per_router = " +
                           (s.gpus > kMaxGpus ? "more than " + str(kMaxGpus) : str(s.gpus)) +
                           " GPUs but nodes x gpus_per_node = " + str(hosts) +
                           " (make them agree)"};
  }
  const int per_group = s.routers_per_group * s.gpus_per_router;
  if (per_group % c.gpus_per_node != 0) {
    return SizeProblem{"gpus_per_router",
                       "a group holds routers_per_group x gpus_per_router = " + str(per_group) +
                           " GPUs, not a whole number of nodes of gpus_per_node = " +
                           str(c.gpus_per_node) + " (a node's NICs attach to one group)"};
  }
  const int slots = s.routers_per_group * s.global_per_router;
  if (slots % (s.groups - 1) != 0) {
    return SizeProblem{"global_links_per_router",
                       "routers_per_group x global_links_per_router = " + str(slots) +
                           " global links per group do not split evenly over the other " +
                           str(s.groups - 1) +
                           " groups (choose groups - 1 dividing it; the largest dragonfly has "
                           "groups = " +
                           str(slots + 1) + ")"};
  }
  if (s.router_ports > c.ib_switch->ports) {
    return SizeProblem{"ib_switch",
                       str(s.router_ports) + " ports needed on each router (" +
                           str(s.gpus_per_router) + " GPUs, " + str(s.routers_per_group - 1) +
                           " local, " + str(s.global_per_router) +
                           " global) but ib_switch.ports is " + str(c.ib_switch->ports) +
                           " (raise ports or use fewer links per router)"};
  }
  return std::nullopt;
}

// Node ids: GPUs, NVSwitch planes, NICs, routers (router r of group i is "router<i x a + r>").
// Edges: as in two_level up to the NIC; router <-> router at min(link, router port rate), router
// latency on the egress edge.
Topology build_dragonfly(const FabricConfig& c) {
  const DragonflyShape s = dragonfly_shape(c);
  const IbSwitchSpec& ib = *c.ib_switch;
  Topology t = start_topology(c, c.nodes * c.gpus_per_node);
  t.gpus_per_node = c.gpus_per_node;
  t.spread_block = 1;  // D-mod-K over minimal paths, by destination GPU
  const HostNodes hosts = add_host_nodes(t, c);
  const auto first = static_cast<uint32_t>(t.nodes.size());
  const int a = s.routers_per_group;
  for (int r = 0; r < s.routers; ++r) t.add_node(NodeKind::kIbSwitch, "router" + str(r));
  const auto router = [&](int grp, int r) { return first + static_cast<uint32_t>(grp * a + r); };
  for (int g = 0; g < t.num_gpus; ++g) {
    wire_host(t, c, hosts, g, first + static_cast<uint32_t>(g / s.gpus_per_router));
  }
  const Bandwidth local_bw = min_bw(c.own.bandwidth("local_link_bandwidth"), ib.port_bandwidth);
  const Duration local_lat = c.own.duration("local_link_latency") + ib.latency;
  for (int grp = 0; grp < s.groups; ++grp) {
    for (int r1 = 0; r1 < a; ++r1) {
      for (int r2 = r1 + 1; r2 < a; ++r2) {
        t.add_duplex(router(grp, r1), router(grp, r2), make_edge(local_bw, local_lat, 0),
                     make_edge(local_bw, local_lat, 0));
      }
    }
  }
  TopoEdge global = make_edge(min_bw(c.own.bandwidth("global_link_bandwidth"), ib.port_bandwidth),
                              c.own.duration("global_link_latency") + ib.latency, 0);
  global.cost = kGlobalHopCost;
  const int h = s.global_per_router;
  const int others = s.groups - 1;
  for (int i = 0; i < s.groups; ++i) {
    for (int k = 0; k < a * h; ++k) {
      const int round = k / others;
      const int d = k % others + 1;  // offset of the group slot k reaches
      const int peer = (i + d) % s.groups;
      if (peer < i) continue;  // built from the lower group
      const int k_peer = round * others + (s.groups - d) - 1;
      t.add_duplex(router(i, k / h), router(peer, k_peer / h), global, global);
    }
  }
  return t;
}

}  // namespace t3sim::fabric
