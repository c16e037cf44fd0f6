// Tests of the memory-partition front end (models/gpu/mem_partition.h) with a fake DRAM: a full
// slice refuses hits too and wakes its waiter once; the other slice keeps serving; the event-free
// hit booking obeys the same rule; hits share the port bandwidth; a DRAM that refuses fills the
// miss queue and blocks the slice; bytes in = bytes out per traffic class, DRAM bytes = misses.
#include "models/gpu/mem_partition.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace t3sim::gpu
