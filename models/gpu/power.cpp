#include "models/gpu/power.h"

#include <algorithm>
#include <cmath>

#include "models/gpu/gpu_spec.h"
#include "sim/simulator.h"

namespace t3sim::gpu {
namespace {

// The controller averages the activity it sees over recent windows (an exponential average with
// this weight per window, a time constant of about four windows) before it sets the clock, as
// the GPU's power management averages its power readings: wave-by-wave bursts of a GEMM do not
// swing the clock. Chosen by t3sim.
constexpr double kSmoothing = 0.25;

}  // namespace

Params power_params() {
  Params p;
  p.required("cap", ParamKind::kReal, "board power limit in W the controller holds")
      .range(1, 100000);
  p.required("idle", ParamKind::kReal, "board power in W with nothing running").range(0, 100000);
  p.required("matrix_sm", ParamKind::kReal,
             "W of one SM issuing matrix work at its full rate, at gpu.clock")
      .range(0, 1000);
  p.required("busy_sm", ParamKind::kReal,
             "W of one SM running a non-matrix kernel (copy, reduction, spin), at gpu.clock")
      .range(0, 1000);
  p.required("dram_pj_per_byte", ParamKind::kReal, "DRAM energy per byte moved, pJ")
      .range(0, 10000);
  p.required("clock_exponent", ParamKind::kReal,
             "dynamic power grows as clock^exponent at fixed activity per cycle")
      .range(0.1, 4);
  p.required("max_clock", ParamKind::kFrequency, "highest SM clock (boost)");
  p.required("min_clock", ParamKind::kFrequency, "lowest SM clock the controller sets");
  p.optional("window", ParamKind::kDuration, "10 us", "control period (fidelity knob)")
      .range(1e3, 1e12);
  p.optional("matrix_energy", ParamKind::kObject, nullptr,
             "energy per matrix FLOP by operand format, relative to the format matrix_sm was "
             "measured with: {fp16, bf16, tf32, fp32, fp8}, each 1 unless given");
  return p;
}

namespace {

Params matrix_energy_params() {
  Params p;
  for (const Precision f : kPrecisions) {
    p.optional(
         std::string(to_string(f)), ParamKind::kReal, 1.0,
         "energy per " + std::string(to_string(f)) + " matrix FLOP relative to matrix_sm's format")
        .range(0.05, 20);
  }
  return p;
}

}  // namespace

PowerSpec bind_power(const ConfigNode& node) {
  const BoundParams b = bind(power_params(), node);
  PowerSpec s;
  s.enabled = true;
  s.cap = Watts{b.real("cap")};
  s.idle = Watts{b.real("idle")};
  s.matrix_sm = Watts{b.real("matrix_sm")};
  s.busy_sm = Watts{b.real("busy_sm")};
  s.dram_pj_per_byte = b.real("dram_pj_per_byte");
  s.clock_exponent = b.real("clock_exponent");
  s.max_clock = b.frequency("max_clock");
  s.min_clock = b.frequency("min_clock");
  s.window = b.duration("window");
  if (b.present("matrix_energy")) {
    const BoundParams e = bind(matrix_energy_params(), b.node("matrix_energy"));
    for (const Precision f : kPrecisions) {
      s.matrix_energy[static_cast<size_t>(f)] = e.real(std::string(to_string(f)));
    }
  }
  if (s.idle.value >= s.cap.value) node.fail_key("idle", "power.idle must be below power.cap");
  if (s.min_clock > s.max_clock) {
    node.fail_key("min_clock", "power.min_clock must not exceed power.max_clock");
  }
  return s;
}

ClockControl::ClockControl(Simulator& sim, Component* parent, std::string name,
                           const PowerSpec& spec, Frequency reference, uint32_t flops_per_sm_cycle,
                           std::function<uint64_t()> dram_bytes, std::function<uint32_t()> busy_sms)
    : Component(sim, parent, std::move(name)),
      spec_(spec),
      ref_mhz_(static_cast<double>(reference.count_hz()) * 1e-6),
      joule_per_flop_(spec.matrix_sm.value / (std::max<uint32_t>(1, flops_per_sm_cycle) *
                                              static_cast<double>(reference.count_hz()))),
      dram_bytes_(std::move(dram_bytes)),
      busy_sms_(std::move(busy_sms)) {
  stats().add("windows", windows_, "count", "power control windows run");
  stats().add_formula(
      "mean_clock_mhz", [this] { return mean_clock_mhz(); }, "MHz",
      "SM clock averaged over the control windows");
  stats().add_formula(
      "mean_power_w", [this] { return mean_power_w(); }, "W",
      "board power averaged over the control windows");
}

Duration ClockControl::scale(Duration at_reference) const {
  return Duration::ps(
      static_cast<uint64_t>(std::ceil(static_cast<double>(at_reference.count_ps()) / ratio_)));
}

double ClockControl::mean_clock_mhz() const {
  return time_ > 0 ? ref_mhz_ * clock_time_ / time_ : ref_mhz_ * ratio_;
}

double ClockControl::mean_power_w() const { return time_ > 0 ? energy_ / time_ : 0.0; }

void ClockControl::integrate() {
  flops_ += rate_ * static_cast<double>((now() - rate_since_).count_ps()) * 1e-12;
  rate_since_ = now();
}

void ClockControl::matrix_begin(double flops_per_s) {
  integrate();
  rate_ += flops_per_s;
}

void ClockControl::matrix_end(double flops_per_s) {
  integrate();
  rate_ = std::max(0.0, rate_ - flops_per_s);
}

void ClockControl::kernel_started() {
  ++kernels_;
  if (ticking_) return;
  ticking_ = true;
  integrate();
  flops_ = 0;
  dram_seen_ = dram_bytes_();
  sim().call_at<ClockControl, &ClockControl::tick>(now() + spec_.window, this, 0);
}

void ClockControl::kernel_ended() {
  if (kernels_ > 0) --kernels_;
}

// Board power at clock ratio r for a window whose matrix rate (FLOP/s at the current clock) and
// busy SMs stay as they were per cycle: matrix energy per FLOP grows as r^(exponent - 1), so
// matrix power as r^exponent once the rate follows the clock.
double ClockControl::power_at(double r, double flops_per_s, double busy, double dram_w) const {
  const double g = spec_.clock_exponent;
  const double matrix = joule_per_flop_ * flops_per_s * std::pow(r, g - 1.0);
  const double sms = spec_.busy_sm.value * busy * std::pow(r, g);
  return spec_.idle.value + matrix + sms + dram_w;
}

void ClockControl::tick(uint64_t) {
  windows_.inc();
  const double w = static_cast<double>(spec_.window.count_ps()) * 1e-12;
  const uint64_t dram = dram_bytes_();
  const double dram_w = spec_.dram_pj_per_byte * 1e-12 * static_cast<double>(dram - dram_seen_) / w;
  dram_seen_ = dram;
  integrate();
  const double rate = flops_ / w;
  flops_ = 0;
  const double busy = static_cast<double>(busy_sms_());
  const double p = power_at(ratio_, rate, busy, dram_w);
  energy_ += p * w;
  clock_time_ += ratio_ * w;
  time_ += w;
  // What the GPU does per cycle (matrix FLOPs per unit of clock ratio, busy SMs, DRAM power),
  // averaged over recent windows, and the clock at which that activity draws the cap: matrix
  // and busy-SM power both grow as ratio^exponent (power_at).
  const double sample[3] = {rate / ratio_, busy, dram_w};
  for (int i = 0; i < 3; ++i) {
    avg_[i] = windows_.value() == 1 ? sample[i] : avg_[i] + kSmoothing * (sample[i] - avg_[i]);
  }
  const double per_ratio = joule_per_flop_ * avg_[0] + spec_.busy_sm.value * avg_[1];
  const double budget = spec_.cap.value - spec_.idle.value - avg_[2];
  const double hi = static_cast<double>(spec_.max_clock.count_hz()) * 1e-6 / ref_mhz_;
  const double lo = static_cast<double>(spec_.min_clock.count_hz()) * 1e-6 / ref_mhz_;
  double target = hi;
  if (per_ratio > 0) {
    target = budget <= 0 ? lo : std::pow(budget / per_ratio, 1.0 / spec_.clock_exponent);
  }
  ratio_ = std::clamp(target, lo, hi);
  if (kernels_ > 0) {
    sim().call_at<ClockControl, &ClockControl::tick>(now() + spec_.window, this, 0);
  } else {
    ticking_ = false;
  }
}

}  // namespace t3sim::gpu
