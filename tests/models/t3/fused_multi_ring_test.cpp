// The multi-ring fused reduce-scatter plan (models/t3/fused_plan.h with extra rings), as data.
// Each tile's contributions are followed through the plan symbolically: a GEMM store lands where
// its store goes, a tracker entry with its threshold met forwards the sum by its DMA; the reduction
// is exact when every tile ends at one owner holding each GPU's contribution exactly once. Plus the
// links the plan loads (a mesh's disjoint rings load every directed pair), the weights' shares,
// the stagger (a ring's successive positions meet the same chunk one stage apart) and folding.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "models/collectives/ring_orders.h"
#include "models/common/mirror.h"
#include "models/t3/fused_plan.h"
#include "sim/errors.h"

namespace t3sim::t3 {
namespace {

constexpr uint64_t kOutBase = uint64_t{1} << 40;

// The planner's ring (rank at position p sends to p+1) in the plan's convention (i sends to i-1).
std::vector<int> plan_convention(const std::vector<int>& order) {
  std::vector<int> r;
  for (size_t i = 0; i < order.size(); ++i) r.push_back(order[(order.size() - i) % order.size()]);
  return r;
}

FusedInput mesh_input(gpu::GemmShape shape, int n, std::vector<uint32_t> weights = {}) {
  const std::vector<collectives::RingOrder> orders = collectives::disjoint_rings(n);
  FusedInput in;
  in.shape = shape;
  in.ring = plan_convention(orders[0]);
  for (size_t r = 1; r < orders.size(); ++r) in.extra_rings.push_back(plan_convention(orders[r]));
  in.weights = std::move(weights);
  for (const int g : in.ring) {
    in.a_addr.push_back(1000 + static_cast<uint64_t>(g));
    in.b_addr.push_back(2000 + static_cast<uint64_t>(g));
    in.out_addr.push_back(kOutBase * static_cast<uint64_t>(g + 1));
  }
  return in;
}

struct TileFlow {
  std::map<int, std::multiset<int>> held;              // GPU -> contributions reduced into its copy
  std::map<int, uint32_t> updates;                     // GPU -> UPDATEs landed in its copy
  std::map<std::pair<int, int>, uint64_t> link_bytes;  // (from, to) -> bytes sent
  std::map<int, uint32_t> owned_at;                    // GPU -> tiles completing there
};

// Follows every tile's contributions through the plans until nothing more fires.
TileFlow follow(const std::vector<GpuFusedPlan>& plans, uint32_t tile) {
  TileFlow f;
  std::map<int, const tracker::TileProgram*> prog;
  for (const auto& p : plans) {
    for (const auto& [t, pr] : p.programs) {
      if (t == tile) prog[p.gpu] = &pr;
    }
    const gpu::TileStore& st = p.gemm.stores[tile];
    f.held[st.dst_gpu].insert(p.gpu);
    ++f.updates[st.dst_gpu];
    if (st.dst_gpu != p.gpu) f.link_bytes[{p.gpu, st.dst_gpu}] += p.gemm.tile_bytes(tile);
  }
  std::set<int> fired;
  for (bool again = true; again;) {
    again = false;
    for (const auto& [g, pr] : prog) {
      if (fired.count(g) != 0 || f.updates[g] < pr->threshold_updates) continue;
      EXPECT_EQ(f.updates[g], pr->threshold_updates) << "GPU " << g << " over-updated";
      if (pr->has_dma) {  // one UPDATE, however many contributions it carries
        for (const int c : f.held[g]) f.held[pr->dma.dst_gpu].insert(c);
        ++f.updates[pr->dma.dst_gpu];
        f.link_bytes[{g, pr->dma.dst_gpu}] += pr->dma.bytes;
        f.held[g].clear();
      } else {
        ++f.owned_at[g];
      }
      fired.insert(g);
      again = true;
    }
  }
  return f;
}

TEST(FusedMultiRing, EveryTileReducesExactlyOnceAtItsChunkOwner) {
  const FusedInput in = mesh_input({1024, 3072, 1536}, 8);
  ASSERT_EQ(in.extra_rings.size(), 6u);  // 7 disjoint rings on 8 GPUs
  const auto plans = build_fused_rs(in, FusedKind::kRing);
  const auto tiles = static_cast<uint32_t>(plans[0].gemm.tiles());
  std::map<int, std::set<uint32_t>> owned;
  for (const auto& p : plans) owned[p.gpu].insert(p.owned_tiles.begin(), p.owned_tiles.end());
  for (uint32_t t = 0; t < tiles; ++t) {
    const TileFlow f = follow(plans, t);
    ASSERT_EQ(f.owned_at.size(), 1u) << "tile " << t;
    const int owner = f.owned_at.begin()->first;
    EXPECT_TRUE(owned[owner].count(t) != 0) << "tile " << t;
    // The owner holds all 8 contributions, each once; nobody else holds any.
    EXPECT_EQ(f.held.at(owner), (std::multiset<int>{0, 1, 2, 3, 4, 5, 6, 7})) << "tile " << t;
    for (const auto& [g, h] : f.held) {
      if (g != owner) {
        EXPECT_TRUE(h.empty()) << "tile " << t << " stuck at GPU " << g;
      }
    }
  }
  // Every GPU owns one whole chunk: tiles / 8 of them.
  for (const auto& [g, ts] : owned) EXPECT_EQ(ts.size(), tiles / 8) << "GPU " << g;
}

TEST(FusedMultiRing, DisjointRingsLoadEveryDirectedLinkEqually) {
  const FusedInput in = mesh_input({1024, 3584, 1536}, 8);  // 28 tile columns: 7 | 28
  const auto plans = build_fused_rs(in, FusedKind::kRing);
  std::map<std::pair<int, int>, uint64_t> bytes;
  for (uint32_t t = 0; t < plans[0].gemm.tiles(); ++t) {
    for (const auto& [link, b] : follow(plans, t).link_bytes) bytes[link] += b;
  }
  ASSERT_EQ(bytes.size(), 56u);  // all 8 x 7 directed pairs carry data
  const uint64_t out = 1024ull * 3584 * 2;
  for (const auto& [link, b] : bytes) {
    // Each GPU sends 7/8 of the output, over 7 links: 1/8 each.
    EXPECT_EQ(b, out / 8) << link.first << "->" << link.second;
  }
}

TEST(FusedMultiRing, WeightsDealEachChunkInProportion) {
  // 3 GPUs: rings 0->2->1 and 0->1->2 (plan convention), weights 1 and 2.
  FusedInput in;
  in.shape = {768, 768, 256};
  in.ring = {0, 1, 2};
  in.extra_rings = {{0, 2, 1}};
  in.weights = {1, 2};
  for (int g = 0; g < 3; ++g) {
    in.a_addr.push_back(0);
    in.b_addr.push_back(0);
    in.out_addr.push_back(kOutBase * static_cast<uint64_t>(g + 1));
  }
  const auto plans = build_fused_rs(in, FusedKind::kRing);
  uint64_t first = 0, second = 0;
  for (const auto& p : plans) {
    for (uint32_t t = 0; t < p.gemm.tiles(); ++t) {
      const gpu::TileStore& st = p.gemm.stores[t];
      if (st.dst_gpu == p.gpu) continue;  // only stage-1 stores leave the GPU
      // The first ring sends g -> g-1 (mod 3), the second g -> g+1.
      (st.dst_gpu == (p.gpu + 2) % 3 ? first : second) += p.gemm.tile_bytes(t);
    }
  }
  EXPECT_EQ(second, 2 * first);
  EXPECT_GT(first, 0u);
}

TEST(FusedMultiRing, RingNeighboursMeetEachChunkOneStageApart) {
  const FusedInput in = mesh_input({1024, 3072, 1536}, 8);
  const auto plans = build_fused_rs(in, FusedKind::kRing);
  std::map<int, std::map<uint32_t, size_t>> when;  // GPU -> tile -> dispatch index
  for (const auto& p : plans) {
    for (size_t k = 0; k < p.gemm.order.size(); ++k) when[p.gpu][p.gemm.order[k]] = k;
  }
  const size_t per_stage = plans[0].gemm.order.size() / 8;
  for (const auto& p : plans) {
    for (const auto& [t, pr] : p.programs) {
      if (!pr.has_dma) continue;
      // The receiver of a forwarded partial sum computes that tile one stage after the sender.
      const size_t here = when[p.gpu][t] / per_stage, there = when[pr.dma.dst_gpu][t] / per_stage;
      EXPECT_EQ(there, here + 1) << "tile " << t << " GPU " << p.gpu;
    }
  }
}

TEST(FusedMultiRing, DoesNotFoldAndRejectsForeignRings) {
  FusedInput in = mesh_input({1024, 3072, 1536}, 8);
  EXPECT_THROW(make_mirror(in), common::FoldError);
  in.extra_rings[0][3] = in.extra_rings[0][4];  // a GPU twice
  EXPECT_THROW(build_fused_rs(in, FusedKind::kRing), ModelError);
}

}  // namespace
}  // namespace t3sim::t3
