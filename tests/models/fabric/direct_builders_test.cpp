// Direct-connect builders (direct_builders.h): torus_2d, cube_mesh and nvlink_pairs wire the edges
// their layout says (count, endpoints, bandwidths, no duplicate links in a dimension of 2), route
// every GPU pair, deliver messages, declare no rotation symmetry, and refuse bad sizes with a
// ConfigError naming the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "fabric_test_util.h"
#include "models/fabric/builders.h"
#include "models/fabric/topologies/direct.h"
#include "sim/errors.h"

namespace t3sim::fabric {
namespace {

using testing::config_error;
using testing::Harness;

// Directed GPU-to-GPU edges: (from, to) -> bandwidth; fails on a duplicate.
std::map<std::pair<uint32_t, uint32_t>, Bandwidth> gpu_edges(const Topology& t) {
  std::map<std::pair<uint32_t, uint32_t>, Bandwidth> out;
  for (const TopoEdge& e : t.edges) {
    const auto n = static_cast<uint32_t>(t.num_gpus);
    if (e.from >= n || e.to >= n) continue;
    EXPECT_TRUE(out.emplace(std::make_pair(e.from, e.to), e.bandwidth).second)
        << "duplicate edge " << e.from << "->" << e.to;
  }
  return out;
}

std::set<uint32_t> neighbours(const Topology& t, uint32_t g) {
  std::set<uint32_t> out;
  for (const TopoEdge& e : t.edges) {
    if (e.from == g) out.insert(e.to);
  }
  return out;
}

// Every pair routes, and a message between the farthest pair arrives (finish() checks bytes).
void expect_all_pairs_route(Harness& h, int max_hops) {
  const int n = h.fabric->num_gpus();
  int far_src = 0, far_dst = 0, far = 0;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const int hops = h.fabric->hops(a, b);
      EXPECT_GE(hops, 1);
      EXPECT_LE(hops, max_hops) << a << "->" << b;
      EXPECT_EQ(h.fabric->path_links(a, b).size(), static_cast<size_t>(hops));
      if (hops > far) far = hops, far_src = a, far_dst = b;
    }
  }
  h.send(far_src, far_dst, 1 << 20, 7);
  h.run();
  ASSERT_EQ(h.rx.log.size(), 1u);
  EXPECT_EQ(h.rx.log[0].tag, 7u);
}

TEST(Torus2d, FourByFourLinksEachGpuToItsFourWrappedNeighbours) {
  Harness h(testing::torus_cfg(16, 4));
  const Topology& t = h.fabric->topology();
  EXPECT_EQ(t.kind, "torus_2d");
  EXPECT_EQ(t.nodes.size(), 16u);
  EXPECT_EQ(t.edges.size(), 64u);  // 4 rows x 4 + 4 columns x 4 links, two directions each
  const auto edges = gpu_edges(t);
  EXPECT_EQ(edges.size(), 64u);
  for (const auto& [ends, bw] : edges) EXPECT_EQ(bw, Bandwidth::gbps(64));
  for (uint32_t g = 0; g < 16; ++g) {
    const uint32_t r = g / 4, c = g % 4;
    const std::set<uint32_t> want{r * 4 + (c + 1) % 4, r * 4 + (c + 3) % 4, ((r + 1) % 4) * 4 + c,
                                  ((r + 3) % 4) * 4 + c};
    EXPECT_EQ(neighbours(t, g), want) << "gpu " << g;
  }
  EXPECT_EQ(h.fabric->hops(0, 10), 4);  // (0,0) -> (2,2): two hops each way
  EXPECT_EQ(h.fabric->hops(0, 3), 1);   // wrap-around
  expect_all_pairs_route(h, 4);
}

TEST(Torus2d, ADimensionOfTwoGetsOneLinkNotTwo) {
  Harness h(testing::torus_cfg(6, 2));  // 2 rows x 3 columns
  const Topology& t = h.fabric->topology();
  EXPECT_EQ(t.edges.size(), 2u * (2 * 3 + 3 * 1));  // rows: 3-rings; columns: one link each
  EXPECT_EQ(gpu_edges(t).size(), t.edges.size());
  EXPECT_EQ(neighbours(t, 0), (std::set<uint32_t>{1, 2, 3}));
  expect_all_pairs_route(h, 2);

  Harness square(testing::torus_cfg(4, 2));  // 2 x 2: a 4-cycle
  EXPECT_EQ(square.fabric->topology().edges.size(), 8u);
  EXPECT_EQ(neighbours(square.fabric->topology(), 0), (std::set<uint32_t>{1, 2}));
  expect_all_pairs_route(square, 2);
}

TEST(Torus2d, BadRowsAreRefusedNamingTheKey) {
  for (const auto& [gpus, rows] : {std::pair{16, 1}, {16, 3}, {16, 16}, {16, 0}}) {
    const std::string msg = config_error(testing::torus_cfg(gpus, rows));
    EXPECT_NE(msg.find("/rows"), std::string::npos) << gpus << " " << rows << ": " << msg;
  }
  nlohmann::json no_rows = testing::torus_cfg(16, 4);
  no_rows.erase("rows");
  EXPECT_NE(config_error(no_rows).find("needs key 'rows'"), std::string::npos);
  nlohmann::json ring = testing::ring_cfg(4);
  ring["rows"] = 2;
  EXPECT_NE(config_error(ring).find("/rows"), std::string::npos);  // other topologies refuse it
}

TEST(CubeMesh, Dgx1VoltaLayoutWithDoubledPairs) {
  Harness h(testing::cube_mesh_cfg());
  const Topology& t = h.fabric->topology();
  EXPECT_EQ(t.nodes.size(), 8u);
  EXPECT_EQ(t.edges.size(), 32u);  // 16 GPU pairs
  const auto edges = gpu_edges(t);
  const std::set<std::pair<uint32_t, uint32_t>> doubled{{0, 3}, {0, 4}, {1, 2}, {1, 5},
                                                        {2, 3}, {4, 7}, {5, 6}, {6, 7}};
  for (uint32_t a = 0; a < 8; ++a) {
    uint64_t out_bps = 0;
    for (uint32_t b = 0; b < 8; ++b) {
      if (a == b) continue;
      const bool quad = a / 4 == b / 4;
      const bool across = a % 4 == b % 4;
      const auto it = edges.find({a, b});
      ASSERT_EQ(it != edges.end(), quad || across) << a << "->" << b;
      if (it == edges.end()) continue;
      const bool two = doubled.contains({std::min(a, b), std::max(a, b)});
      EXPECT_EQ(it->second, Bandwidth::gbps(two ? 50 : 25)) << a << "->" << b;
      EXPECT_EQ(cube_mesh_links(static_cast<int>(a), static_cast<int>(b)), two ? 2 : 1);
      out_bps += it->second.bytes_per_second();
    }
    EXPECT_EQ(Bandwidth::bytes_per_s(out_bps), Bandwidth::gbps(150))
        << "gpu " << a << ": six 25 GB/s NVLinks";
  }
  EXPECT_EQ(cube_mesh_links(0, 6), 0);
  EXPECT_EQ(h.fabric->hops(0, 6), 2);
  expect_all_pairs_route(h, 2);
}

TEST(CubeMesh, RefusesAnyCountButEight) {
  nlohmann::json cfg = testing::cube_mesh_cfg();
  cfg["gpus"] = 4;
  const std::string msg = config_error(cfg);
  EXPECT_NE(msg.find("/gpus"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be 8"), std::string::npos) << msg;
}

TEST(NvlinkPairs, BridgesPairsAndHangsEveryGpuOffOnePcieSwitch) {
  Harness h(testing::nvlink_pairs_cfg(8));
  const Topology& t = h.fabric->topology();
  ASSERT_EQ(t.nodes.size(), 9u);
  EXPECT_EQ(t.nodes[8].kind, NodeKind::kPcieSwitch);
  EXPECT_STREQ(to_string(t.nodes[8].kind), "pcie_switch");
  EXPECT_EQ(t.edges.size(), 2u * (4 + 8));
  const auto edges = gpu_edges(t);
  EXPECT_EQ(edges.size(), 8u);  // the bridges, both directions
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(edges.at({2 * k, 2 * k + 1}), Bandwidth::gbps(300));
    EXPECT_EQ(edges.at({2 * k + 1, 2 * k}), Bandwidth::gbps(300));
  }
  for (const TopoEdge& e : t.edges) {
    if (e.from == 8 || e.to == 8) {
      EXPECT_EQ(e.bandwidth, Bandwidth::gbps(64));
    }
  }
  EXPECT_EQ(h.fabric->hops(0, 1), 1);
  EXPECT_EQ(h.fabric->path_bandwidth(0, 1), Bandwidth::gbps(300));
  EXPECT_EQ(h.fabric->hops(1, 2), 2);  // across pairs: up to the switch and down
  EXPECT_EQ(h.fabric->path_bandwidth(1, 2), Bandwidth::gbps(64));
  EXPECT_EQ(h.fabric->path_latency(1, 2), Duration::ns(500 + 500 + 100));
  expect_all_pairs_route(h, 2);
}

TEST(NvlinkPairs, RefusesOddCountsAMissingSwitchAndTooFewPorts) {
  for (int gpus : {7, 1}) {
    const std::string msg = config_error(testing::nvlink_pairs_cfg(gpus));
    EXPECT_NE(msg.find("/gpus"), std::string::npos) << msg;
  }
  nlohmann::json no_switch = testing::nvlink_pairs_cfg(8);
  no_switch.erase("switch");
  EXPECT_NE(config_error(no_switch).find("needs key 'switch'"), std::string::npos);
  nlohmann::json few = testing::nvlink_pairs_cfg(8);
  few["switch"]["ports"] = 4;
  const std::string msg = config_error(few);
  EXPECT_NE(msg.find("PCIe switch"), std::string::npos) << msg;
}

TEST(DirectBuilders, DeclareNoRotationSymmetry) {
  for (const char* name : {"torus_2d", "cube_mesh", "nvlink_pairs"}) {
    const TopologyKind* k = find_topology(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->symmetry, Symmetry::kNone) << name;
  }
  Harness h(testing::torus_cfg(16, 4));
  EXPECT_FALSE(h.fabric->symmetry().has_value());
}

}  // namespace
}  // namespace t3sim::fabric
