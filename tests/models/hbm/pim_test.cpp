// Bank fidelity with a PIM unit ("nmc_timing": "pim"): an NMC UPDATE holds its bank for ACT +
// column reads + ALU + column writes + tWR, reads to that bank wait for it and reads to other
// banks do not, UPDATEs to one bank serialise, two banks share one ALU, and without the unit the
// bandwidth model holds.
#include <gtest/gtest.h>

#include "hbm_test_util.h"
#include "sim/errors.h"

namespace t3sim::hbm {
namespace {

using common::MemCmd;
using common::TrafficClass;
using testing::make_hbm;
using testing::TimedSource;

// One channel at 32 GB/s (64 B = 2 ns), no refresh derate, 16 banks of 2 KiB rows (bank b's row 0
// holds channel bytes [b x 2 KiB, +2 KiB)), Appendix A's 1 GHz timing (tRCD 14, tCCD 1 per 32 B,
// tWR 12, tWTR 6 ns). PIM: one ALU per bank pair, 32 B per cycle at 250 MHz (4 ns), 1 stage deep:
// a 64 B chunk takes the ALU for 2 cycles and leaves it after 3 (12 ns).
nlohmann::json pim(nlohmann::json over = {}) {
  nlohmann::json j = {{"stacks", 1},
                      {"channels_per_stack", 1},
                      {"bandwidth", "32 GB/s"},
                      {"efficiency", 1.0},
                      {"interleave", "32 KiB"},
                      {"read_queue", "64 KiB"},
                      {"write_queue", "64 KiB"},
                      {"nmc_bandwidth", "64 GB/s"},
                      {"fidelity", "bank"},
                      {"tRFC", "0 ns"},
                      {"write_low_watermark", 0.0},
                      {"nmc_timing", "pim"},
                      {"pim_banks_per_alu", 2},
                      {"pim_alu_width", "32 B"},
                      {"pim_alu_clock", "250 MHz"},
                      {"pim_alu_pipeline_cycles", 1}};
  for (auto it = over.begin(); it != over.end(); ++it) j[it.key()] = it.value();
  return j;
}
constexpr uint64_t kBank = 2048;  // first byte of bank 1's row 0
Tick at_ns(uint64_t ns) { return Tick{} + Duration::ns(ns); }

// UPDATE at 0 to bank 0's closed row: ACT 0, columns from 14; operand on the bus 14..16, old data
// read 14..16, ALU 16..28, written back 28..30 (done at 130), bank held to 30 + tWR = 42.
TEST(HbmPim, UpdateHoldsItsBankAndAReadBehindItWaits) {
  Simulator sim;
  auto hbm = make_hbm(sim, pim());
  TimedSource r(sim, *hbm);
  r.at(Tick{}, 0, 64, MemCmd::kUpdate, TrafficClass::kRsUpdate);
  r.at(at_ns(20), 64, 64, MemCmd::kRead, TrafficClass::kGemmRead);  // same bank and row
  sim.run();
  sim.finish();
  ASSERT_EQ(r.done().size(), 2u);
  EXPECT_EQ(r.done()[0].tag, 0u);
  EXPECT_EQ(r.done()[0].at, at_ns(14 + 2 + 12 + 2 + 100));
  // tRCD + reads + ALU + writes + tWR = 42: the row hit's data moves 42..44, + 100 ns latency.
  EXPECT_EQ(r.done()[1].at, at_ns(14 + 2 + 12 + 2 + 12 + 2 + 100));
  EXPECT_EQ(hbm->counters().activations.value(), 1u);
}

// The same READ to bank 1 only waits for the bus turnaround (16 + tWTR = 22), ACT 22, data 36..38.
TEST(HbmPim, AReadToAnotherBankDoesNotWait) {
  Simulator sim;
  auto hbm = make_hbm(sim, pim());
  TimedSource r(sim, *hbm);
  r.at(Tick{}, 0, 64, MemCmd::kUpdate, TrafficClass::kRsUpdate);
  r.at(at_ns(20), kBank, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  sim.run();
  sim.finish();
  ASSERT_EQ(r.done().size(), 2u);
  EXPECT_EQ(r.done()[0].tag, 0u);
  EXPECT_EQ(r.done()[0].at, at_ns(130));
  EXPECT_EQ(r.done()[1].at, at_ns(22 + 14 + 2 + 100));
}

// Three UPDATEs to bank 0's row: each waits for the one before to clear tWR; period = reads 2 +
// ALU 12 + writes 2 + tWR 12 = 28 ns.
TEST(HbmPim, UpdatesToOneBankSerialise) {
  Simulator sim;
  auto hbm = make_hbm(sim, pim());
  TimedSource r(sim, *hbm);
  for (uint64_t i = 0; i < 3; ++i)
    r.at(Tick{}, i * 64, 64, MemCmd::kUpdate, TrafficClass::kRsUpdate);
  sim.run();
  sim.finish();
  ASSERT_EQ(r.done().size(), 3u);
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.done()[i].tag, i);
    EXPECT_EQ(r.done()[i].at, at_ns(130 + 28 * i));
  }
}

// Banks 0 and 1 share ALU 0: bank 1's row is opened ahead (ACT 4, tRRD), its operand and old data
// move 18..20, and it takes the ALU at 24, when bank 0's chunk has issued its 2 cycles (16..24);
// written back 36..38. Bank 2 has an ALU of its own: it takes it at 20, written back 32..34.
TEST(HbmPim, NeighbouringBanksShareOneAlu) {
  const auto second_done = [](uint64_t addr) {
    Simulator sim;
    auto hbm = make_hbm(sim, pim());
    TimedSource r(sim, *hbm);
    r.at(Tick{}, 0, 64, MemCmd::kUpdate, TrafficClass::kRsUpdate);
    r.at(Tick{}, addr, 64, MemCmd::kUpdate, TrafficClass::kRsUpdate);
    sim.run();
    sim.finish();
    EXPECT_EQ(r.done().size(), 2u);
    return r.done().back().at;
  };
  EXPECT_EQ(second_done(kBank), at_ns(24 + 12 + 2 + 100));
  EXPECT_EQ(second_done(2 * kBank), at_ns(20 + 12 + 2 + 100));
}

// Without the PIM unit ("nmc_timing" absent) the RMW runs at 64 GB/s / 16 banks = 4 GB/s after
// the operand (16 ns + 16 ns for 64 B) and the row-hit READ behind it does not wait for it.
TEST(HbmPim, WithoutThePimUnitTheBandwidthModelHolds) {
  nlohmann::json j = pim();
  for (const char* k : {"nmc_timing", "pim_banks_per_alu", "pim_alu_width", "pim_alu_clock",
                        "pim_alu_pipeline_cycles"}) {
    j.erase(k);
  }
  Simulator sim;
  auto hbm = make_hbm(sim, j);
  TimedSource r(sim, *hbm);
  r.at(Tick{}, 0, 64, MemCmd::kUpdate, TrafficClass::kRsUpdate);
  r.at(at_ns(20), 64, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  sim.run();
  sim.finish();
  ASSERT_EQ(r.done().size(), 2u);
  EXPECT_EQ(r.done()[0].tag, 1u);
  EXPECT_EQ(r.done()[0].at, at_ns(22 + 2 + 100));  // bus turnaround only
  EXPECT_EQ(r.done()[1].at, at_ns(16 + 16 + 100));
}

TEST(HbmPim, AluSharingMustDivideTheBanks) {
  Simulator sim;
  try {
    make_hbm(sim, pim({{"pim_banks_per_alu", 3}}));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("pim_banks_per_alu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace t3sim::hbm
