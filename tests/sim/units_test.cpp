// Contracts of sim/units.h: clock edges computed from the cycle index (exact floor, no drift),
// transfer times rounded up, bytes moved rounded down, 128-bit intermediates.
#include "sim/units.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "sim/rng.h"

namespace t3sim {
namespace {

using namespace literals;

uint64_t exact_edge_ps(uint64_t n, uint64_t hz) {
  return static_cast<uint64_t>(static_cast<U128>(n) * kPsPerSecond / hz);
}

TEST(Frequency, EdgeOfABillionCyclesAt141GHzIsTheExactFloor) {
  const Frequency f = Frequency::hz(1'410'000'000);
  // floor(1e21 / 1.41e9) = 709219858156.028... ps, computed independently in 128 bits.
  const U128 num = static_cast<U128>(1'000'000'000'000ULL) * 1'000'000'000ULL;
  EXPECT_EQ(static_cast<uint64_t>(num / 1'410'000'000ULL), 709'219'858'156ULL);
  EXPECT_EQ(f.edge(Cycle{1'000'000'000}).ps(), 709'219'858'156ULL);
}

TEST(Frequency, EdgesDoNotDriftUnlikeAccumulatedPeriods) {
  const uint64_t hz = 1'410'000'000;
  const Frequency f = Frequency::hz(hz);
  const uint64_t period_ps = kPsPerSecond / hz;  // 709 ps, 0.028 ps short of the true period
  for (uint64_t n = 1; n <= 1'000'000'000'000ULL; n *= 10) {
    const uint64_t edge = f.edge(Cycle{n}).ps();
    EXPECT_EQ(edge, exact_edge_ps(n, hz)) << "cycle " << n;
    // Within 1 ps of the real-valued n * 1e12 / hz: edge <= exact < edge + 1.
    const U128 scaled = static_cast<U128>(n) * kPsPerSecond;
    EXPECT_LE(static_cast<U128>(edge) * hz, scaled);
    EXPECT_GT(static_cast<U128>(edge + 1) * hz, scaled);
    if (n >= 100) {
      EXPECT_GT(edge - n * period_ps, 0U) << "accumulating would have drifted by now";
    }
  }
  // After 1e9 cycles accumulation is 0.2 ms late; the edge formula is not.
  EXPECT_EQ(f.edge(Cycle{1'000'000'000}).ps() - 1'000'000'000ULL * period_ps, 219'858'156ULL);
}

TEST(Frequency, ConsecutiveEdgesAreOneFlooredPeriodApart) {
  const Frequency f = Frequency::hz(1'410'000'000);
  for (uint64_t n = 0; n < 10'000; ++n) {
    const uint64_t gap = f.edge(Cycle{n + 1}).ps() - f.edge(Cycle{n}).ps();
    EXPECT_TRUE(gap == 709 || gap == 710) << "cycle " << n << " gap " << gap;
  }
}

TEST(Frequency, NextEdgeIsTheFirstEdgeAtOrAfterT) {
  Rng rng(7, "next_edge");
  for (const uint64_t hz : {1'410'000'000ULL, 1'000'000'000ULL, 3ULL, 999'999'937ULL}) {
    const Frequency f = Frequency::hz(hz);
    for (int i = 0; i < 2000; ++i) {
      const Tick t = Tick::from_ps(rng.below(1'000'000'000'000ULL));
      const Cycle c = f.next_edge(t);
      EXPECT_GE(f.edge(c), t);
      if (c.n > 0) {
        EXPECT_LT(f.edge(Cycle{c.n - 1}), t) << "hz " << hz << " t " << t.ps();
      }
    }
    EXPECT_EQ(f.next_edge(f.edge(Cycle{12345})).n, 12345U);
  }
}

TEST(Frequency, CyclesDurationRoundsUp) {
  const Frequency f = Frequency::hz(1'410'000'000);
  EXPECT_EQ(f.cycles(1).count_ps(), 710U);  // 709.22 ps rounds up
  EXPECT_EQ(f.cycles(0).count_ps(), 0U);
  EXPECT_EQ(Frequency::hz(1'000'000'000).cycles(7).count_ps(), 7000U);  // exact stays exact
  EXPECT_EQ(Frequency::mhz(1500).count_hz(), 1'500'000'000U);
}

TEST(TransferTime, RoundsUpToThePicosecond) {
  EXPECT_EQ(transfer_time(Bytes(1), Bandwidth::bytes_per_s(3)).count_ps(), 333'333'333'334ULL);
  EXPECT_EQ(transfer_time(Bytes(1000), Bandwidth::gbps(1)).count_ps(), 1'000'000U);  // exact
  EXPECT_EQ(transfer_time(Bytes(0), Bandwidth::gbps(1)).count_ps(), 0U);
  // 1 B at 900 GB/s = 1.111 ps -> 2 ps.
  EXPECT_EQ(transfer_time(Bytes(1), Bandwidth::gbps(900)).count_ps(), 2U);
}

TEST(TransferTime, Uses128BitIntermediates) {
  // 1e9 B * 1e12 ps/s = 1e21 overflows 64 bits; the result (1/3 s) does not.
  EXPECT_EQ(transfer_time(Bytes(1'000'000'000), Bandwidth::gbps(3)).count_ps(), 333'333'333'334ULL);
  EXPECT_EQ(transfer_time(Bytes::gib(16), Bandwidth::gbps(2000)).count_ps(),
            static_cast<uint64_t>(
                (static_cast<U128>(16ULL << 30) * kPsPerSecond + 2'000'000'000'000ULL - 1) /
                2'000'000'000'000ULL));
}

TEST(BytesIn, RoundsDown) {
  EXPECT_EQ(bytes_in(Duration::ps(999), Bandwidth::gbps(1)).count(), 0U);  // 0.999 B
  EXPECT_EQ(bytes_in(Duration::ps(1000), Bandwidth::gbps(1)).count(), 1U);
  EXPECT_EQ(bytes_in(Duration::ps(1999), Bandwidth::gbps(1)).count(), 1U);
  EXPECT_EQ(bytes_in(Duration::ms(1), Bandwidth::gbps(900)).count(), 900'000'000U);
}

TEST(TransferTime, IsTheShortestTimeThatMovesTheBytes) {
  Rng rng(3, "transfer");
  for (int i = 0; i < 5000; ++i) {
    const Bytes b(1 + rng.below(1ULL << 40));
    const Bandwidth bw = Bandwidth::bytes_per_s(1 + rng.below(4'000'000'000'000ULL));
    const Duration t = transfer_time(b, bw);
    EXPECT_GE(bytes_in(t, bw), b);
    EXPECT_LT(bytes_in(t - Duration::ps(1), bw), b);
  }
}

TEST(Rate, IsBytesOverTime) {
  EXPECT_EQ(rate(Bytes(1'000'000), Duration::us(1)).bytes_per_second(), 1'000'000'000'000ULL);
  EXPECT_EQ(rate(Bytes(3), Duration::ps(2)).bytes_per_second(), 1'500'000'000'000ULL);
}

TEST(Bandwidth, ScaledUsesExactRatios) {
  const Bandwidth bw = Bandwidth::gbps(900);
  EXPECT_EQ(bw.scaled(9, 10).bytes_per_second(), 810'000'000'000ULL);
  // 2^64 - 1 B/s * 3 / 4 needs more than 64 bits in the middle.
  const Bandwidth big = Bandwidth::bytes_per_s(UINT64_MAX);
  EXPECT_EQ(big.scaled(3, 4).bytes_per_second(),
            static_cast<uint64_t>(static_cast<U128>(UINT64_MAX) * 3 / 4));
  EXPECT_DOUBLE_EQ(Bandwidth::gbps(50).to_gbps(), 50.0);
}

TEST(Literals, HaveTheirUnits) {
  EXPECT_EQ((5_ns).count_ps(), 5000U);
  EXPECT_EQ((2_us).count_ps(), 2'000'000U);
  EXPECT_EQ((1_ms).count_ps(), 1'000'000'000U);
  EXPECT_EQ((7_ps).count_ps(), 7U);
  EXPECT_EQ((3_KiB).count(), 3072U);
  EXPECT_EQ((1_MiB).count(), 1U << 20);
  EXPECT_EQ((12_B).count(), 12U);
}

TEST(Tick, ArithmeticWithDurations) {
  const Tick t = Tick::from_ps(100) + 50_ps;
  EXPECT_EQ(t.ps(), 150U);
  EXPECT_EQ((t - Tick::from_ps(40)).count_ps(), 110U);
  Tick u = t;
  u += 1_ns;
  EXPECT_EQ(u.ps(), 1150U);
  EXPECT_EQ(max(t, u), u);
  EXPECT_EQ(max(5_ps, 3_ps), 5_ps);
  EXPECT_LT(Tick::from_ps(1), Tick::max());
  EXPECT_DOUBLE_EQ(Tick::from_ps(2'500'000).to_us(), 2.5);
  EXPECT_DOUBLE_EQ((1500_ps).to_ns(), 1.5);
}

TEST(Bytes, Arithmetic) {
  Bytes b = 1_KiB;
  b += Bytes(24);
  EXPECT_EQ(b.count(), 1048U);
  b -= Bytes(48);
  EXPECT_EQ(b.count(), 1000U);
  EXPECT_EQ((b * 3).count(), 3000U);
  EXPECT_EQ((b / 3).count(), 333U);
  EXPECT_EQ(min(b, 1_KiB), b);
  EXPECT_EQ(Bytes::gib(1).count(), 1ULL << 30);
}

}  // namespace
}  // namespace t3sim
