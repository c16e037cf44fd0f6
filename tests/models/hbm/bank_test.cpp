// Bank fidelity: row hit / closed / conflict timing, FR-FCFS row-hit priority, row locality in
// achieved bandwidth, in-bank NMC UPDATEs that free the bus, and MCA preemption across banks.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "hbm_test_util.h"

namespace t3sim::hbm {
namespace {

using common::MemCmd;
using common::TrafficClass;
using testing::make_hbm;
using testing::Requester;
using testing::TimedSource;

// One channel at 32 GB/s (64 B = 2 ns, 2 KiB = 64 ns), no refresh derate, 16 banks of 2 KiB rows
// (row r of bank b holds channel bytes [(r x 16 + b) x 2 KiB, +2 KiB)), Appendix A's 1 GHz timing.
nlohmann::json banked(nlohmann::json over = {}) {
  nlohmann::json j = {{"stacks", 1},
                      {"channels_per_stack", 1},
                      {"bandwidth", "32 GB/s"},
                      {"efficiency", 1.0},
                      {"interleave", "32 KiB"},
                      {"read_queue", "64 KiB"},
                      {"write_queue", "64 KiB"},
                      {"nmc_bandwidth", "64 GB/s"},
                      {"fidelity", "bank"},
                      {"tRFC", "0 ns"}};
  for (auto it = over.begin(); it != over.end(); ++it) j[it.key()] = it.value();
  return j;
}
constexpr uint64_t kRow1Bank0 = 16 * 2048;

TEST(HbmBank, ClosedHitAndConflictTiming) {
  Simulator sim;
  auto hbm = make_hbm(sim, banked());
  Requester r(sim, *hbm);
  r.add(0, 64, MemCmd::kRead, TrafficClass::kGemmRead);           // closed: ACT 0, data 14..16
  r.add(64, 64, MemCmd::kRead, TrafficClass::kGemmRead);          // hit: data 16..18
  r.add(kRow1Bank0, 64, MemCmd::kRead, TrafficClass::kGemmRead);  // conflict: PRE at tRAS 33,
  r.pump();                                                       // ACT 47, data 61..63
  sim.run();
  sim.finish();
  ASSERT_EQ(r.done().size(), 3u);
  EXPECT_EQ(r.done()[0].at, Tick{} + Duration::ns(116));
  EXPECT_EQ(r.done()[1].at, Tick{} + Duration::ns(118));
  EXPECT_EQ(r.done()[2].at, Tick{} + Duration::ns(163));
  EXPECT_EQ(hbm->counters().activations.value(), 2u);
  // Only the second finds its row open (look-ahead never closes a row an earlier request needs).
  EXPECT_EQ(hbm->counters().row_hits.value(), 1u);
}

TEST(HbmBank, FrFcfsServesARowHitBeforeAnOlderMiss) {
  Simulator sim;
  auto hbm = make_hbm(sim, banked());
  TimedSource gemm(sim, *hbm);
  TimedSource comm(sim, *hbm);
  gemm.at(Tick{}, 0, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  comm.at(Tick{} + Duration::ns(1), kRow1Bank0, 64, MemCmd::kRead, TrafficClass::kRsRead);
  gemm.at(Tick{} + Duration::ns(2), 128, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  sim.run();
  ASSERT_EQ(gemm.done().size(), 2u);
  ASSERT_EQ(comm.done().size(), 1u);
  EXPECT_EQ(gemm.done()[1].at, Tick{} + Duration::ns(118));  // the younger hit first
  EXPECT_EQ(comm.done()[0].at, Tick{} + Duration::ns(163));  // then the older conflict
}

double read_gbps(bool sequential) {
  Simulator sim;
  auto hbm = make_hbm(sim, banked());
  Requester r(sim, *hbm, 256);  // 16 KiB in flight: not window-bound
  std::mt19937_64 rng(1);
  for (int i = 0; i < 4000; ++i) {
    const uint64_t addr = sequential ? i * 64ull : (rng() % 65536) * 2048 + (rng() % 32) * 64;
    r.add(addr, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  }
  r.pump();
  sim.run();
  return 4000.0 * 64 / r.last_done().to_us() / 1e3;
}

TEST(HbmBank, RowLocalityDecidesAchievedBandwidth) {
  const double seq = read_gbps(true);
  const double rnd = read_gbps(false);
  RecordProperty("sequential_gbps", std::to_string(seq));
  RecordProperty("random_gbps", std::to_string(rnd));
  EXPECT_GT(seq, 32.0 * 0.95);  // activations hide behind the previous row's transfer
  EXPECT_LT(rnd, 32.0 * 0.8);   // every access opens a row: tRRD / tRC bound
}

TEST(HbmBank, NmcUpdateRunsInTheBankAndFreesTheBus) {
  Simulator sim;
  // Low watermark 0: the write drain is not cut short by the arriving read.
  auto hbm = make_hbm(sim, banked({{"write_low_watermark", 0.0}}));
  TimedSource r(sim, *hbm);
  r.at(Tick{}, 0, 2048, MemCmd::kUpdate, TrafficClass::kRsUpdate);  // ACT 0, data 14..78
  r.at(Tick{} + Duration::ns(20), 2048, 64, MemCmd::kRead, TrafficClass::kGemmRead);  // bank 1
  sim.run();
  sim.finish();
  ASSERT_EQ(r.done().size(), 2u);
  // The read waits only for the bus: tWTR 6 ns after 78, ACT 84, data 98..100, + 100 ns.
  EXPECT_EQ(r.done()[0].tag, 1u);
  EXPECT_EQ(r.done()[0].at, Tick{} + Duration::ns(200));
  // The RMW runs at 64 GB/s / 16 banks = 4 GB/s: 512 ns after the data, + 100 ns latency.
  EXPECT_EQ(r.done()[1].at, Tick{} + Duration::ns(78 + 512 + 100));
  EXPECT_EQ(hbm->counters().bus_busy_ps.value(), (64 + 2) * 1000u);
}

TEST(HbmBank, McaComputePreemptsCommunicationAcrossBanks) {
  Simulator sim;
  auto hbm = make_hbm(sim, banked({{"policy", "mca"}, {"mca_mode", "static"}}));
  TimedSource comm(sim, *hbm);
  TimedSource gemm(sim, *hbm);
  comm.at(Tick{}, 0, 32768, MemCmd::kRead, TrafficClass::kRsRead);  // 16 chunks, ~1 us
  gemm.at(Tick{} + Duration::ns(200), 40960, 2048, MemCmd::kRead, TrafficClass::kGemmRead);
  sim.run();
  sim.finish();
  ASSERT_EQ(gemm.done().size(), 1u);
  ASSERT_EQ(comm.done().size(), 1u);
  EXPECT_LT(gemm.done()[0].at, Tick{} + Duration::ns(200 + 64 + 100 + 60));
  EXPECT_GT(comm.done()[0].at, gemm.done()[0].at);
  EXPECT_EQ(hbm->bytes(TrafficClass::kRsRead), 32768u);
}

}  // namespace
}  // namespace t3sim::hbm
