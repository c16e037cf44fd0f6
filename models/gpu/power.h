// Power and clocks of one GPU. Board power is summed from what the GPU does in a control window:
// idle power, matrix work (FLOPs issued, at an energy per FLOP that grows with the clock and
// depends on the operand format: wider significands switch more multiplier bits per FLOP), SMs busy
// with non-matrix kernels (collective channels, copy or reduction kernels, spinning kernels) and
// DRAM bytes moved (energy per byte). A controller holds that power under the board's cap by
// setting the SM clock once per window, as the GPU's power management does; matrix phases that
// start after a change run at the new clock (the clock scales matrix compute only: L2, HBM and
// links keep their rates). Contract: a GEMM kernel calls kernel_started() when its first phase
// may run and kernel_ended() after its last; the controller ticks only while one is running, so
// a run without GEMMs schedules no events. The clock starts at the GPU preset's clock, the
// sustained clock of the preset's calibration; the real controller's time constant (tens of ms)
// is not modelled: each window sets the clock at which the activity of recent windows (averaged)
// would draw exactly the cap, which stands for the steady state a training or inference loop
// reaches. Presets without a
// "power" object run at their fixed clock and build no controller.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/gpu/gemm_plan.h"
#include "sim/component.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/stats.h"
#include "sim/units.h"

namespace t3sim::gpu {

struct Watts {
  double value = 0;
};

struct PowerSpec {
  bool enabled = false;
  Watts cap;        // board power limit the controller holds
  Watts idle;       // board power with nothing running (leakage, fans, HBM refresh)
  Watts matrix_sm;  // one SM issuing matrix work at its full rate, at the reference clock
  Watts busy_sm;    // one SM running a non-matrix kernel, at the reference clock
  double dram_pj_per_byte = 0;  // DRAM + PHY energy per byte moved
  double clock_exponent = 1;    // dynamic power ~ clock^exponent at fixed activity per cycle
  Frequency max_clock;          // boost clock: the controller never goes above it
  Frequency min_clock;
  Duration window;  // control period
  // Energy per matrix FLOP of each operand format relative to the format matrix_sm was measured
  // with, indexed by Precision (1 where the preset gives none).
  std::vector<double> matrix_energy = std::vector<double>(std::size(kPrecisions), 1.0);
  double matrix_energy_of(Precision p) const { return matrix_energy[static_cast<size_t>(p)]; }
};

Params power_params();
PowerSpec bind_power(const ConfigNode& node);

class ClockControl : public Component {
 public:
  // `reference`: the GPU preset's clock, at which matrix phase times are computed;
  // `flops_per_sm_cycle`: the dense matrix rate; `dram_bytes`: bytes the GPU's DRAM has moved so
  // far; `busy_sms`: SMs now held by non-matrix kernels.
  ClockControl(Simulator& sim, Component* parent, std::string name, const PowerSpec& spec,
               Frequency reference, uint32_t flops_per_sm_cycle,
               std::function<uint64_t()> dram_bytes, std::function<uint32_t()> busy_sms);
  // A matrix time computed at the reference clock, at the current clock.
  Duration scale(Duration at_reference) const;
  // A matrix phase starts (`flops_per_s` at the current clock, weighted by energy_weight() of its
  // format) or ends (the same rate again): matrix energy is integrated over time from the running
  // phases' summed rate.
  void matrix_begin(double flops_per_s);
  void matrix_end(double flops_per_s);
  double energy_weight(Precision p) const { return spec_.matrix_energy_of(p); }
  void kernel_started();
  void kernel_ended();
  double clock_ratio() const { return ratio_; }  // current clock / reference
  double mean_clock_mhz() const;                 // time-weighted over the windows run
  double mean_power_w() const;

 private:
  void tick(uint64_t unused);
  double power_at(double ratio, double flops_per_s, double busy, double dram_w) const;

  PowerSpec spec_;
  double ref_mhz_;
  double joule_per_flop_;  // at the reference clock
  std::function<uint64_t()> dram_bytes_;
  std::function<uint32_t()> busy_sms_;
  double ratio_ = 1.0;
  void integrate();
  double flops_ = 0;   // FLOPs of the current window so far
  double rate_ = 0;    // FLOP/s of the phases running now
  Tick rate_since_{};  // when flops_ was last brought up to date
  uint64_t dram_seen_ = 0;
  int kernels_ = 0;
  bool ticking_ = false;
  Counter windows_;
  double avg_[3] = {0, 0, 0};  // averaged matrix FLOP/s per clock ratio, busy SMs, DRAM W
  double clock_time_ = 0;      // sum of ratio x window seconds
  double time_ = 0;            // seconds of windows run
  double energy_ = 0;          // joules over the windows run
};

}  // namespace t3sim::gpu
