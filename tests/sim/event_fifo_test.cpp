// Contracts of sim/event_fifo.h: entries come out in push order across block boundaries and from
// the inline first entry on, whole FIFOs move without copying, drain and filter keep the order, and
// blocks go back to the pool.
#include "sim/event_fifo.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace t3sim {
namespace {

QueueEntry entry(uint64_t i) { return QueueEntry{i, i * 3, nullptr}; }

std::vector<uint64_t> ticks(const EntryFifo& f) {
  std::vector<uint64_t> out;
  f.for_each([&](const QueueEntry& e) { out.push_back(e.tick); });
  return out;
}

TEST(EntryFifo, YieldsEntriesInPushOrderAcrossBlocks) {
  EntryBlockPool pool;
  EntryFifo f;
  EXPECT_TRUE(f.empty());
  const uint64_t n = 5 * EntryFifo::kEntries + 7;
  for (uint64_t i = 0; i < n; ++i) f.push(entry(i), pool);
  EXPECT_FALSE(f.single());
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_FALSE(f.empty());
    EXPECT_EQ(f.front().tick, i);
    EXPECT_EQ(f.front().order, i * 3);
    if (i + 1 == n) {
      EXPECT_TRUE(f.single());
    }
    f.pop_front(pool);
  }
  EXPECT_TRUE(f.empty());
}

TEST(EntryFifo, InterleavedPushAndPopKeepTheOrder) {
  EntryBlockPool pool;
  EntryFifo f;
  uint64_t next_in = 0;
  uint64_t next_out = 0;
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < round % 50; ++k) f.push(entry(next_in++), pool);
    for (int k = 0; k < round % 37 && !f.empty(); ++k) {
      EXPECT_EQ(f.front().tick, next_out++);
      f.pop_front(pool);
    }
  }
  while (!f.empty()) {
    EXPECT_EQ(f.front().tick, next_out++);
    f.pop_front(pool);
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(EntryFifo, TakeAllMovesEverythingAndLeavesTheSourceEmpty) {
  EntryBlockPool pool;
  EntryFifo a;
  for (uint64_t i = 0; i < 100; ++i) a.push(entry(i), pool);
  a.pop_front(pool);
  EntryFifo b;
  b.take_all(a);
  EXPECT_TRUE(a.empty());
  std::vector<uint64_t> expected;
  for (uint64_t i = 1; i < 100; ++i) expected.push_back(i);
  EXPECT_EQ(ticks(b), expected);
  a.push(entry(7), pool);  // the emptied FIFO is usable again
  EXPECT_TRUE(a.single());
  EXPECT_EQ(ticks(a), (std::vector<uint64_t>{7}));
}

TEST(EntryFifo, DrainVisitsInOrderAndMayRefillTheSameFifo) {
  EntryBlockPool pool;
  EntryFifo f;
  for (uint64_t i = 0; i < 3 * EntryFifo::kEntries; ++i) f.push(entry(i), pool);
  std::vector<uint64_t> seen;
  f.drain(pool, [&](const QueueEntry& e) {
    seen.push_back(e.tick);
    if (e.tick % 2 == 0) f.push(entry(e.tick + 10'000), pool);
  });
  ASSERT_EQ(seen.size(), 3 * EntryFifo::kEntries);
  for (uint64_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i);
  const std::vector<uint64_t> left = ticks(f);
  ASSERT_EQ(left.size(), 3 * EntryFifo::kEntries / 2);
  for (uint64_t i = 0; i < left.size(); ++i) EXPECT_EQ(left[i], 10'000 + 2 * i);
}

TEST(EntryFifo, FilterKeepsTheChosenEntriesInOrder) {
  EntryBlockPool pool;
  EntryFifo f;
  for (uint64_t i = 0; i < 200; ++i) f.push(entry(i), pool);
  for (int k = 0; k < 5; ++k) f.pop_front(pool);
  f.filter(pool, [](const QueueEntry& e) { return e.tick % 3 == 0; });
  std::vector<uint64_t> expected;
  for (uint64_t i = 6; i < 200; i += 3) expected.push_back(i);
  EXPECT_EQ(ticks(f), expected);
  f.filter(pool, [](const QueueEntry&) { return false; });
  EXPECT_TRUE(f.empty());
}

TEST(EntryFifo, BlocksAreRecycled) {
  // A FIFO that grows and shrinks many times reuses its blocks: the pool's storage does not grow
  // with the number of entries ever pushed (observed through the block addresses). The first entry
  // is held inline, so each round pushes two and the second lands in a block.
  EntryBlockPool pool;
  EntryFifo f;
  f.push(entry(0), pool);
  f.push(entry(1), pool);
  f.pop_front(pool);
  const QueueEntry* first = &f.front();
  f.pop_front(pool);
  EXPECT_TRUE(f.empty());
  for (int round = 0; round < 1000; ++round) {
    f.push(entry(2), pool);
    f.push(entry(3), pool);
    f.pop_front(pool);
    EXPECT_EQ(&f.front(), first);  // the block given back last is taken first
    f.pop_front(pool);
  }
}

TEST(EntryFifo, ALoneEntryIsHeldInlineAndKeepsItsPlaceInTheOrder) {
  EntryBlockPool pool;
  EntryFifo f;
  EXPECT_TRUE(f.push(entry(5), pool));  // was empty
  EXPECT_TRUE(f.single());
  const auto* inside = reinterpret_cast<const char*>(&f);
  const auto* at = reinterpret_cast<const char*>(&f.front());
  EXPECT_TRUE(at >= inside && at < inside + sizeof(f));  // no block taken
  EXPECT_FALSE(f.push(entry(6), pool));
  EXPECT_FALSE(f.single());
  EXPECT_EQ(ticks(f), (std::vector<uint64_t>{5, 6}));
  f.pop_front(pool);  // the inline entry goes first; the FIFO goes on from its blocks
  EXPECT_TRUE(f.single());
  EXPECT_EQ(f.front().tick, 6U);
  f.push(entry(7), pool);  // behind the block's entry, not inline
  EXPECT_EQ(ticks(f), (std::vector<uint64_t>{6, 7}));
  f.pop_front(pool);
  f.pop_front(pool);
  EXPECT_TRUE(f.empty());
  EXPECT_TRUE(f.push(entry(8), pool));
  EXPECT_EQ(ticks(f), (std::vector<uint64_t>{8}));
  QueueEntry out{};
  f.push(entry(9), pool);
  EXPECT_FALSE(f.take_lone(out));  // two entries: nothing taken
  EXPECT_EQ(ticks(f), (std::vector<uint64_t>{8, 9}));
  f.clear(pool);
  f.push(entry(10), pool);
  EXPECT_TRUE(f.take_lone(out));
  EXPECT_EQ(out.tick, 10U);
  EXPECT_TRUE(f.empty());
}

}  // namespace
}  // namespace t3sim
