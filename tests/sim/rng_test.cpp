// Contracts of sim/rng.h: a stream depends only on (seed, name), streams are independent, the
// sequence is pinned (changing it would silently change every published result), and the helpers
// stay in range without visible bias.
#include "sim/rng.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>

namespace t3sim {
namespace {

TEST(Rng, SequenceIsPinned) {
  Rng r(1, "x");
  EXPECT_EQ(r.next(), 11254490755949562745ULL);
  EXPECT_EQ(r.next(), 11493245590102496514ULL);
  EXPECT_EQ(r.next(), 14136540168242155773ULL);
  EXPECT_EQ(Rng(0, "").next(), 2393714812739481704ULL);
}

TEST(Rng, SameSeedAndNameGiveTheSameStream) {
  Rng a(123, "hbm.refresh");
  Rng b(123, "hbm.refresh");
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next(), b.next());
}

TEST(Rng, NamesAndSeedsGiveDifferentStreams) {
  std::set<uint64_t> firsts;
  for (uint64_t seed : {1, 2, 3}) {
    for (const char* name : {"a", "b", "traffic", "traffic2", ""})
      firsts.insert(Rng(seed, name).next());
  }
  EXPECT_EQ(firsts.size(), 15U);
}

TEST(Rng, BelowStaysInRangeAndIsRoughlyUniform) {
  Rng r(5, "below");
  std::array<int, 10> counts{};
  for (int i = 0; i < 100'000; ++i) {
    const uint64_t x = r.below(10);
    ASSERT_LT(x, 10U);
    ++counts[x];
  }
  for (int c : counts) {
    EXPECT_GT(c, 9'500);
    EXPECT_LT(c, 10'500);
  }
  EXPECT_EQ(r.below(1), 0U);
  const uint64_t big = (1ULL << 63) + 12345;
  for (int i = 0; i < 1000; ++i) ASSERT_LT(r.below(big), big);
}

TEST(Rng, Uniform01IsInTheHalfOpenUnitInterval) {
  Rng r(6, "u01");
  double sum = 0;
  for (int i = 0; i < 100'000; ++i) {
    const double u = r.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 100'000, 0.5, 0.01);
}

}  // namespace
}  // namespace t3sim
