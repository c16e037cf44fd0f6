// Tests of the power controller (models/gpu/power.h) on inline specs: its steady clock where the
// power law can be solved by hand, its bounds, and its effect on a GEMM (tests/models/gpu/
// gemm_rig.h): a tighter cap lowers the clock and lengthens a compute-bound GEMM; a cap the GEMM
// never reaches runs it at the boost clock.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "models/gpu/power.h"
#include "tests/models/gpu/gemm_rig.h"

namespace t3sim::gpu {
namespace {

using namespace t3sim::literals;  // NOLINT(google-build-using-namespace): test literals

PowerSpec spec_with(double cap, double exponent) {
  PowerSpec p;
  p.enabled = true;
  p.cap = Watts{cap};
  p.idle = Watts{100};
  p.matrix_sm = Watts{4};
  p.busy_sm = Watts{5};
  p.dram_pj_per_byte = 20;
  p.clock_exponent = exponent;
  p.max_clock = Frequency::mhz(2000);
  p.min_clock = Frequency::mhz(500);
  p.window = 10_us;
  return p;
}

// Drives a controller for `windows` windows with `busy` non-matrix SMs and DRAM traffic of
// `gbps`, and returns its clock ratio.
struct Driver {
  Driver(const PowerSpec& p, uint32_t busy, double gbps)
      : ctl(
            sim, &sim.root(), "power", p, Frequency::mhz(1000), 1024,
            [this] { return static_cast<uint64_t>(gbps_ * sim.now().to_us() * 1e3); },
            [busy] { return busy; }),
        gbps_(gbps) {}
  double run(int windows) {
    ctl.kernel_started();
    sim.run_until(Tick{} + 10_us * static_cast<uint64_t>(windows));
    ctl.kernel_ended();
    sim.run();
    return ctl.clock_ratio();
  }
  Simulator sim;
  ClockControl ctl;
  double gbps_;
};

TEST(PowerControl, BusySmsSettleWhereTheirPowerMeetsTheCap) {
  // 40 busy SMs at 5 W x r^2 plus 100 W idle under a 400 W cap: r = sqrt(300 / 200).
  Driver d(spec_with(400, 2.0), 40, 0);
  EXPECT_NEAR(d.run(60), std::sqrt(300.0 / 200.0), 1e-3);
}

TEST(PowerControl, DramPowerComesOffTheBudget) {
  // 100 GB/s at 20 pJ/B = 2 W: r = sqrt(298 / 200).
  Driver d(spec_with(400, 2.0), 40, 100);
  EXPECT_NEAR(d.run(60), std::sqrt(298.0 / 200.0), 1e-3);
}

TEST(PowerControl, ClockStaysWithinItsBounds) {
  Driver high(spec_with(5000, 1.0), 10, 0);
  EXPECT_DOUBLE_EQ(high.run(40), 2.0);  // max_clock / reference
  Driver low(spec_with(101, 1.0), 100, 0);
  EXPECT_DOUBLE_EQ(low.run(40), 0.5);  // min_clock / reference
}

TEST(PowerControl, NoKernelNoWindows) {
  Driver d(spec_with(400, 2.0), 40, 0);
  d.sim.run();
  EXPECT_EQ(d.sim.events(), 0u);
  EXPECT_DOUBLE_EQ(d.ctl.clock_ratio(), 1.0);
}

// A compute-bound GEMM (8 tiles on 4 CUs at 1 GHz, short DRAM latency) with a controller.
Duration gemm_time(const PowerSpec* p, double* mean_mhz = nullptr) {
  const GpuSpec spec = testing::small_gpu();
  testing::Rig rig(spec, 10_ns, 64, GemmShape{256, 512, 1024});
  std::unique_ptr<ClockControl> ctl;
  if (p != nullptr) {
    ctl = std::make_unique<ClockControl>(
        rig.sim, &rig.sim.root(), "power", *p, spec.clock, spec.flops_per_cu_cycle,
        [] { return uint64_t{0}; }, [] { return 0u; });
    rig.kernel->set_clock(ctl.get());
  }
  const Duration t = rig.run(4);
  if (mean_mhz != nullptr && ctl) *mean_mhz = ctl->mean_clock_mhz();
  return t;
}

TEST(PowerControl, TighterCapSlowsAComputeBoundGemm) {
  const Duration fixed = gemm_time(nullptr);
  // 4 SMs at full matrix rate draw 16 W at the reference clock: a 110 W cap (10 W budget) pulls
  // the clock down, a 10 kW cap lets it reach the 2 GHz boost.
  const PowerSpec tight = spec_with(110, 1.0);
  const PowerSpec loose = spec_with(10000, 1.0);
  double tight_mhz = 0, loose_mhz = 0;
  const Duration slow = gemm_time(&tight, &tight_mhz);
  const Duration fast = gemm_time(&loose, &loose_mhz);
  EXPECT_GT(slow, fixed);
  EXPECT_LT(fast, fixed);
  EXPECT_LT(tight_mhz, 1000.0);
  EXPECT_GT(loose_mhz, 1000.0);
}

}  // namespace
}  // namespace t3sim::gpu
