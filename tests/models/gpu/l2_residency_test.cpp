// Tests of the L2 that other traffic shares with a GEMM (models/gpu/l2_residency.h and the foreign
// entries of l2_cache.h): allocating traffic ages the GEMM's slices out in LRU order, evict-first
// traffic holds one granule whatever its volume, the residency passes on only communication that
// allocates, and a GEMM beside an allocating copy kernel re-reads its inputs from DRAM while an
// evict-first copy leaves them in place.
#include <gtest/gtest.h>

#include "models/gpu/copy_kernel.h"
#include "models/gpu/l2_residency.h"
#include "tests/models/gpu/gemm_rig.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

struct NoWaiter : SliceWaiter {
  void slice_ready(uint32_t, uint32_t, bool) override {}
};

// A 1 MiB cache (64 KiB granules) filled with 16 slices of 64 KiB, slice 0 the least recent.
SliceCache full_cache() {
  SliceCache c(1_MiB, 16, 0);
  NoWaiter w;
  for (uint32_t id = 0; id < 16; ++id) {
    EXPECT_EQ(c.lookup(id, 64 * 1024, 0), SliceCache::Lookup::kMiss);
    c.filled(id, w);
  }
  return c;
}

TEST(L2Foreign, AllocatingTrafficEvictsTheLeastRecentSlices) {
  SliceCache c = full_cache();
  ASSERT_EQ(c.granule(), 64u * 1024);
  c.foreign(3 * 64 * 1024, false);
  EXPECT_EQ(c.displaced_bytes(), 3u * 64 * 1024);
  EXPECT_EQ(c.used_bytes(), 1u << 20);
  EXPECT_EQ(c.lookup(0, 64 * 1024, 0), SliceCache::Lookup::kMiss);  // aged out
  EXPECT_EQ(c.lookup(2, 64 * 1024, 0), SliceCache::Lookup::kMiss);
  EXPECT_EQ(c.lookup(3, 64 * 1024, 0), SliceCache::Lookup::kReady);  // survived
}

TEST(L2Foreign, EvictFirstTrafficHoldsOneGranuleWhateverItsVolume) {
  SliceCache c = full_cache();
  c.foreign(64u << 20, true);  // 64 MiB streamed past a 1 MiB cache
  EXPECT_EQ(c.displaced_bytes(), 64u * 1024);
  EXPECT_EQ(c.lookup(0, 64 * 1024, 0), SliceCache::Lookup::kMiss);
  for (uint32_t id = 1; id < 16; ++id) {
    EXPECT_EQ(c.lookup(id, 64 * 1024, 0), SliceCache::Lookup::kReady) << id;
  }
}

TEST(L2Foreign, BytesShortOfAGranuleWaitForMore) {
  SliceCache c = full_cache();
  c.foreign(64 * 1024 - 1, false);
  EXPECT_EQ(c.displaced_bytes(), 0u);
  c.foreign(1, false);
  EXPECT_EQ(c.displaced_bytes(), 64u * 1024);
}

common::MemRequest request(common::TrafficClass cls, common::MemCmd cmd,
                           common::L2Policy p = common::L2Policy::kDefault) {
  common::MemRequest r;
  r.bytes = 64 * 1024;
  r.cls = cls;
  r.cmd = cmd;
  r.l2 = p;
  return r;
}

TEST(L2Residency, OnlyCommunicationThatAllocatesTakesCapacity) {
  using common::MemCmd;
  using common::TrafficClass;
  SliceCache c = full_cache();
  L2Residency l2(common::L2Policy::kAllocate);
  l2.attach(&c);
  l2.passed(request(TrafficClass::kGemmRead, MemCmd::kRead));    // the GEMM's own
  l2.passed(request(TrafficClass::kGemmWrite, MemCmd::kWrite));  // its output stores
  l2.passed(request(TrafficClass::kRsUpdate, MemCmd::kUpdate));  // performed at the memory
  l2.passed(request(TrafficClass::kAgRead, MemCmd::kRead, common::L2Policy::kNoAllocate));
  common::MemRequest hit = request(TrafficClass::kRsRead, MemCmd::kRead);
  hit.l2_hit = true;
  l2.passed(hit);
  EXPECT_EQ(c.displaced_bytes(), 0u);
  EXPECT_EQ(l2.allocated_bytes(), 0u);
  l2.passed(request(TrafficClass::kRsWrite, MemCmd::kWrite));
  EXPECT_EQ(l2.allocated_bytes(), 64u * 1024);
  EXPECT_EQ(c.displaced_bytes(), 64u * 1024);
  l2.detach(&c);
  l2.passed(request(TrafficClass::kRsWrite, MemCmd::kWrite));
  EXPECT_EQ(c.displaced_bytes(), 64u * 1024);  // detached: no longer charged
}

TEST(L2Residency, TheGpuPolicyAppliesToRequestsWithoutTheirOwn) {
  SliceCache c = full_cache();
  L2Residency l2(common::L2Policy::kEvictFirst);
  l2.attach(&c);
  for (int i = 0; i < 100; ++i) {
    l2.passed(request(common::TrafficClass::kAgWrite, common::MemCmd::kWrite));
  }
  EXPECT_EQ(l2.evict_first_bytes(), 100u * 64 * 1024);
  EXPECT_EQ(c.displaced_bytes(), 64u * 1024);
  l2.passed(
      request(common::TrafficClass::kAgWrite, common::MemCmd::kWrite, common::L2Policy::kAllocate));
  EXPECT_EQ(l2.allocated_bytes(), 64u * 1024);
}

// A GEMM whose inputs (4 MiB) fit its 8 MiB L2, beside a two-lane copy kernel that streams 32 MiB
// (four times the L2) through the same memory partition while the GEMM runs.
uint64_t gemm_reads_beside_copy(bool with_copy, bool evict_first) {
  GpuSpec spec = testing::small_gpu();
  spec.l2 = 8_MiB;
  testing::Rig rig(spec, 100_ns, 1024, GemmShape{1024, 1024, 1024});
  rig.kernel->set_l2_residency(&rig.part.residency());
  MemStream copy_stream(rig.part, 4096, 1024, 0, 2);
  CopyPattern p;
  p.lanes = 2;
  p.chunk = 64 * 1024;
  p.array_bytes = 32u << 20;
  p.total_bytes = 32u << 20;
  p.evict_first = evict_first;
  CopyKernel copy(rig.sim, &rig.sim.root(), "copy", copy_stream, p, {1ULL << 32, 1ULL << 33});
  if (with_copy) copy.start();
  rig.run(4);
  EXPECT_TRUE(rig.kernel->finished());
  EXPECT_EQ(copy.done(), with_copy);
  return rig.kernel->dram_read_bytes();
}

TEST(L2Residency, AnAllocatingCopyEvictsTheGemmsInputsAndAnEvictFirstOneDoesNot) {
  const uint64_t alone = gemm_reads_beside_copy(false, false);
  const uint64_t allocating = gemm_reads_beside_copy(true, false);
  const uint64_t evict_first = gemm_reads_beside_copy(true, true);
  EXPECT_EQ(alone, 4u << 20);  // compulsory: A and B once
  EXPECT_GT(allocating, alone + alone / 4);
  EXPECT_LE(evict_first, alone + alone / 20);
}

}  // namespace
}  // namespace t3sim::gpu
