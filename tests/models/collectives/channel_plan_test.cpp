// The ring channel planner (channel_plan.h) on link graphs written out by hand: a bidirectional
// and a one-way ring, a full mesh, a switch, GPUs bridged in pairs on PCIe, DGX-1's hybrid
// cube-mesh and a 2D torus. Checks the rings (count, orders, directions) NCCL's search would give
// and that no directed link carries more than its rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "models/collectives/channel_plan.h"

namespace t3sim::collectives {
namespace {

constexpr uint64_t kGB = 1'000'000'000;

// A directed graph over GPUs 0..n-1 and extra nodes (switches), routed by fewest hops (ties: the
// lowest next node), as the fabric routes.
class Graph {
 public:
  explicit Graph(int nodes) : nodes_(nodes) {}
  void link(int a, int b, uint64_t gbps) { duplex(a, b, gbps, gbps); }
  void duplex(int a, int b, uint64_t ab, uint64_t ba) {
    if (ab > 0) edges_[{a, b}] = {static_cast<uint32_t>(edges_.size()), ab * kGB};
    if (ba > 0) edges_[{b, a}] = {static_cast<uint32_t>(edges_.size()), ba * kGB};
  }
  std::vector<common::PathLink> path(int src, int dst) const {
    std::vector<int> dist(static_cast<size_t>(nodes_), -1);  // hops to dst, over in-edges
    std::vector<int> frontier{dst};
    dist[static_cast<size_t>(dst)] = 0;
    while (!frontier.empty()) {
      std::vector<int> next;
      for (int v : frontier) {
        for (const auto& [k, e] : edges_) {
          if (k.second == v && dist[static_cast<size_t>(k.first)] < 0) {
            dist[static_cast<size_t>(k.first)] = dist[static_cast<size_t>(v)] + 1;
            next.push_back(k.first);
          }
        }
      }
      frontier = next;
    }
    std::vector<common::PathLink> out;
    for (int u = src; u != dst;) {
      for (const auto& [k, e] : edges_) {  // ordered by (from, to): lowest next node first
        if (k.first == u &&
            dist[static_cast<size_t>(k.second)] == dist[static_cast<size_t>(u)] - 1) {
          out.push_back({e.first, Bandwidth::bytes_per_s(e.second)});
          u = k.second;
          break;
        }
      }
    }
    return out;
  }
  uint64_t rate(uint32_t id) const {
    for (const auto& [k, e] : edges_) {
      if (e.first == id) return e.second;
    }
    return 0;
  }
  RankPath ranks() const {
    return [this](int a, int b) { return path(a, b); };
  }

 private:
  int nodes_;
  std::map<std::pair<int, int>, std::pair<uint32_t, uint64_t>> edges_;
};

Graph ring(int n, bool both_ways) {
  Graph g(n);
  for (int i = 0; i < n; ++i) g.duplex(i, (i + 1) % n, both_ways ? 75 : 0, 75);
  return g;
}

RingOrder backward(int n) {
  RingOrder r{0};
  for (int i = n - 1; i > 0; --i) r.push_back(i);
  return r;
}

RingOrder forward(int n) {
  RingOrder r;
  for (int i = 0; i < n; ++i) r.push_back(i);
  return r;
}

// Every ring visits every rank once from rank 0; no link above its rate. Returns rings x speed.
double check(const ChannelPlan& p, const Graph& g, int n) {
  for (const RingOrder& r : p.rings) {
    EXPECT_EQ(r.size(), static_cast<size_t>(n));
    EXPECT_EQ(r[0], 0);
    EXPECT_EQ(std::set<int>(r.begin(), r.end()).size(), static_cast<size_t>(n));
  }
  for (const auto& [id, load] : ring_link_load(p, g.ranks())) {
    EXPECT_LE(load.bytes_per_second(), g.rate(id)) << "link " << id;
  }
  EXPECT_EQ(p.weight.size(), p.rings.size());
  return static_cast<double>(p.found()) * p.speed.to_gbps();
}

TEST(ChannelPlan, BidirectionalRingGetsARingEachWay) {
  const Graph g = ring(8, true);
  const ChannelPlan p = plan_rings(8, g.ranks(), 16);
  ASSERT_TRUE(p.searched);
  ASSERT_EQ(p.rings.size(), 2u);
  EXPECT_EQ(p.rings[0], forward(8));
  EXPECT_EQ(p.rings[1], backward(8));
  EXPECT_EQ(ChannelPlan::direction(p.rings[0]), 1);
  EXPECT_EQ(ChannelPlan::direction(p.rings[1]), -1);
  EXPECT_DOUBLE_EQ(p.speed.to_gbps(), 75.0);
  const auto load = ring_link_load(p, g.ranks());
  EXPECT_EQ(load.size(), 16u);  // every directed link, each at its full rate
  for (const auto& [id, bw] : load) EXPECT_EQ(bw.bytes_per_second(), 75 * kGB);
  EXPECT_DOUBLE_EQ(check(p, g, 8), 150.0);
}

TEST(ChannelPlan, OneChannelTakesOneDirection) {
  const Graph g = ring(8, true);
  const ChannelPlan p = plan_rings(8, g.ranks(), 1);
  ASSERT_EQ(p.rings.size(), 1u);
  EXPECT_EQ(p.rings[0], forward(8));
}

TEST(ChannelPlan, OneWayRingRunsTheWayItsWiresGo) {
  const Graph g = ring(8, false);  // only i+1 -> i carries traffic: forward hops take 7 links
  const ChannelPlan p = plan_rings(8, g.ranks(), 16);
  ASSERT_EQ(p.rings.size(), 1u);
  EXPECT_EQ(p.rings[0], backward(8));
  EXPECT_DOUBLE_EQ(check(p, g, 8), 75.0);
}

TEST(ChannelPlan, FullMeshGetsItsDisjointRings) {
  Graph g(8);
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) g.link(a, b, 64);
  }
  const ChannelPlan p = plan_rings(8, g.ranks(), 16);
  EXPECT_EQ(p.rings.size(), 7u);  // every directed link in exactly one ring
  EXPECT_EQ(p.rings, disjoint_rings(8));
  EXPECT_DOUBLE_EQ(check(p, g, 8), 7 * 64.0);
  EXPECT_EQ(ring_link_load(p, g.ranks()).size(), 56u);
}

TEST(ChannelPlan, SwitchKeepsTheGroupOrderOnce) {
  Graph g(9);  // node 8 is the switch
  for (int i = 0; i < 8; ++i) g.link(i, 8, 450);
  const ChannelPlan p = plan_rings(8, g.ranks(), 16);
  ASSERT_EQ(p.rings.size(), 1u);
  EXPECT_EQ(p.rings[0], forward(8));
  EXPECT_DOUBLE_EQ(check(p, g, 8), 450.0);
}

TEST(ChannelPlan, PcieBridgedPairsCrossEachBridgeBothWays) {
  // GPUs 2k and 2k+1 share an NVLink bridge (100 GB/s each way); every GPU reaches the others
  // through one PCIe switch (node 8) at 32 GB/s each way. The PCIe up-links bound every ring.
  Graph g(9);
  for (int i = 0; i < 8; i += 2) g.link(i, i + 1, 100);
  for (int i = 0; i < 8; ++i) g.link(i, 8, 32);
  const ChannelPlan p = plan_rings(8, g.ranks(), 16);
  ASSERT_EQ(p.rings.size(), 2u);
  EXPECT_EQ(p.rings[0], forward(8));  // 0-1 on the bridge, 1-2 over PCIe, ...
  EXPECT_EQ(p.rings[1], backward(8));
  EXPECT_DOUBLE_EQ(check(p, g, 8), 64.0);
}

TEST(ChannelPlan, Dgx1CubeMeshUsesAllSixLinksOfEveryGpu) {
  // DGX-1 (V100): quads 0-3 and 4-7 fully connected, i <-> i+4, and eight pairs with two NVLinks
  // (25 GB/s each way per link): six links per GPU, 150 GB/s out of every GPU.
  Graph g(8);
  const int doubled[8][2] = {{0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {4, 7}, {5, 6}, {6, 7}};
  const int single[8][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 6}, {5, 7}};
  for (const auto& d : doubled) g.link(d[0], d[1], 50);
  for (const auto& s1 : single) g.link(s1[0], s1[1], 25);
  const ChannelPlan p = plan_rings(8, g.ranks(), 24);
  EXPECT_GE(p.rings.size(), 2u);
  EXPECT_NEAR(check(p, g, 8), 150.0, 1e-6);  // every directed link carries its full rate
  for (const auto& [id, load] : ring_link_load(p, g.ranks())) {  // (speeds are whole B/s)
    EXPECT_NEAR(static_cast<double>(load.bytes_per_second()), static_cast<double>(g.rate(id)), 10.0)
        << "link " << id;
  }
}

TEST(ChannelPlan, ChannelsFollowTheRingsWeights) {
  ChannelPlan p;
  p.rings = {forward(4), backward(4)};
  p.weight = {2, 1};
  const std::vector<RingOrder> ch = p.channel_rings(24);
  ASSERT_EQ(ch.size(), 24u);
  EXPECT_EQ(std::count(ch.begin(), ch.end(), forward(4)), 16);
  EXPECT_EQ(ch[0], forward(4));  // interleaved: f b f f b f ...
  EXPECT_EQ(ch[1], backward(4));
  EXPECT_EQ(ch[2], forward(4));
  EXPECT_EQ(ch[3], forward(4));
  EXPECT_EQ(ch[4], backward(4));
  EXPECT_EQ(p.found(), 3u);
}

TEST(ChannelPlan, Torus2dFindsRingsOnItsLinks) {
  // 4 x 4 torus, row-major ids, 50 GB/s links to the four neighbours.
  Graph g(16);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      g.link(r * 4 + c, r * 4 + (c + 1) % 4, 50);
      g.link(r * 4 + c, ((r + 1) % 4) * 4 + c, 50);
    }
  }
  const ChannelPlan p = plan_rings(16, g.ranks(), 16);
  EXPECT_GE(check(p, g, 16), 100.0);  // two of each GPU's four out-links at least
  EXPECT_EQ(p.speed.to_gbps(), 50.0);
  EXPECT_EQ(plan_rings(16, g.ranks(), 16).rings, p.rings);  // deterministic
}

TEST(ChannelPlan, NoLinksKeepsTheGroupOrder) {
  const RankPath none = [](int, int) { return std::vector<common::PathLink>{}; };
  const ChannelPlan p = plan_rings(4, none, 8);
  EXPECT_FALSE(p.searched);
  ASSERT_EQ(p.rings.size(), 1u);
  EXPECT_EQ(p.rings[0], forward(4));
}

}  // namespace
}  // namespace t3sim::collectives
