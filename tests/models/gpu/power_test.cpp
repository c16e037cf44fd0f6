// Tests of the power controller (models/gpu/power.h) on inline specs: its steady clock where the
// power law can be solved by hand, its bounds, and its effect on a GEMM (tests/models/gpu/
// gemm_rig.h): a tighter cap lowers the clock and lengthens a compute-bound GEMM; a cap the GEMM
// never reaches runs it at the boost clock; a format that costs more energy per FLOP runs at a
// lower clock; the matrix_energy key binds per format and refuses unknown formats.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "models/gpu/power.h"
#include "sim/config.h"
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
Duration gemm_time(const PowerSpec* p, double* mean_mhz = nullptr,
                   Precision format = Precision::kFp16) {
  const GpuSpec spec = testing::small_gpu();
  testing::Rig rig(spec, 10_ns, 64, GemmShape{256, 512, 1024, 1, format});
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

TEST(PowerControl, AFormatWithMoreEnergyPerFlopRunsAtALowerClock) {
  // Matrix power alone against the budget, as r^2 (exponent 2): 1.21x the energy per FLOP settles
  // the clock 1.1x lower once the controller has converged; the GEMM takes longer.
  PowerSpec p = spec_with(110, 2.0);
  p.matrix_energy[static_cast<size_t>(Precision::kFp16)] = 1.21;
  double fp16_mhz = 0, bf16_mhz = 0;
  const Duration fp16 = gemm_time(&p, &fp16_mhz, Precision::kFp16);
  const Duration bf16 = gemm_time(&p, &bf16_mhz, Precision::kBf16);
  EXPECT_GT(fp16, bf16);
  EXPECT_NEAR(bf16_mhz / fp16_mhz, 1.1, 0.03);
}

PowerSpec bind_json(const nlohmann::json& energy) {
  nlohmann::json j = {{"cap", 700},
                      {"idle", 90},
                      {"matrix_sm", 5},
                      {"busy_sm", 3},
                      {"dram_pj_per_byte", 17},
                      {"clock_exponent", 2},
                      {"max_clock", "2 GHz"},
                      {"min_clock", "0.8 GHz"}};
  if (!energy.is_null()) j["matrix_energy"] = energy;
  const ConfigDoc doc = config_from_json(j, "<test>");
  return bind_power(ConfigNode::root(doc));
}

TEST(PowerControl, MatrixEnergyBindsPerFormatAndRefusesUnknownOnes) {
  const PowerSpec given = bind_json({{"fp16", 1.1}});
  EXPECT_DOUBLE_EQ(given.matrix_energy_of(Precision::kFp16), 1.1);
  EXPECT_DOUBLE_EQ(given.matrix_energy_of(Precision::kBf16), 1.0);
  const PowerSpec absent = bind_json(nullptr);
  for (const Precision f : kPrecisions) EXPECT_DOUBLE_EQ(absent.matrix_energy_of(f), 1.0);
  EXPECT_THROW(bind_json({{"fp17", 1.1}}), ConfigError);
  EXPECT_THROW(bind_json({{"bf16", 0.0}}), ConfigError);
}

}  // namespace
}  // namespace t3sim::gpu
