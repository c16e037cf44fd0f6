// Dragonfly: node and link counts as the parameters say, every GPU pair routed minimally
// (local-global-local: at most one global link, exactly one between groups), global links spread
// evenly over group pairs (hence the bisection), bad parameters refused with the key to fix, and
// bytes delivered across groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fabric_test_util.h"
#include "models/fabric/topologies/dragonfly.h"

namespace t3sim::fabric {
namespace {

using testing::config_error;
using testing::Harness;

// groups x routers x gpus_per_router GPUs in nodes of `gpn`; 64-port routers unless `ports` says.
nlohmann::json dragonfly_cfg(int groups, int routers, int per_router, int global, int gpn,
                             int ports = 64) {
  nlohmann::json c = testing::two_level_cfg(groups * routers * per_router / gpn, gpn);
  c["topology"] = "dragonfly";
  c["groups"] = groups;
  c["routers_per_group"] = routers;
  c["gpus_per_router"] = per_router;
  c["global_links_per_router"] = global;
  c["local_link_bandwidth"] = "50 GB/s";
  c["local_link_latency"] = "10 ns";
  c["global_link_bandwidth"] = "25 GB/s";
  c["global_link_latency"] = "100 ns";
  c["switch"]["ports"] = std::max(gpn, 8);
  c["ib_switch"]["ports"] = ports;
  c["ib_switch"]["port_bandwidth"] = "50 GB/s";
  return c;
}

// Routers are "router<id>", id = group x routers_per_group + r.
struct Groups {
  int routers_per_group;
  // The group of a router, -1 for any other node.
  int of(const TopoNode& n) const {
    if (!n.name.starts_with("router")) return -1;
    return std::stoi(n.name.substr(6)) / routers_per_group;
  }
  bool global(const Topology& t, const TopoEdge& e) const {
    const int a = of(t.nodes[e.from]);
    const int b = of(t.nodes[e.to]);
    return a >= 0 && b >= 0 && a != b;
  }
  bool local(const Topology& t, const TopoEdge& e) const {
    const int a = of(t.nodes[e.from]);
    return a >= 0 && a == of(t.nodes[e.to]);
  }
};

int count_kind(const Topology& t, NodeKind k) {
  return static_cast<int>(std::count_if(t.nodes.begin(), t.nodes.end(),
                                        [&](const TopoNode& n) { return n.kind == k; }));
}

TEST(Dragonfly, NodeAndLinkCountsFollowTheParameters) {
  // g = 3, a = 2, p = 2, h = 1: 12 GPUs in 6 nodes of 2.
  Harness h(dragonfly_cfg(3, 2, 2, 1, 2));
  const Topology& t = h.fabric->topology();
  EXPECT_EQ(t.num_gpus, 12);
  EXPECT_EQ(count_kind(t, NodeKind::kNvSwitch), 6);
  EXPECT_EQ(count_kind(t, NodeKind::kNic), 12);
  EXPECT_EQ(count_kind(t, NodeKind::kIbSwitch), 6);  // routers
  // Duplex links: 12 GPU-plane, 12 GPU-NIC, 12 NIC-router, 3 local (one per group), 3 global.
  EXPECT_EQ(t.edges.size(), 2u * (12 + 12 + 12 + 3 + 3));
  const DragonflyShape s = dragonfly_shape(parse_fabric_config(ConfigNode::root(h.doc)));
  EXPECT_EQ(s.routers, 6);
  EXPECT_EQ(s.local_links, 3);
  EXPECT_EQ(s.global_links, 3);
  EXPECT_EQ(s.links_per_group_pair, 1);
  EXPECT_EQ(s.router_ports, 2 + 1 + 1);

  // g = 2, a = 4, h = 2: 8 global links per group, all to the other group.
  Harness two(dragonfly_cfg(2, 4, 2, 2, 8));
  const Topology& u = two.fabric->topology();
  EXPECT_EQ(u.num_gpus, 16);
  EXPECT_EQ(count_kind(u, NodeKind::kIbSwitch), 8);
  const Groups grp{4};
  const auto globals = std::count_if(u.edges.begin(), u.edges.end(),
                                     [&](const TopoEdge& e) { return grp.global(u, e); });
  const auto locals = std::count_if(u.edges.begin(), u.edges.end(),
                                    [&](const TopoEdge& e) { return grp.local(u, e); });
  EXPECT_EQ(globals, 2 * 8);
  EXPECT_EQ(locals, 2 * 2 * 6);  // 4 routers all-to-all: 6 links per group
}

TEST(Dragonfly, EachRouterHasItsGlobalLinksAndEachGroupPairTheSameCount) {
  const int g = 5;
  Harness h(dragonfly_cfg(g, 2, 1, 2, 1));  // a x h = 4 = g - 1: one link per pair
  const Topology& t = h.fabric->topology();
  const Groups grp{2};
  std::vector<int> per_router(t.nodes.size(), 0);
  std::vector<std::vector<int>> pair(g, std::vector<int>(g, 0));
  for (const TopoEdge& e : t.edges) {
    if (!grp.global(t, e)) continue;
    ++per_router[e.from];
    ++pair[grp.of(t.nodes[e.from])][grp.of(t.nodes[e.to])];
  }
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (grp.of(t.nodes[n]) < 0) continue;
    EXPECT_EQ(per_router[n], 2) << t.nodes[n].name;
  }
  for (int i = 0; i < g; ++i) {
    for (int j = 0; j < g; ++j) {
      EXPECT_EQ(pair[i][j], i == j ? 0 : 1) << i << " -> " << j;
    }
  }
  // Bisection: groups {0, 1} against {2, 3, 4} are joined by 2 x 3 links of 25 GB/s.
  int crossing = 0;
  for (const TopoEdge& e : t.edges) {
    if (grp.global(t, e) && grp.of(t.nodes[e.from]) < 2 && grp.of(t.nodes[e.to]) >= 2) {
      ++crossing;
      EXPECT_EQ(e.bandwidth, Bandwidth::gbps(25));
    }
  }
  EXPECT_EQ(crossing, 2 * 3);
}

// Minimal routing on a balanced dragonfly (a = 2p = 2h, g = a h + 1): every pair has a route, a
// route between groups crosses exactly one global link and at most two local ones, a route inside
// a group none. Shortest paths by hop count alone would take two global links for some pairs.
TEST(Dragonfly, MinimalRoutesCrossAtMostOneGlobalLink) {
  Harness h(dragonfly_cfg(9, 4, 2, 2, 8));
  const Topology& t = h.fabric->topology();
  ASSERT_EQ(t.num_gpus, 72);
  const Groups grp{4};
  const RouteTable& r = h.fabric->routes();
  for (int src = 0; src < t.num_gpus; ++src) {
    for (int dst = 0; dst < t.num_gpus; ++dst) {
      if (src == dst) continue;
      int global = 0;
      int local = 0;
      for (uint32_t e : r.path(src, dst)) {
        const TopoEdge& edge = t.edges[e];
        global += grp.global(t, edge) ? 1 : 0;
        local += grp.local(t, edge) ? 1 : 0;
      }
      const bool same_group = src / 8 == dst / 8;  // one node per group
      EXPECT_EQ(global, same_group ? 0 : 1) << src << " -> " << dst;
      EXPECT_LE(local, 2) << src << " -> " << dst;
      EXPECT_EQ(r.hops(src, dst), static_cast<int>(r.path(src, dst).size()));
    }
  }
}

TEST(Dragonfly, DeliversAcrossGroupsAndCountsEveryHop) {
  Harness h(dragonfly_cfg(3, 2, 2, 1, 2));
  const uint64_t bytes = 1 << 20;
  h.send(0, 11, bytes, 1);  // group 0 -> group 2
  h.run();
  ASSERT_EQ(h.rx.log.size(), 1u);
  EXPECT_EQ(h.fabric->total_link_bytes(), bytes * static_cast<uint64_t>(h.fabric->hops(0, 11)));
}

TEST(Dragonfly, BadParametersAreRefusedWithTheKeyToFix) {
  const std::string uneven = config_error(dragonfly_cfg(4, 2, 2, 1, 2));  // 2 links, 3 groups
  EXPECT_NE(uneven.find("/global_links_per_router"), std::string::npos) << uneven;
  EXPECT_NE(uneven.find("do not split evenly"), std::string::npos) << uneven;

  nlohmann::json count = dragonfly_cfg(3, 2, 2, 1, 2);
  count["nodes"] = 5;
  const std::string agree = config_error(count);
  EXPECT_NE(agree.find("= 12 GPUs but nodes x gpus_per_node = 10"), std::string::npos) << agree;

  const std::string radix = config_error(dragonfly_cfg(3, 2, 2, 1, 2, 3));
  EXPECT_NE(radix.find("4 ports needed on each router"), std::string::npos) << radix;

  nlohmann::json split = dragonfly_cfg(3, 2, 1, 1, 1);
  split["nodes"] = 2;
  split["gpus_per_node"] = 3;  // 6 GPUs, but a group holds 2
  const std::string node = config_error(split);
  EXPECT_NE(node.find("not a whole number of nodes"), std::string::npos) << node;

  nlohmann::json missing = dragonfly_cfg(3, 2, 2, 1, 2);
  missing.erase("groups");
  EXPECT_NE(config_error(missing).find("needs key 'groups'"), std::string::npos);

  nlohmann::json one = dragonfly_cfg(3, 2, 2, 1, 2);
  one["groups"] = 1;
  EXPECT_NE(config_error(one).find("out of range"), std::string::npos);

  nlohmann::json leaf = dragonfly_cfg(3, 2, 2, 1, 2);
  leaf["nodes_per_leaf"] = 2;
  EXPECT_NE(config_error(leaf).find("not used by topology 'dragonfly'"), std::string::npos);
  nlohmann::json ring = testing::ring_cfg(4);
  ring["groups"] = 3;
  EXPECT_NE(config_error(ring).find("not used by topology 'ring'"), std::string::npos);
}

}  // namespace
}  // namespace t3sim::fabric
