#include "sim/slot_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/errors.h"

namespace t3sim {
namespace {

struct Record {
  uint64_t bytes = 0;
  int tag = -1;
};

TEST(SlotPool, GrowsThenReusesTheMostRecentlyReleasedSlot) {
  SlotPool<Record> pool;
  EXPECT_EQ(pool.acquire(), 0u);
  EXPECT_EQ(pool.acquire(), 1u);
  EXPECT_EQ(pool.acquire(), 2u);
  pool.release(0);
  pool.release(2);
  EXPECT_EQ(pool.live(), 1u);
  EXPECT_EQ(pool.free_count(), 2u);
  EXPECT_EQ(pool.acquire(), 2u);  // LIFO: the last released comes back first
  EXPECT_EQ(pool.acquire(), 0u);
  EXPECT_EQ(pool.acquire(), 3u);  // nothing free: a new slot at the end
  EXPECT_EQ(pool.size(), 4u);
  EXPECT_EQ(pool.live(), 4u);
}

TEST(SlotPool, PreallocatedSlotsAreHandedOutInIndexOrder) {
  SlotPool<Record> pool(3);
  EXPECT_EQ(pool.live(), 0u);
  EXPECT_EQ(pool.free_count(), 3u);
  EXPECT_EQ(pool.acquire(), 0u);
  EXPECT_EQ(pool.acquire(), 1u);
  EXPECT_EQ(pool.acquire(), 2u);
  EXPECT_EQ(pool.acquire(), 3u);
  pool.reset(2);
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.live(), 0u);
  EXPECT_EQ(pool.acquire(), 0u);
}

TEST(SlotPool, AcquireWithValueStoresItAndPlainAcquireKeepsTheOldValue) {
  SlotPool<Record> pool;
  const uint32_t a = pool.acquire(Record{4096, 7});
  EXPECT_EQ(pool[a].bytes, 4096u);
  EXPECT_EQ(pool[a].tag, 7);
  pool[a].tag = 9;
  pool.release(a);
  const uint32_t b = pool.acquire();
  ASSERT_EQ(b, a);
  EXPECT_EQ(pool[b].tag, 9);  // the caller assigns; the pool does not reset
}

TEST(SlotPool, SameCallSequenceGivesSameIndices) {
  auto run = [] {
    SlotPool<int> pool;
    std::vector<uint32_t> seen;
    std::vector<uint32_t> held;
    for (int step = 0; step < 200; ++step) {
      if (step % 3 == 2 && !held.empty()) {
        pool.release(held[static_cast<size_t>(step) % held.size()]);
        held.erase(held.begin() + static_cast<long>(static_cast<size_t>(step) % held.size()));
      } else {
        held.push_back(pool.acquire(step));
        seen.push_back(held.back());
      }
    }
    return seen;
  };
  EXPECT_EQ(run(), run());
}

TEST(SlotPool, SteadyStateNeitherGrowsNorMovesSlots) {
  SlotPool<Record> pool;
  std::vector<uint32_t> held;
  for (int i = 0; i < 64; ++i) held.push_back(pool.acquire());
  for (uint32_t s : held) pool.release(s);
  const Record* base = &pool[0];
  for (int round = 0; round < 1000; ++round) {
    held.clear();
    for (int i = 0; i < 1 + round % 64; ++i) held.push_back(pool.acquire());
    for (uint32_t s : held) pool.release(s);
  }
  EXPECT_EQ(pool.size(), 64u);
  EXPECT_EQ(&pool[0], base);  // no reallocation once the high-water mark is reached
  EXPECT_EQ(pool.live(), 0u);
}

TEST(SlotPool, DoubleOrForeignReleaseIsAModelError) {
  SlotPool<int> pool;
  const uint32_t a = pool.acquire();
  EXPECT_TRUE(pool.in_use(a));
  pool.release(a);
  EXPECT_FALSE(pool.in_use(a));
  EXPECT_THROW(pool.release(a), ModelError);
  EXPECT_THROW(pool.release(42), ModelError);
  EXPECT_EQ(pool.live(), 0u);
  EXPECT_EQ(pool.free_count(), 1u);
}

}  // namespace
}  // namespace t3sim
