// Edge-disjoint ring orders for fully connected fabrics: every ring visits every rank once, no
// directed link is shared, and the search finds all n-1 rings where they exist.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "models/collectives/ring_orders.h"

namespace t3sim::collectives {
namespace {

void expect_disjoint_hamiltonian(const std::vector<RingOrder>& rings, int n) {
  std::set<std::pair<int, int>> arcs;
  for (const RingOrder& r : rings) {
    ASSERT_EQ(r.size(), static_cast<size_t>(n));
    EXPECT_EQ(r[0], 0);
    std::set<int> seen(r.begin(), r.end());
    EXPECT_EQ(seen.size(), static_cast<size_t>(n));
    EXPECT_EQ(*seen.begin(), 0);
    EXPECT_EQ(*seen.rbegin(), n - 1);
    for (int i = 0; i < n; ++i) {
      const auto arc =
          std::make_pair(r[static_cast<size_t>(i)], r[static_cast<size_t>((i + 1) % n)]);
      EXPECT_TRUE(arcs.insert(arc).second)
          << "link " << arc.first << "->" << arc.second << " used twice (n = " << n << ")";
    }
  }
}

TEST(RingOrders, FullSplitIntoNMinusOneRings) {
  for (int n : {3, 5, 7, 8, 10, 16}) {
    const std::vector<RingOrder> rings = disjoint_rings(n);
    EXPECT_EQ(rings.size(), static_cast<size_t>(n - 1)) << "n = " << n;
    expect_disjoint_hamiltonian(rings, n);
  }
}

TEST(RingOrders, FirstRingIsTheCanonicalOrder) {
  const std::vector<RingOrder> rings = disjoint_rings(8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rings[0][static_cast<size_t>(i)], i);
}

TEST(RingOrders, NoFullSplitFallsBackToCoprimeSteps) {
  // Four and six GPUs have no split into n-1 Hamiltonian cycles (Tillson); larger groups skip
  // the search. Either way the rings stay disjoint.
  EXPECT_EQ(disjoint_rings(4).size(), 2u);  // steps 1 and 3
  expect_disjoint_hamiltonian(disjoint_rings(4), 4);
  expect_disjoint_hamiltonian(disjoint_rings(6), 6);
  EXPECT_EQ(disjoint_rings(32).size(), 16u);  // steps coprime with 32
  expect_disjoint_hamiltonian(disjoint_rings(32), 32);
  EXPECT_EQ(disjoint_rings(2).size(), 1u);
}

TEST(RingOrders, Deterministic) { EXPECT_EQ(disjoint_rings(12), disjoint_rings(12)); }

}  // namespace
}  // namespace t3sim::collectives
