// Static shortest-path routing over each topology: hop counts, the lowest-id tie-break, the
// unidirectional ring, the NVSwitch star, xGMI full mesh, and the rail-optimised two-level system.
#include <gtest/gtest.h>

#include "fabric_test_util.h"
#include "models/fabric/builders.h"
#include "models/fabric/routing.h"
#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

using testing::Harness;

// Names of the nodes a path visits after the source.
std::vector<std::string> visits(const Fabric& f, int src, int dst) {
  std::vector<std::string> out;
  for (uint32_t e : f.routes().path(src, dst)) {
    out.push_back(f.topology().nodes[f.topology().edges[e].to].name);
  }
  return out;
}

// The graph of `topology` over `gpus` GPUs with 75 GB/s, 500 ns links.
Topology graph(const std::string& topology, int gpus) {
  FabricConfig c;
  c.topology = topology;
  c.gpus = gpus;
  c.link = LinkSpec{Bandwidth::gbps(75), Duration::ns(500), Bytes::kib(64), 0};
  return build_topology(c);
}

TEST(FabricRouting, RingNeighboursAreOneHopAndOppositeIsFour) {
  Harness h(testing::ring_cfg(8));
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(h.fabric->hops(g, (g + 7) % 8), 1) << g;  // g -> g-1
    EXPECT_EQ(h.fabric->hops(g, (g + 1) % 8), 1) << g;
    EXPECT_EQ(h.fabric->hops(g, (g + 4) % 8), 4) << g;
    EXPECT_EQ(h.fabric->hops(g, (g + 3) % 8), 3) << g;
    EXPECT_EQ(h.fabric->hops(g, (g + 5) % 8), 3) << g;
  }
  EXPECT_EQ(h.fabric->num_links(), 16u);
  EXPECT_EQ(h.fabric->path_latency(0, 4), Duration::ns(2000));
}

TEST(FabricRouting, TiesGoToTheLowestNextHop) {
  Harness h(testing::ring_cfg(8));
  EXPECT_EQ(visits(*h.fabric, 0, 4), (std::vector<std::string>{"gpu1", "gpu2", "gpu3", "gpu4"}));
  EXPECT_EQ(visits(*h.fabric, 5, 1), (std::vector<std::string>{"gpu4", "gpu3", "gpu2", "gpu1"}));
}

TEST(FabricRouting, UnidirectionalRingRoutesOnlyDownwards) {
  nlohmann::json cfg = testing::ring_cfg(8);
  cfg["bidirectional"] = false;
  Harness h(cfg);
  EXPECT_EQ(h.fabric->hops(1, 0), 1);
  EXPECT_EQ(h.fabric->hops(0, 7), 1);
  EXPECT_EQ(h.fabric->hops(0, 1), 7);
  EXPECT_EQ(h.fabric->num_links(), 16u);  // both wires exist; g -> g+1 is never used
  h.send(0, 1, 65536, 1);
  h.run();
  EXPECT_EQ(h.fabric->link(*h.fabric->find_link("gpu0", "gpu1")).bytes_carried(), 0u);
  EXPECT_EQ(h.fabric->total_link_bytes(), 7u * 65536);
}

TEST(FabricRouting, RingOfTwoHasOneFullDuplexLink) {
  Harness h(testing::ring_cfg(2));
  EXPECT_EQ(h.fabric->num_links(), 2u);
  EXPECT_EQ(h.fabric->hops(0, 1), 1);
  EXPECT_EQ(h.fabric->hops(1, 0), 1);
}

TEST(FabricRouting, SwitchStarIsTwoHopsForEveryPair) {
  nlohmann::json cfg = testing::switch_cfg(8, testing::link_cfg("300 GB/s"));
  cfg["switch"]["port_bandwidth"] = "250 GB/s";
  Harness h(cfg);
  for (int s = 0; s < 8; ++s) {
    for (int d = 0; d < 8; ++d) {
      if (s == d) continue;
      EXPECT_EQ(h.fabric->hops(s, d), 2);
      EXPECT_EQ(visits(*h.fabric, s, d).front(), "nvswitch");
      EXPECT_EQ(h.fabric->path_bandwidth(s, d), Bandwidth::gbps(250));
      EXPECT_EQ(h.fabric->path_latency(s, d), Duration::ns(1100));
    }
  }
}

TEST(FabricRouting, FullyConnectedIsOneHop) {
  nlohmann::json cfg = testing::ring_cfg(8);
  cfg["topology"] = "fully_connected";
  Harness h(cfg);
  EXPECT_EQ(h.fabric->num_links(), 56u);  // 7 links per GPU, two directions each
  for (int s = 0; s < 8; ++s) {
    for (int d = 0; d < 8; ++d) EXPECT_EQ(h.fabric->hops(s, d), s == d ? 0 : 1);
  }
}

TEST(FabricRouting, TwoLevelCrossesNicsAndRails) {
  Harness h(testing::two_level_cfg(2, 4));
  EXPECT_EQ(h.fabric->num_gpus(), 8);
  EXPECT_EQ(visits(*h.fabric, 0, 1), (std::vector<std::string>{"nvswitch0", "gpu1"}));
  EXPECT_EQ(visits(*h.fabric, 0, 4),
            (std::vector<std::string>{"nic0", "ib_switch0", "nic4", "gpu4"}));
  // Other rail: change rails inside the source node first (PXN-style), then cross rail 1.
  EXPECT_EQ(visits(*h.fabric, 0, 5),
            (std::vector<std::string>{"nvswitch0", "gpu1", "nic1", "ib_switch1", "nic5", "gpu5"}));
  h.send(0, 4, 1 << 20, 1);
  h.run();
  const auto& topo = h.fabric->topology();
  for (size_t n = 0; n < topo.nodes.size(); ++n) {
    const bool on_path = topo.nodes[n].name == "nic0" || topo.nodes[n].name == "nic4" ||
                         topo.nodes[n].name == "ib_switch0";
    EXPECT_EQ(h.fabric->node(n).bytes_forwarded.value(), on_path ? (1u << 20) : 0u)
        << topo.nodes[n].name;
  }
}

TEST(FabricRouting, RoutesAreIdenticalAcrossBuilds) {
  const Topology t = graph("ring", 16);
  const RouteTable a(t);
  const RouteTable b(t);
  for (int s = 0; s < 16; ++s) {
    for (int d = 0; d < 16; ++d) {
      const auto pa = a.path(s, d);
      const auto pb = b.path(s, d);
      EXPECT_TRUE(std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()));
    }
  }
}

TEST(FabricRouting, DistancesAreComputedOnlyForDestinationsRoutedTo) {
  const Topology t = graph("ring", 64);
  const RouteTable r(t);
  EXPECT_EQ(r.cached_destinations(), 0u);  // construction checks reachability, stores nothing
  EXPECT_EQ(r.path(5, 1).size(), 4u);
  EXPECT_EQ(r.latency(9, 1), Duration::ns(500 * 8));
  EXPECT_EQ(r.cached_destinations(), 1u);  // both walked towards gpu1
  EXPECT_EQ(r.cached_sources(), 0u);
  for (int d = 0; d < 64; ++d) EXPECT_EQ(r.hops(0, d), std::min(d, 64 - d)) << d;
  EXPECT_EQ(r.cached_sources(), 1u);  // every GPU's hops from gpu0: one search
  EXPECT_EQ(r.cached_destinations(), 1u);
  EXPECT_EQ(r.hops(40, 1), 25);
  EXPECT_EQ(r.cached_sources(), 2u);
}

TEST(FabricRouting, PathsDoNotDependOnTheQueryOrder) {
  const Topology t = graph("ring", 24);
  const RouteTable forward(t);
  const RouteTable backward(t);
  std::vector<std::vector<uint32_t>> a;
  std::vector<std::vector<uint32_t>> b(24 * 24);
  for (int s = 0; s < 24; ++s) {
    for (int d = 0; d < 24; ++d) a.push_back(forward.path(s, d));
  }
  for (int i = 24 * 24 - 1; i >= 0; --i) b[static_cast<size_t>(i)] = backward.path(i / 24, i % 24);
  EXPECT_EQ(a, b);
  for (int s = 0; s < 24; ++s) {
    for (int d = 0; d < 24; ++d) {
      EXPECT_EQ(forward.hops(s, d), static_cast<int>(a[static_cast<size_t>(s * 24 + d)].size()));
    }
  }
}

TEST(FabricRouting, AnUnreachablePairIsNamed) {
  Topology t = graph("ring", 4);
  for (TopoEdge& e : t.edges)
    e.routable = !(e.from == 2 && e.to == 3) && !(e.from == 2 && e.to == 1);
  try {
    const RouteTable r(t);
    FAIL() << "gpu2 has no routable out-edge";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("no route from gpu2 to gpu0"), std::string::npos)
        << e.what();
  }
}

TEST(FabricRouting, SingleGpuFabricHasNoLinks) {
  Harness h(testing::ring_cfg(1));
  EXPECT_EQ(h.fabric->num_links(), 0u);
  h.send(0, 0, 100, 1);
  h.run();
  EXPECT_EQ(h.rx.log.size(), 1u);
}

// Large regular fabrics build with compact routes: hop distances per destination routed to, filled
// on first use, none at all for the full mesh; paths are walked on demand and flows get their
// slots on first use.
TEST(FabricRoutingScale, RingOf1024GpusBuildsAndRoutes) {
  testing::Harness h(testing::ring_cfg(1024));
  EXPECT_EQ(h.fabric->num_links(), 2048u);
  EXPECT_EQ(h.fabric->hops(0, 512), 512);  // opposite side: the tie goes to gpu1
  EXPECT_EQ(h.fabric->hops(0, 1023), 1);
  EXPECT_EQ(h.fabric->hops(700, 100), 424);  // 700 -> 1023 -> 0 -> 100 the short way
  const auto p = h.fabric->routes().path(0, 512);
  EXPECT_EQ(h.fabric->topology().edges[p.front()].to, 1u);
  EXPECT_EQ(h.fabric->path_latency(0, 512), Duration::ns(500 * 512));
  h.send(3, 515, 1 << 20, 7);  // 512 hops
  h.run();
  ASSERT_EQ(h.rx.log.size(), 1u);
  EXPECT_EQ(h.fabric->total_link_bytes(), uint64_t{512} << 20);
}

TEST(FabricRoutingScale, UnidirectionalRingOf1024GpusGoesTheLongWay) {
  nlohmann::json cfg = testing::ring_cfg(1024);
  cfg["bidirectional"] = false;
  testing::Harness h(cfg);
  EXPECT_EQ(h.fabric->hops(0, 1023), 1);
  EXPECT_EQ(h.fabric->hops(0, 1), 1023);
}

TEST(FabricRoutingScale, FullMeshPathIsTheDirectEdge) {
  const int n = 37;
  const Topology t = graph("fully_connected", n);
  const RouteTable r(t);
  for (int s = 0; s < n; ++s) {
    for (int d = 0; d < n; ++d) {
      const auto p = r.path(s, d);
      ASSERT_EQ(p.size(), s == d ? 0u : 1u) << s << "->" << d;
      if (s == d) continue;
      EXPECT_EQ(t.edges[p[0]].from, static_cast<uint32_t>(s));
      EXPECT_EQ(t.edges[p[0]].to, static_cast<uint32_t>(d));
    }
  }
}

TEST(FabricRoutingScale, UnwiredFabricRoutesButCannotSend) {
  testing::Harness wired(testing::ring_cfg(64));
  Simulator sim;
  const ConfigDoc doc =
      config_from_json(testing::ring_cfg(64), "<test>", {t3sim::testing::fixtures_dir()});
  auto f = make_fabric(sim, &sim.root(), ConfigNode::root(doc), "fabric", 0, false);
  EXPECT_EQ(f->num_links(), 0u);
  EXPECT_EQ(f->hops(5, 40), wired.fabric->hops(5, 40));
  EXPECT_EQ(f->path_latency(5, 40), wired.fabric->path_latency(5, 40));
  EXPECT_THROW(f->send(0, 1, Bytes(64), nullptr, 0), ModelError);
}

}  // namespace
}  // namespace t3sim::fabric
