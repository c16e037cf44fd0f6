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

// The plain definition of the map (header formula), with divisions.
uint32_t reference_channel(uint32_t channels, uint64_t interleave, uint64_t addr) {
  const bool pow2 = (channels & (channels - 1)) == 0;
  uint32_t bits = 8;
  if (pow2) {
    bits = 1;
    while (channels > 1 && (uint32_t{1} << bits) < channels) ++bits;
  }
  const uint64_t b = addr / interleave;
  uint64_t q = b / channels;
  const uint64_t low = b % channels;
  uint64_t h = 0;
  for (; q != 0; q >>= bits) h ^= q & ((uint64_t{1} << bits) - 1);
  if (pow2) return static_cast<uint32_t>((low ^ h) & (channels - 1));
  return static_cast<uint32_t>((low + h) % channels);
}

// The shift and reciprocal forms agree with the divisions, up to and past 2^32 blocks.
TEST(AddressMap, FastFormsMatchTheDefinition) {
  for (uint32_t c : {1u, 2u, 3u, 5u, 7u, 32u, 40u, 48u, 64u, 80u, 96u, 255u, 1000u}) {
    for (uint64_t il : {uint64_t{64}, uint64_t{4096}, uint64_t{32768}, uint64_t{3000}}) {
      const AddressMap m(c, il);
      uint64_t x = 0x9e3779b97f4a7c15ULL;
      for (int i = 0; i < 20000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const uint64_t addr =
            i < 10000 ? static_cast<uint64_t>(i) * il + x % il : x >> (i % 24);  // up to 2^64 - 1
        ASSERT_EQ(m.channel(addr), reference_channel(c, il, addr))
            << c << " channels, interleave " << il << ", address " << addr;
        ASSERT_EQ(m.block(addr), addr / il);
      }
      for (uint64_t b = (uint64_t{1} << 32) - 2; b < (uint64_t{1} << 32) + 2; ++b) {
        ASSERT_EQ(m.channel(b * il), reference_channel(c, il, b * il)) << c << " channels";
      }
    }
  }
}

TEST(AddressMap, InterleaveBlocksStayOnOneChannel) {
  const AddressMap m(32, 256);
  for (uint64_t a = 0; a < 256; ++a) EXPECT_EQ(m.channel(0x12300 + a), m.channel(0x12300));
  EXPECT_NE(m.channel(0x12300), m.channel(0x12400));
}

}  // namespace
}  // namespace t3sim::hbm
