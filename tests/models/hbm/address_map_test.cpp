#include "models/hbm/address_map.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace t3sim::hbm {
namespace {

// Every span of C consecutive blocks starting at a multiple of C covers all channels once.
void expect_permutation_per_row(uint32_t channels) {
  const AddressMap m(channels, 4096);
  for (uint64_t row = 0; row < 300; ++row) {
    std::set<uint32_t> seen;
    for (uint64_t i = 0; i < channels; ++i)
      seen.insert(m.channel((row * channels + i) * 4096 + 17));
    EXPECT_EQ(seen.size(), channels) << "row " << row;
    EXPECT_LT(*seen.rbegin(), channels);
  }
}

TEST(AddressMap, ConsecutiveBlocksCoverEveryChannel) {
  for (uint32_t c : {1u, 2u, 32u, 40u, 64u}) expect_permutation_per_row(c);
}

TEST(AddressMap, PowerOfTwoStridesSpreadOverChannels) {
  for (uint32_t c : {32u, 40u}) {
    const AddressMap m(c, 4096);
    std::vector<int> hits(c, 0);
    const uint64_t stride =
        uint64_t{c} * 4096;  // plain modulo would map all of these to one channel
    for (uint64_t i = 0; i < 4096; ++i) ++hits[m.channel(i * stride)];
    int used = 0;
    for (int h : hits) used += h > 0;
    EXPECT_GE(used, static_cast<int>(c) / 2) << c << " channels";
  }
}

TEST(AddressMap, InterleaveBlocksStayOnOneChannel) {
  const AddressMap m(32, 256);
  for (uint64_t a = 0; a < 256; ++a) EXPECT_EQ(m.channel(0x12300 + a), m.channel(0x12300));
  EXPECT_NE(m.channel(0x12300), m.channel(0x12400));
}

}  // namespace
}  // namespace t3sim::hbm
