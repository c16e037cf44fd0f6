// Time and quantity types of the engine: integer picoseconds, bytes and bytes/s in strong types.
// Fidelity: exact integer math; products use 128-bit intermediates; rounding is explicit (transfer
// times round up, so a link never moves data faster than its rate). No floating-point time
// anywhere. Invariants: Tick is absolute time since t = 0; Duration is a non-negative span; clock
// edge n of a Frequency is floor(n * 1e12 / hz) ps, computed from the cycle index, so there is no
// accumulated drift.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace t3sim {

__extension__ typedef unsigned __int128 U128;  // 128-bit intermediates for rate math

inline constexpr uint64_t kPsPerSecond = 1'000'000'000'000ULL;

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ps(uint64_t v) { return Duration(v); }
  static constexpr Duration ns(uint64_t v) { return Duration(v * 1000); }
  static constexpr Duration us(uint64_t v) { return Duration(v * 1'000'000); }
  static constexpr Duration ms(uint64_t v) { return Duration(v * 1'000'000'000); }
  static constexpr Duration max() { return Duration(std::numeric_limits<uint64_t>::max()); }
  constexpr uint64_t count_ps() const { return ps_; }
  constexpr double to_us() const { return static_cast<double>(ps_) / 1e6; }
  constexpr double to_ns() const { return static_cast<double>(ps_) / 1e3; }
  constexpr double to_s() const { return static_cast<double>(ps_) / 1e12; }
  constexpr auto operator<=>(const Duration&) const = default;
  // Sums and products saturate at max(): a span past 2^64 ps stays past it (the event queue
  // refuses to schedule at Tick::max()) instead of wrapping to a short one.
  constexpr Duration operator+(Duration o) const { return Duration(saturating_add(ps_, o.ps_)); }
  constexpr Duration operator-(Duration o) const { return Duration(ps_ - o.ps_); }
  constexpr Duration operator*(uint64_t k) const {
    uint64_t v = 0;
    return Duration(__builtin_mul_overflow(ps_, k, &v) ? std::numeric_limits<uint64_t>::max() : v);
  }
  constexpr Duration operator/(uint64_t k) const { return Duration(ps_ / k); }
  constexpr Duration& operator+=(Duration o) {
    ps_ = saturating_add(ps_, o.ps_);
    return *this;
  }
  static constexpr uint64_t saturating_add(uint64_t a, uint64_t b) {
    uint64_t v = 0;
    return __builtin_add_overflow(a, b, &v) ? std::numeric_limits<uint64_t>::max() : v;
  }

 private:
  constexpr explicit Duration(uint64_t v) : ps_(v) {}
  uint64_t ps_ = 0;
};

class Tick {
 public:
  constexpr Tick() = default;
  static constexpr Tick from_ps(uint64_t v) { return Tick(v); }
  static constexpr Tick max() { return Tick(std::numeric_limits<uint64_t>::max()); }
  constexpr uint64_t ps() const { return ps_; }
  constexpr double to_us() const { return static_cast<double>(ps_) / 1e6; }
  constexpr auto operator<=>(const Tick&) const = default;
  // Saturates at max() (see Duration).
  constexpr Tick operator+(Duration d) const {
    return Tick(Duration::saturating_add(ps_, d.count_ps()));
  }
  constexpr Duration operator-(Tick o) const { return Duration::ps(ps_ - o.ps_); }
  constexpr Tick& operator+=(Duration d) {
    ps_ = Duration::saturating_add(ps_, d.count_ps());
    return *this;
  }

 private:
  constexpr explicit Tick(uint64_t v) : ps_(v) {}
  uint64_t ps_ = 0;
};

inline constexpr Tick max(Tick a, Tick b) { return a < b ? b : a; }
inline constexpr Duration max(Duration a, Duration b) { return a < b ? b : a; }

// A count of clock cycles; converted to time only through a Frequency.
struct Cycle {
  uint64_t n = 0;
  constexpr auto operator<=>(const Cycle&) const = default;
};

class Frequency {
 public:
  constexpr Frequency() = default;
  static constexpr Frequency hz(uint64_t v) { return Frequency(v); }
  static constexpr Frequency mhz(uint64_t v) { return Frequency(v * 1'000'000); }
  constexpr uint64_t count_hz() const { return hz_; }
  constexpr auto operator<=>(const Frequency&) const = default;
  // Time of clock edge `c` (edge 0 at t = 0): floor(c * 1e12 / hz).
  constexpr Tick edge(Cycle c) const {
    return Tick::from_ps(static_cast<uint64_t>(static_cast<U128>(c.n) * kPsPerSecond / hz_));
  }
  // Duration of `c` cycles starting at edge 0, rounded up.
  constexpr Duration cycles(uint64_t c) const {
    const U128 num = static_cast<U128>(c) * kPsPerSecond;
    return Duration::ps(static_cast<uint64_t>((num + hz_ - 1) / hz_));
  }
  // First edge index at or after time t.
  constexpr Cycle next_edge(Tick t) const {
    const U128 num = static_cast<U128>(t.ps()) * hz_;
    return Cycle{static_cast<uint64_t>((num + kPsPerSecond - 1) / kPsPerSecond)};
  }

 private:
  constexpr explicit Frequency(uint64_t v) : hz_(v) {}
  uint64_t hz_ = 1;
};

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(uint64_t v) : n_(v) {}
  static constexpr Bytes kib(uint64_t v) { return Bytes(v << 10); }
  static constexpr Bytes mib(uint64_t v) { return Bytes(v << 20); }
  static constexpr Bytes gib(uint64_t v) { return Bytes(v << 30); }
  constexpr uint64_t count() const { return n_; }
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes(n_ + o.n_); }
  constexpr Bytes operator-(Bytes o) const { return Bytes(n_ - o.n_); }
  constexpr Bytes operator*(uint64_t k) const { return Bytes(n_ * k); }
  constexpr Bytes operator/(uint64_t k) const { return Bytes(n_ / k); }
  constexpr Bytes& operator+=(Bytes o) {
    n_ += o.n_;
    return *this;
  }
  constexpr Bytes& operator-=(Bytes o) {
    n_ -= o.n_;
    return *this;
  }

 private:
  uint64_t n_ = 0;
};

inline constexpr Bytes min(Bytes a, Bytes b) { return a < b ? a : b; }

// Bytes per second, integer.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bytes_per_s(uint64_t v) { return Bandwidth(v); }
  static constexpr Bandwidth gbps(uint64_t v) { return Bandwidth(v * 1'000'000'000ULL); }
  constexpr uint64_t bytes_per_second() const { return bps_; }
  constexpr double to_gbps() const { return static_cast<double>(bps_) / 1e9; }
  constexpr auto operator<=>(const Bandwidth&) const = default;
  constexpr Bandwidth operator*(uint64_t k) const { return Bandwidth(bps_ * k); }
  constexpr Bandwidth operator/(uint64_t k) const { return Bandwidth(bps_ / k); }
  // Scales by num/den with 128-bit math (efficiency factors expressed as ratios).
  constexpr Bandwidth scaled(uint64_t num, uint64_t den) const {
    return Bandwidth(static_cast<uint64_t>(static_cast<U128>(bps_) * num / den));
  }

 private:
  constexpr explicit Bandwidth(uint64_t v) : bps_(v) {}
  uint64_t bps_ = 0;
};

// Time to move `b` bytes at `bw`, rounded up to the next picosecond, saturated at
// Duration::max() (18.4 MB at 1 B/s is past 2^64 ps). bw must be non-zero.
constexpr Duration transfer_time(Bytes b, Bandwidth bw) {
  const U128 num = static_cast<U128>(b.count()) * kPsPerSecond;
  const uint64_t den = bw.bytes_per_second();
  const U128 ps = (num + den - 1) / den;
  return ps > std::numeric_limits<uint64_t>::max() ? Duration::max()
                                                   : Duration::ps(static_cast<uint64_t>(ps));
}

// Bytes moved in `d` at `bw`, rounded down.
constexpr Bytes bytes_in(Duration d, Bandwidth bw) {
  return Bytes(static_cast<uint64_t>(static_cast<U128>(d.count_ps()) * bw.bytes_per_second() /
                                     kPsPerSecond));
}

// Achieved rate of `b` bytes over `d` (d > 0).
constexpr Bandwidth rate(Bytes b, Duration d) {
  return Bandwidth::bytes_per_s(
      static_cast<uint64_t>(static_cast<U128>(b.count()) * kPsPerSecond / d.count_ps()));
}

namespace literals {
constexpr Duration operator""_ps(unsigned long long v) { return Duration::ps(v); }
constexpr Duration operator""_ns(unsigned long long v) { return Duration::ns(v); }
constexpr Duration operator""_us(unsigned long long v) { return Duration::us(v); }
constexpr Duration operator""_ms(unsigned long long v) { return Duration::ms(v); }
constexpr Bytes operator""_B(unsigned long long v) { return Bytes(v); }
constexpr Bytes operator""_KiB(unsigned long long v) { return Bytes::kib(v); }
constexpr Bytes operator""_MiB(unsigned long long v) { return Bytes::mib(v); }
}  // namespace literals

}  // namespace t3sim
