// Tests of the memory-partition front end (models/gpu/mem_partition.h) with a fake DRAM: a full
// slice refuses hits too and wakes its waiter once; the other slice keeps serving; the event-free
// hit booking obeys the same rule; hits share the port bandwidth; a DRAM that refuses fills the
// miss queue and blocks the slice; bytes in = bytes out per traffic class, DRAM bytes = misses;
// write-back stores complete at the slice and reach DRAM later; a full write-back buffer holds
// stores (not reads) until a write-back leaves.
#include "models/gpu/mem_partition.h"

#include <gtest/gtest.h>

#include <vector>

#include "models/gpu/mem_stream.h"
#include "tests/models/gpu/fakes.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

using testing::CountingClient;
using testing::FakeDram;
using testing::TwoChannels;

PartitionSpec spec(Bytes miss_queue, Bytes mshr) {
  PartitionSpec p;
  p.enabled = true;
  p.hit_bandwidth = Bandwidth::gbps(10);
  p.hit_latency = 100_ns;
  p.miss_queue = miss_queue;
  p.mshr = mshr;
  return p;
}

common::MemRequest request(uint64_t addr, uint32_t bytes, common::MemCmd cmd, bool hit,
                           common::MemClient* c,
                           common::TrafficClass cls = common::TrafficClass::kGemmRead) {
  common::MemRequest r;
  r.addr = addr;
  r.bytes = bytes;
  r.cmd = cmd;
  r.cls = cls;
  r.l2_hit = hit;
  r.client = c;
  return r;
}

TEST(MemPartition, FullSliceRefusesHitsAndWakesItsWaiter) {
  Simulator sim;
  FakeDram dram(sim, 1_us, 64);
  TwoChannels map;
  MemPartition p(sim, &sim.root(), "l2", spec(64_KiB, 4_KiB), Bandwidth{}, dram, map);
  CountingClient miss, hit, other;
  ASSERT_TRUE(p.try_issue(request(0, 4096, common::MemCmd::kRead, false, &miss)));
  // Slice 0's MSHRs are full: a hit to it is refused, and so is the event-free booking.
  EXPECT_FALSE(p.try_issue(request(0, 1024, common::MemCmd::kRead, true, &hit)));
  p.wait_for_space(&hit);
  EXPECT_EQ(p.reserve_hit(0, 1024, common::TrafficClass::kGemmRead), Tick::max());
  // Slice 1 still serves.
  EXPECT_TRUE(p.try_issue(request(4096, 1024, common::MemCmd::kRead, true, &other)));
  EXPECT_NE(p.reserve_hit(4096, 1024, common::TrafficClass::kGemmRead), Tick::max());
  sim.run();
  EXPECT_EQ(miss.done, 1);
  EXPECT_EQ(other.done, 1);
  EXPECT_EQ(hit.retries, 1);  // woken exactly once when the miss returned
  EXPECT_EQ(hit.done, 0);
  EXPECT_EQ(dram.hits_seen, 0u);  // hits never reach DRAM
  EXPECT_GE(p.refusals(), 2u);
  sim.finish();
}

TEST(MemPartition, HitsShareThePortBandwidth) {
  Simulator sim;
  FakeDram dram(sim, 1_us, 64);
  TwoChannels map;
  MemPartition p(sim, &sim.root(), "l2", spec(64_KiB, 64_KiB), Bandwidth{}, dram, map);
  CountingClient c;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(p.try_issue(request(i * 4096ULL, 10000, common::MemCmd::kRead, true, &c)));
  }
  // 10 x 10 kB at 10 GB/s = 10 us of port time, then the 100 ns hit latency.
  const Tick booked = p.reserve_hit(0, 10000, common::TrafficClass::kGemmRead);
  EXPECT_EQ(booked, Tick{} + 11_us + 100_ns);
  sim.run();
  EXPECT_EQ(c.done, 10);
  EXPECT_EQ(sim.now(), Tick{} + 10_us + 100_ns);
}

TEST(MemPartition, RefusingDramFillsTheMissQueueAndBlocksHits) {
  Simulator sim;
  FakeDram dram(sim, 1_us, 1);  // one request at a time
  TwoChannels map;
  MemPartition p(sim, &sim.root(), "l2", spec(8_KiB, 64_KiB), Bandwidth{}, dram, map);
  CountingClient w, hit;
  ASSERT_TRUE(p.try_issue(request(0, 4096, common::MemCmd::kWrite, false, &w)));  // in DRAM
  ASSERT_TRUE(p.try_issue(request(0, 4096, common::MemCmd::kWrite, false, &w)));  // queued
  ASSERT_TRUE(p.try_issue(request(0, 4096, common::MemCmd::kWrite, false, &w)));  // queued: full
  EXPECT_FALSE(p.try_issue(request(0, 512, common::MemCmd::kRead, true, &hit)));
  p.wait_for_space(&hit);
  sim.run();
  EXPECT_EQ(w.done, 3);
  EXPECT_EQ(hit.retries, 1);
  sim.finish();
}

TEST(MemPartition, BytesInEqualBytesOutPerClass) {
  Simulator sim;
  FakeDram dram(sim, 300_ns, 4);
  TwoChannels map;
  MemPartition p(sim, &sim.root(), "l2", spec(8_KiB, 8_KiB), Bandwidth{}, dram, map);
  MemStream s(p, 4096, 64, 0);
  const common::TrafficClass classes[] = {
      common::TrafficClass::kGemmRead, common::TrafficClass::kGemmWrite,
      common::TrafficClass::kRsRead, common::TrafficClass::kRsUpdate,
      common::TrafficClass::kAgWrite};
  uint64_t hits = 0;
  for (int i = 0; i < 40; ++i) {
    Access a;
    a.addr = static_cast<uint64_t>(i) * 6000;
    a.bytes = 3000 + 1000 * static_cast<uint64_t>(i % 7);
    a.cls = classes[i % 5];
    a.cmd =
        a.cls == common::TrafficClass::kRsUpdate
            ? common::MemCmd::kUpdate
            : (a.cls == common::TrafficClass::kGemmWrite || a.cls == common::TrafficClass::kAgWrite
                   ? common::MemCmd::kWrite
                   : common::MemCmd::kRead);
    a.l2_hit = a.cmd == common::MemCmd::kRead && i % 3 == 0;
    if (a.l2_hit) hits += a.bytes;
    s.submit(a);
  }
  sim.run();
  sim.finish();
  EXPECT_EQ(s.pending_accesses(), 0u);
  EXPECT_EQ(p.hit_bytes(), hits);
  uint64_t in = 0;
  uint64_t to_dram = 0;
  for (size_t c = 0; c < common::kNumTrafficClasses; ++c) {
    const auto cls = static_cast<common::TrafficClass>(c);
    EXPECT_EQ(p.bytes_in(cls), p.bytes_out(cls)) << to_string(cls);
    in += p.bytes_in(cls);
    to_dram += dram.bytes[c];
  }
  EXPECT_EQ(to_dram + hits, in);
}

// Records when its requests complete.
class TimedClient final : public common::MemClient {
 public:
  explicit TimedClient(Simulator& sim) : sim_(sim) {}
  void mem_done(const common::MemRequest& /*req*/) override { done.push_back(sim_.now()); }
  void mem_retry() override { ++retries; }
  std::vector<Tick> done;
  int retries = 0;

 private:
  Simulator& sim_;
};

common::MemRequest store(uint64_t addr, uint32_t bytes, common::MemClient* c) {
  common::MemRequest r =
      request(addr, bytes, common::MemCmd::kWrite, false, c, common::TrafficClass::kGemmWrite);
  r.write_back = true;
  return r;
}

TEST(MemPartition, WriteBackStoreCompletesAtTheSliceAndReachesDramLater) {
  Simulator sim;
  FakeDram dram(sim, 10_us, 64);
  TwoChannels map;
  PartitionSpec ps = spec(64_KiB, 64_KiB);
  ps.dirty = 16_KiB;
  MemPartition p(sim, &sim.root(), "l2", ps, Bandwidth{}, dram, map);
  TimedClient c(sim);
  ASSERT_TRUE(p.try_issue(store(0, 4000, &c)));
  sim.run();
  sim.finish();  // every write-back completed (finish throws otherwise)
  ASSERT_EQ(c.done.size(), 1u);
  // 4000 B at 10 GB/s = 400 ns of port, + 100 ns hit latency; the DRAM's 10 us is not waited for.
  EXPECT_EQ(c.done[0], Tick{} + 500_ns);
  EXPECT_EQ(p.buffered_bytes(), 4000u);
  EXPECT_EQ(p.miss_bytes(), 4000u);
  EXPECT_EQ(dram.bytes[static_cast<size_t>(common::TrafficClass::kGemmWrite)], 4000u);
  EXPECT_EQ(p.bytes_in(common::TrafficClass::kGemmWrite), 4000u);
  EXPECT_EQ(p.bytes_out(common::TrafficClass::kGemmWrite), 4000u);
  EXPECT_EQ(p.outstanding(), 0u);
  EXPECT_GE(sim.now(), Tick{} + 10_us);  // the write-back itself still took the DRAM's time
}

TEST(MemPartition, WithoutABufferAWriteBackStoreWaitsForDram) {
  Simulator sim;
  FakeDram dram(sim, 10_us, 64);
  TwoChannels map;
  MemPartition p(sim, &sim.root(), "l2", spec(64_KiB, 64_KiB), Bandwidth{}, dram, map);
  TimedClient c(sim);
  ASSERT_TRUE(p.try_issue(store(0, 4000, &c)));
  sim.run();
  sim.finish();
  ASSERT_EQ(c.done.size(), 1u);
  EXPECT_GE(c.done[0], Tick{} + 10_us);
  EXPECT_EQ(p.buffered_bytes(), 0u);
}

TEST(MemPartition, FullWriteBackBufferHoldsStoresButNotReadsUntilAWriteBackLeaves) {
  Simulator sim;
  FakeDram dram(sim, 1_us, 1);  // one request in flight: the DRAM refuses a second
  TwoChannels map;
  PartitionSpec ps = spec(64_KiB, 64_KiB);
  ps.dirty = 4_KiB;
  MemPartition p(sim, &sim.root(), "l2", ps, Bandwidth{}, dram, map);
  TimedClient read(sim), a(sim), b(sim), hit(sim);
  ASSERT_TRUE(p.try_issue(request(0, 4096, common::MemCmd::kRead, false, &read)));
  ASSERT_TRUE(p.try_issue(store(0, 4096, &a)));      // buffered; its write-back waits for DRAM
  EXPECT_FALSE(p.try_issue(store(8192, 4096, &b)));  // same slice, buffer full
  p.wait_for_space(&b);
  p.wait_for_space(&b);  // a second registration is not a second place
  // The slice itself is open: a hit to it is still served.
  EXPECT_TRUE(p.try_issue(request(8192, 1024, common::MemCmd::kRead, true, &hit)));
  sim.run();
  EXPECT_EQ(read.done.size(), 1u);
  EXPECT_EQ(a.done.size(), 1u);
  EXPECT_EQ(hit.done.size(), 1u);
  EXPECT_EQ(b.retries, 1);  // woken once, when A's write-back left for DRAM at 1 us
  EXPECT_TRUE(b.done.empty());
  ASSERT_TRUE(p.try_issue(store(8192, 4096, &b)));
  sim.run();
  sim.finish();
  EXPECT_EQ(b.done.size(), 1u);
  EXPECT_EQ(dram.bytes[static_cast<size_t>(common::TrafficClass::kGemmWrite)], 8192u);
}

}  // namespace
}  // namespace t3sim::gpu
