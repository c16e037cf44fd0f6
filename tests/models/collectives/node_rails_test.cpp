// Rails of rings across nodes (node_rails.h) on two-level machines written out by hand: nodes of
// GPUs on an NVSwitch plane, NICs on rails joined by one switch per rail, routed by fewest hops
// with the lowest next node first (as the fabric routes: a rail change happens inside the source
// node). Checks that the NICs are counted from the links and that each channel's ring crosses
// nodes on its own NIC, so every NIC carries traffic both ways.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "models/collectives/node_rails.h"

namespace t3sim::collectives {
namespace {

constexpr uint64_t kGB = 1'000'000'000;

// nodes x local GPUs (ids first), an NVSwitch per node, `nics` NICs per node (GPU k's NIC is
// k * nics / local: NICs shared by neighbouring GPUs when nics < local) and a switch per rail.
class TwoLevel {
 public:
  TwoLevel(int nodes, int local, int nics) : nodes_(nodes), local_(local) {
    const int gpus = nodes * local;
    const int nvs = gpus;
    const int nic0 = nvs + nodes;
    const int ib0 = nic0 + nodes * nics;
    count_ = ib0 + nics;
    for (int g = 0; g < gpus; ++g) {
      const int m = g / local;
      link(g, nvs + m, 450);
      link(g, nic0 + m * nics + (g % local) * nics / local, 50);
    }
    for (int m = 0; m < nodes; ++m) {
      for (int k = 0; k < nics; ++k) link(nic0 + m * nics + k, ib0 + k, 50);
    }
  }
  std::vector<common::PathLink> path(int src, int dst) const {
    std::vector<int> dist(static_cast<size_t>(count_), -1);  // hops to dst
    std::vector<int> frontier{dst};
    dist[static_cast<size_t>(dst)] = 0;
    while (!frontier.empty()) {
      std::vector<int> next;
      for (const int v : frontier) {
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
      for (const auto& [k, e] : edges_) {  // ordered by (from, to): the lowest next node first
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
  RankPath rank_path() const {
    return [this](int a, int b) { return path(a, b); };
  }
  std::vector<int> node_of_rank() const {
    std::vector<int> out;
    for (int g = 0; g < nodes_ * local_; ++g) out.push_back(g / local_);
    return out;
  }
  // The link ids that leave GPUs for NICs (GPU id < nodes x local, NIC beyond the switches).
  std::set<uint32_t> nic_links() const {
    std::set<uint32_t> out;
    for (const auto& [k, e] : edges_) {
      if (k.first < nodes_ * local_ && k.second >= nodes_ * local_ + nodes_) out.insert(e.first);
      if (k.second < nodes_ * local_ && k.first >= nodes_ * local_ + nodes_) out.insert(e.first);
    }
    return out;
  }

 private:
  void link(int a, int b, uint64_t gbps) {
    edges_[{a, b}] = {static_cast<uint32_t>(edges_.size()), gbps * kGB};
    edges_[{b, a}] = {static_cast<uint32_t>(edges_.size()), gbps * kGB};
  }
  int nodes_;
  int local_;
  int count_ = 0;
  std::map<std::pair<int, int>, std::pair<uint32_t, uint64_t>> edges_;
};

TEST(NodeRails, CountsOneNicPerGpuOnARailOptimisedNode) {
  const TwoLevel t(2, 8, 8);
  const NodeRails r = find_rails(t.node_of_rank(), t.rank_path());
  EXPECT_EQ(r.nodes, 2);
  EXPECT_EQ(r.local, 8);
  EXPECT_EQ(r.nics, 8u);
  EXPECT_EQ(r.rotations, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r.bandwidth, Bandwidth::gbps(8 * 50));
}

// Fewer NICs than GPUs: the bandwidth NCCL's tuner credits follows the NIC count.
TEST(NodeRails, NicCountAndBandwidthFollowTheLinks) {
  for (const int nics : {1, 2, 4}) {
    const TwoLevel t(2, 8, nics);
    const NodeRails r = find_rails(t.node_of_rank(), t.rank_path());
    EXPECT_EQ(r.nics, static_cast<uint32_t>(nics));
    EXPECT_EQ(r.rotations.size(), static_cast<size_t>(nics));
    EXPECT_EQ(r.bandwidth, Bandwidth::gbps(50 * static_cast<uint64_t>(nics)));
  }
}

// Each channel's ring is a permutation from rank 0 that keeps every node's GPUs together, and the
// first `nics` channels cross between nodes on `nics` different NICs: every NIC link carries a
// ring hop in both directions.
TEST(NodeRails, EachChannelCrossesNodesOnItsOwnNic) {
  const TwoLevel t(2, 8, 8);
  const NodeRails r = find_rails(t.node_of_rank(), t.rank_path());
  const std::vector<RingOrder> rings = rail_rings(r, 16);
  ASSERT_EQ(rings.size(), 16u);
  const std::set<uint32_t> nic = t.nic_links();
  std::set<uint32_t> crossed;
  for (uint32_t c = 0; c < 8; ++c) {
    const RingOrder& ring = rings[c];
    EXPECT_EQ(ring[0], 0);
    EXPECT_EQ(std::set<int>(ring.begin(), ring.end()).size(), 16u);
    int crossings = 0;
    std::set<uint32_t> mine;
    for (size_t i = 0; i < ring.size(); ++i) {
      const int a = ring[i];
      const int b = ring[(i + 1) % ring.size()];
      if (a / 8 == b / 8) continue;
      ++crossings;
      for (const common::PathLink& l : t.path(a, b)) {
        if (nic.count(l.id) != 0) mine.insert(l.id);
      }
    }
    EXPECT_EQ(crossings, 2) << "channel " << c;
    for (const uint32_t l : mine) EXPECT_TRUE(crossed.insert(l).second) << "channel " << c;
  }
  EXPECT_EQ(crossed, nic);        // every GPU <-> NIC link, both ways
  EXPECT_EQ(rings[8], rings[0]);  // channels deal round-robin over the rails
}

TEST(NodeRails, NoRailsForOneNodeOrMixedGroups) {
  const TwoLevel t(2, 4, 4);
  EXPECT_TRUE(find_rails({0, 0, 0, 0}, t.rank_path()).rotations.empty());
  EXPECT_TRUE(find_rails({0, 1, 0, 1, 0, 1, 0, 1}, t.rank_path()).rotations.empty());
  EXPECT_TRUE(find_rails({0, 0, 0, 1, 1}, t.rank_path()).rotations.empty());
  const RankPath none = [](int, int) { return std::vector<common::PathLink>{}; };
  EXPECT_TRUE(find_rails({0, 0, 1, 1}, none).rotations.empty());
  EXPECT_TRUE(rail_rings(NodeRails{}, 4).empty());
}

}  // namespace
}  // namespace t3sim::collectives
