// Parsing and printing of dimensioned quantities: "1.4 GHz", "500 ns", "150 GB/s", "16 MiB".
// Decimal prefixes are powers of 10 (GB = 1e9 B), binary prefixes powers of 2 (GiB = 2^30 B);
// "Gb/s" and "Gbps" are bits. Parsing is exact decimal arithmetic (no binary floating point),
// rounding to the nearest integer base unit. A bare number without a unit is rejected for
// dimensioned values. Contract: parse_* throw UnitError (message says what was expected); format_*
// output parses back to the same value (round trip).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/units.h"

namespace t3sim {

class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

Duration parse_duration(std::string_view text);
Frequency parse_frequency(std::string_view text);
Bytes parse_bytes(std::string_view text);
Bandwidth parse_bandwidth(std::string_view text);

std::string format_duration(Duration d);
std::string format_frequency(Frequency f);
std::string format_bytes(Bytes b);
std::string format_bandwidth(Bandwidth bw);

}  // namespace t3sim
