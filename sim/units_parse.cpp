#include "sim/units_parse.h"

#include <array>
#include <cctype>
#include <cstdint>
#include <string>

namespace t3sim {
namespace {

using u128 = U128;

struct UnitScale {
  std::string_view name;
  u128 num;  // value in base units = number * num / den
  u128 den;
};

constexpr u128 pow10(int e) {
  u128 v = 1;
  for (int i = 0; i < e; ++i) v *= 10;
  return v;
}

constexpr std::array kDurationUnits{
    UnitScale{"ps", 1, 1},        UnitScale{"ns", 1000, 1},
    UnitScale{"us", pow10(6), 1}, UnitScale{"\xC2\xB5s", pow10(6), 1},
    UnitScale{"ms", pow10(9), 1}, UnitScale{"s", pow10(12), 1}};
constexpr std::array kFrequencyUnits{UnitScale{"Hz", 1, 1}, UnitScale{"kHz", 1000, 1},
                                     UnitScale{"MHz", pow10(6), 1}, UnitScale{"GHz", pow10(9), 1}};
constexpr std::array kByteUnits{UnitScale{"B", 1, 1},
                                UnitScale{"KB", 1000, 1},
                                UnitScale{"MB", pow10(6), 1},
                                UnitScale{"GB", pow10(9), 1},
                                UnitScale{"TB", pow10(12), 1},
                                UnitScale{"KiB", 1ULL << 10, 1},
                                UnitScale{"MiB", 1ULL << 20, 1},
                                UnitScale{"GiB", 1ULL << 30, 1},
                                UnitScale{"TiB", 1ULL << 40, 1}};
constexpr std::array kBandwidthUnits{
    UnitScale{"B/s", 1, 1},          UnitScale{"KB/s", 1000, 1},
    UnitScale{"MB/s", pow10(6), 1},  UnitScale{"GB/s", pow10(9), 1},
    UnitScale{"TB/s", pow10(12), 1}, UnitScale{"KiB/s", 1 << 10, 1},
    UnitScale{"MiB/s", 1 << 20, 1},  UnitScale{"GiB/s", 1 << 30, 1},
    UnitScale{"Mb/s", pow10(6), 8},  UnitScale{"Gb/s", pow10(9), 8},
    UnitScale{"Gbps", pow10(9), 8},  UnitScale{"Tb/s", pow10(12), 8}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

template <size_t N>
std::string unit_list(const std::array<UnitScale, N>& units) {
  std::string out;
  for (const auto& u : units) {
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

constexpr int kMaxDigits = 25;      // significant digits of the number
constexpr int kMaxFracDigits = 24;  // digits after the decimal point

// Parses "<decimal> <unit>" exactly and returns the value in base units (rounded to nearest).
template <size_t N>
uint64_t parse_quantity(std::string_view text, const std::array<UnitScale, N>& units,
                        const char* what) {
  const std::string_view s = trim(text);
  size_t i = 0;
  u128 mantissa = 0;
  int frac_digits = 0;
  bool seen_dot = false;
  bool any_digit = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      // Bounds keep mantissa * scale (scale <= 1e12) and 10^frac_digits * 8 inside 128 bits.
      if (mantissa >= pow10(kMaxDigits) || (seen_dot && frac_digits == kMaxFracDigits)) {
        throw UnitError(std::string(what) + " '" + std::string(s) + "' has too many digits");
      }
      mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
      any_digit = true;
      if (seen_dot) ++frac_digits;
    } else if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else if (c == '_' || c == '\'') {
      continue;
    } else {
      break;
    }
  }
  const std::string_view unit = trim(s.substr(i));
  const std::string expected = "expected a " + std::string(what) + " like '" +
                               std::string(units[units.size() > 3 ? 3 : 0].name) +
                               "' with a unit (one of " + unit_list(units) + ")";
  if (!any_digit) throw UnitError("'" + std::string(s) + "' is not a " + what + ": " + expected);
  if (unit.empty()) throw UnitError("bare number '" + std::string(s) + "': " + expected);
  for (const auto& u : units) {
    if (u.name != unit) continue;
    const u128 num = mantissa * u.num;
    const u128 den = pow10(frac_digits) * u.den;
    const u128 v = (num + den / 2) / den;
    if (v > std::numeric_limits<uint64_t>::max()) {
      throw UnitError(std::string(what) + " '" + std::string(s) + "' overflows 64 bits");
    }
    return static_cast<uint64_t>(v);
  }
  throw UnitError("unknown unit '" + std::string(unit) + "' in '" + std::string(s) +
                  "': " + expected);
}

// Prints v (base units) in the largest unit that divides it exactly; if none but the base unit
// does, in the largest decimal unit not above v, with an exact decimal fraction.
template <size_t N>
std::string format_quantity(uint64_t v, const std::array<UnitScale, N>& units) {
  const UnitScale* exact = &units[0];
  const UnitScale* decimal = &units[0];
  for (const auto& u : units) {
    if (u.den != 1 || u.name == "\xC2\xB5s" || v < u.num) continue;
    if (v % u.num == 0 && u.num > exact->num) exact = &u;
    const bool is_decimal = (u.num == 1 || u.num % 10 == 0);
    if (is_decimal && u.num > decimal->num) decimal = &u;
  }
  const UnitScale* best = exact->num > 1 ? exact : decimal;
  std::string out = std::to_string(static_cast<uint64_t>(v / best->num));
  u128 rem = v % best->num;
  if (rem != 0) {
    out += ".";
    for (u128 scale = best->num; rem != 0 && scale > 1;) {
      scale /= 10;
      out += static_cast<char>('0' + static_cast<int>(rem / scale));
      rem %= scale;
    }
  }
  return out + " " + std::string(best->name);
}

}  // namespace

Duration parse_duration(std::string_view t) {
  return Duration::ps(parse_quantity(t, kDurationUnits, "duration"));
}
Frequency parse_frequency(std::string_view t) {
  const uint64_t hz = parse_quantity(t, kFrequencyUnits, "frequency");
  if (hz == 0) throw UnitError("frequency '" + std::string(trim(t)) + "' must be positive");
  return Frequency::hz(hz);
}
Bytes parse_bytes(std::string_view t) { return Bytes(parse_quantity(t, kByteUnits, "size")); }
Bandwidth parse_bandwidth(std::string_view t) {
  return Bandwidth::bytes_per_s(parse_quantity(t, kBandwidthUnits, "bandwidth"));
}

std::string format_duration(Duration d) { return format_quantity(d.count_ps(), kDurationUnits); }
std::string format_frequency(Frequency f) { return format_quantity(f.count_hz(), kFrequencyUnits); }
std::string format_bytes(Bytes b) { return format_quantity(b.count(), kByteUnits); }
std::string format_bandwidth(Bandwidth bw) {
  return format_quantity(bw.bytes_per_second(), kBandwidthUnits);
}

}  // namespace t3sim
