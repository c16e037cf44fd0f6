// DMA engines: the window is a size (bytes in flight per engine), so the chunk is a granularity
// alone. One engine copies a buffer from GPU 0 to GPU 1 over a fabric whose latency dominates, so
// the copy takes about (bytes / window) round trips whatever the chunk.
#include "models/gpu/dma_engine.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/models/gpu/fakes.h"

namespace t3sim::gpu::testing {
namespace {

// Delivers every message after a fixed latency, with no bandwidth limit.
class LatencyFabric final : public common::FabricApi {
 public:
  LatencyFabric(Simulator& sim, Duration latency) : sim_(sim), latency_(latency) {}
  int num_gpus() const override { return 2; }
  void send(int, int, Bytes, common::FabricReceiver* rx, uint64_t tag) override {
    msgs_.push_back({rx, tag});
    sim_.call_at<LatencyFabric, &LatencyFabric::arrive>(sim_.now() + latency_, this,
                                                        msgs_.size() - 1);
  }
  Bandwidth path_bandwidth(int, int) const override { return Bandwidth::gbps(1000); }
  Duration path_latency(int, int) const override { return latency_; }
  int hops(int, int) const override { return 1; }

 private:
  struct Msg {
    common::FabricReceiver* rx;
    uint64_t tag;
  };
  void arrive(uint64_t i) { msgs_[i].rx->delivered(msgs_[i].tag); }
  Simulator& sim_;
  Duration latency_;
  std::vector<Msg> msgs_;
};

class Done final : public AccessDone {
 public:
  explicit Done(Simulator& sim) : sim_(sim) {}
  void access_done(uint64_t) override { at = sim_.now(); }
  Tick at{};

 private:
  Simulator& sim_;
};

// Microseconds one engine takes to copy `bytes` with this chunk and window.
double copy_us(Bytes chunk, Bytes window, uint64_t bytes) {
  Simulator sim;
  FakeDram src(sim, 10_ns, 1024), dst(sim, 10_ns, 1024);
  LatencyFabric fabric(sim, 10_us);
  RemoteMemory remote(sim, &sim.root(), "remote", fabric, {&src, &dst}, 4096, 1024);
  MemStream reads(src, 4096, 1024, 0);
  const DmaSpec spec{1, Bandwidth::gbps(100000), Duration::ns(0), chunk, window};
  DmaEngines dma(sim, &sim.root(), "dma", 0, spec, reads, remote);
  Done done(sim);
  DmaDescriptor d;
  d.dst_gpu = 1;
  d.bytes = bytes;
  d.done = &done;
  dma.submit(d);
  sim.run();
  EXPECT_EQ(dma.outstanding(), 0U);
  return done.at.to_us();
}

TEST(DmaEngine, HalvingTheChunkKeepsTheBytesInFlight) {
  const double coarse = copy_us(Bytes::kib(32), Bytes::kib(64), 512 * 1024);
  const double fine = copy_us(Bytes::kib(16), Bytes::kib(64), 512 * 1024);
  const double finer = copy_us(Bytes::kib(8), Bytes::kib(64), 512 * 1024);
  EXPECT_GT(coarse, 75.0);  // 8 round trips of 10 us: the window, not the chunk, sets the pace
  EXPECT_NEAR(fine / coarse, 1.0, 0.02);
  EXPECT_NEAR(finer / coarse, 1.0, 0.02);
}

TEST(DmaEngine, DoublingTheWindowHalvesALatencyBoundCopy) {
  const double narrow = copy_us(Bytes::kib(32), Bytes::kib(64), 512 * 1024);
  const double wide = copy_us(Bytes::kib(32), Bytes::kib(128), 512 * 1024);
  EXPECT_NEAR(wide / narrow, 0.5, 0.02);
}

TEST(DmaEngine, AChunkLargerThanTheWindowStillMovesOneAtATime) {
  const double t = copy_us(Bytes::kib(32), Bytes::kib(16), 128 * 1024);
  EXPECT_GT(t, 40.0);  // 4 chunks, one in flight at a time
  EXPECT_LT(t, 45.0);
}

TEST(DmaEngine, TheWindowIsASize) {
  const Params p = dma_params();
  ASSERT_NE(p.find("window"), nullptr);
  EXPECT_EQ(p.find("window")->kind, ParamKind::kBytes);
}

}  // namespace
}  // namespace t3sim::gpu::testing
