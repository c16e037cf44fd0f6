// Tests of the streaming co-runner (models/gpu/copy_kernel.h) on a fake DRAM with a fixed latency:
// bytes moved per pattern, the read-then-write step per chunk, a paced kernel's pauses, and stop().
#include <gtest/gtest.h>

#include "models/gpu/copy_kernel.h"
#include "tests/models/gpu/fakes.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

struct CopyRig {
  explicit CopyRig(const CopyPattern& p)
      : dram(sim, 100_ns, 1024),
        stream(dram, 4096, 1024, 0, p.lanes),
        kernel(sim, &sim.root(), "copy", stream, p, bases(p)) {}
  static std::vector<uint64_t> bases(const CopyPattern& p) {
    std::vector<uint64_t> b;
    for (uint32_t i = 0; i < p.inputs + (p.writes ? 1u : 0u); ++i) b.push_back(i * (1ULL << 30));
    return b;
  }
  Simulator sim;
  testing::FakeDram dram;
  MemStream stream;
  CopyKernel kernel;
};

CopyPattern reduction(uint32_t lanes, uint64_t total) {
  CopyPattern p;
  p.lanes = lanes;
  p.chunk = 4096;  // one transaction
  p.inputs = 2;
  p.array_bytes = total;
  p.total_bytes = total;
  return p;
}

TEST(CopyKernel, ReductionReadsTwoArraysAndWritesOne) {
  CopyRig rig(reduction(2, 64 * 4096));
  rig.kernel.start();
  rig.sim.run();
  ASSERT_TRUE(rig.kernel.done());
  const auto& b = rig.dram.bytes;
  EXPECT_EQ(b[static_cast<size_t>(common::TrafficClass::kRsRead)], 2u * 64 * 4096);
  EXPECT_EQ(b[static_cast<size_t>(common::TrafficClass::kRsWrite)], 64u * 4096);
  EXPECT_EQ(rig.kernel.bytes_moved(), 3u * 64 * 4096);
  // 32 chunks per lane, each a read step then a write step of one DRAM latency.
  EXPECT_EQ(rig.kernel.finished_at() - Tick{}, 100_ns * 64);
}

TEST(CopyKernel, PacedKernelPausesAfterEachChunk) {
  CopyPattern p = reduction(1, 8 * 4096);
  p.pause = 1_us;
  CopyRig rig(p);
  rig.kernel.start();
  rig.sim.run();
  // Each chunk: a read step and a write step of 100 ns, then the 1 us sleep (also after the last).
  EXPECT_EQ(rig.kernel.finished_at() - Tick{}, (100_ns * 2 + 1_us) * 8);
}

TEST(CopyKernel, ReadOnlySweepWritesNothing) {
  CopyPattern p = reduction(4, 16 * 4096);
  p.inputs = 1;
  p.writes = false;
  CopyRig rig(p);
  rig.kernel.start();
  rig.sim.run();
  EXPECT_EQ(rig.dram.bytes[static_cast<size_t>(common::TrafficClass::kRsWrite)], 0u);
  EXPECT_EQ(rig.kernel.bytes_moved(), 16u * 4096);
}

TEST(CopyKernel, UnboundedKernelRunsUntilStopped) {
  CopyPattern p = reduction(2, 16 * 4096);
  p.total_bytes = 0;
  CopyRig rig(p);
  bool ended = false;
  rig.kernel.on_done([&] { ended = true; });
  rig.kernel.start();
  rig.sim.run_until(Tick{} + 10_us);
  EXPECT_FALSE(rig.kernel.done());
  rig.kernel.stop();
  rig.sim.run();
  EXPECT_TRUE(rig.kernel.done());
  EXPECT_TRUE(ended);
  // 10 us of 200 ns steps on 2 lanes: about 100 chunks of 3 x 4 KiB, more than the arrays.
  EXPECT_GT(rig.kernel.bytes_moved(), 3u * 16 * 4096);
}

}  // namespace
}  // namespace t3sim::gpu
