// Timing contracts of the HBM model: unloaded latency, saturation bandwidth, turnaround cost,
// request-size convergence.
#include <gtest/gtest.h>

#include <vector>

#include "hbm_test_util.h"

namespace t3sim::hbm {
namespace {

using common::MemCmd;
using common::TrafficClass;
using testing::make_hbm;
using testing::Requester;

TEST(HbmTiming, SingleRequestCompletesAtTransferPlusLatency) {
  Simulator sim;
  auto hbm = make_hbm(sim);
  Requester r(sim, *hbm);
  r.add(0x1000, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  r.add(0x40000, 4096, MemCmd::kRead, TrafficClass::kGemmRead);  // another channel
  r.pump();
  sim.run();
  sim.finish();
  const Bandwidth ch = hbm->config().channel_bandwidth();
  EXPECT_EQ(ch.bytes_per_second(), 28'125'000'000u);  // 1 TB/s x 0.9 / 32
  ASSERT_EQ(r.done().size(), 2u);
  EXPECT_EQ(r.done()[0].at, Tick{} + transfer_time(Bytes(64), ch) + Duration::ns(100));
  EXPECT_EQ(r.done()[1].at, Tick{} + transfer_time(Bytes(4096), ch) + Duration::ns(100));
  EXPECT_NE(hbm->channel_of(0x1000), hbm->channel_of(0x40000));
}

// Many requesters streaming reads: achieved bandwidth within 3 % of peak x efficiency.
Tick stream_reads(uint32_t request_bytes, double* achieved_gbps) {
  Simulator sim;
  auto hbm = make_hbm(sim);
  std::vector<std::unique_ptr<Requester>> rs;
  constexpr uint64_t kRegion = 2u << 20;
  for (int i = 0; i < 64; ++i) {
    rs.push_back(std::make_unique<Requester>(sim, *hbm, 16));
    rs.back()->stream(i * kRegion, kRegion, request_bytes, MemCmd::kRead, TrafficClass::kGemmRead);
  }
  for (auto& r : rs) r->pump();
  sim.run();
  sim.finish();
  Tick end{};
  for (auto& r : rs) end = max(end, r->last_done());
  EXPECT_EQ(hbm->total_bytes(), 64 * kRegion);
  EXPECT_EQ(hbm->bytes(TrafficClass::kGemmRead), 64 * kRegion);
  *achieved_gbps = static_cast<double>(hbm->total_bytes()) / end.to_us() / 1e3;
  return end;
}

TEST(HbmTiming, StreamingReadsSaturateAtPeakTimesEfficiency) {
  double gbps = 0;
  stream_reads(4096, &gbps);
  RecordProperty("achieved_gbps", std::to_string(gbps));
  EXPECT_NEAR(gbps, 900.0, 900.0 * 0.03);
}

TEST(HbmTiming, HalvingRequestSizeMovesStreamingTimeLessThanTwoPercent) {
  double a = 0;
  double b = 0;
  const Tick full = stream_reads(4096, &a);
  const Tick half = stream_reads(2048, &b);
  const double rel = std::abs(full.to_us() - half.to_us()) / full.to_us();
  RecordProperty("relative_change", std::to_string(rel));
  EXPECT_LT(rel, 0.02);
}

// One channel at 32 GB/s: a 4 KiB transfer takes exactly 128 ns.
nlohmann::json one_channel() {
  return {{"stacks", 1},
          {"channels_per_stack", 1},
          {"bandwidth", "32 GB/s"},
          {"efficiency", 1.0},
          {"nmc_bandwidth", "64 GB/s"}};
}

TEST(HbmTiming, WriteDrainWatermarksGiveExactlyTwoTurnarounds) {
  Simulator sim;
  nlohmann::json cfg = one_channel();
  cfg["write_queue"] = "64 KiB";      // 16 x 4 KiB
  cfg["write_high_watermark"] = 0.5;  // drain at >= 8 writes
  cfg["write_low_watermark"] = 0.25;  // stop at <= 4 writes while reads wait
  auto hbm = make_hbm(sim, cfg);
  Requester r(sim, *hbm);
  for (int i = 0; i < 12; ++i) r.add(i * 4096, 4096, MemCmd::kWrite, TrafficClass::kGemmWrite);
  for (int i = 0; i < 10; ++i) r.add(i * 4096, 4096, MemCmd::kRead, TrafficClass::kGemmRead);
  r.pump();
  sim.run();
  // Service order: 8 writes (12 -> 4), 10 reads, 4 writes: two direction changes.
  ASSERT_EQ(r.done().size(), 22u);
  std::vector<MemCmd> order;
  for (const auto& d : r.done()) order.push_back(d.cmd);
  for (int i = 0; i < 22; ++i) {
    EXPECT_EQ(order[i], (i >= 8 && i < 18) ? MemCmd::kRead : MemCmd::kWrite) << i;
  }
  EXPECT_EQ(hbm->counters().turnarounds.value(), 2u);
  EXPECT_EQ(r.last_done(), Tick{} + Duration::ns(22 * 128 + 2 * 10 + 100));
}

// One requester alternating READ and WRITE (64 outstanding): reads go first while writes pile up;
// write mode starts when the reads run out and lasts until the writes fall to the low watermark:
// batches of writes, two turnarounds per batch. The bus is busy all the time except for the
// turnarounds, so the run takes exactly N transfers + turnarounds x turnaround + latency.
TEST(HbmTiming, MixedReadWriteStreamLosesExactlyTheTurnarounds) {
  Simulator sim;
  auto hbm = make_hbm(sim, one_channel());
  Requester r(sim, *hbm, 64);
  constexpr int kN = 2048;
  for (int i = 0; i < kN; ++i) {
    r.add(i * 4096ull, 4096, i % 2 ? MemCmd::kWrite : MemCmd::kRead, TrafficClass::kGemmRead);
  }
  r.pump();
  sim.run();
  uint64_t changes = 0;  // completion order = service order on one channel
  for (size_t i = 1; i < r.done().size(); ++i) changes += r.done()[i].cmd != r.done()[i - 1].cmd;
  // A write drain can preempt a read at a burst boundary (and the read resumes after the drain),
  // so the bus may turn more often than the completion order shows.
  const uint64_t turns = hbm->counters().turnarounds.value();
  EXPECT_GE(turns, changes);
  EXPECT_LE(turns, changes + changes / 100 + 2);
  EXPECT_GE(changes, 10u);
  const Tick expect = Tick{} + Duration::ns(kN * 128 + turns * 10 + 100);
  EXPECT_EQ(r.last_done(), expect);
  const double gbps = kN * 4096.0 / expect.to_us() / 1e3;
  RecordProperty("turnarounds", std::to_string(changes));
  RecordProperty("mixed_gbps", std::to_string(gbps));
  EXPECT_LT(gbps, 32.0);
}

}  // namespace
}  // namespace t3sim::hbm
