#include "sim/ring_buffer.h"

#include <gtest/gtest.h>

namespace t3sim {
namespace {

TEST(RingBuffer, FifoOrderAcrossWrapAround) {
  RingBuffer<int> r(4);
  EXPECT_EQ(r.capacity(), 4u);
  for (int round = 0; round < 10; ++round) {
    r.push(round * 2);
    r.push(round * 2 + 1);
    EXPECT_EQ(r.pop(), round * 2);
    EXPECT_EQ(r.front(), round * 2 + 1);
    EXPECT_EQ(r.pop(), round * 2 + 1);
  }
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.capacity(), 4u);  // never grew
}

TEST(RingBuffer, GrowsOnlyWhenFullAndKeepsOrder) {
  RingBuffer<int> r(2);
  r.push(1);
  r.push(2);
  EXPECT_EQ(r.pop(), 1);
  r.push(3);
  r.push(4);  // full at 2 -> grows to 4, contents in order
  EXPECT_EQ(r.capacity(), 4u);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], 2);
  EXPECT_EQ(r[1], 3);
  EXPECT_EQ(r[2], 4);
}

}  // namespace
}  // namespace t3sim
