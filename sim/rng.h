// Seeded random-number streams (xoshiro256**), one per named stream: a stream's sequence depends
// only on the simulator seed and the stream's name, so adding a stream never perturbs another.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/units.h"

namespace t3sim {

class Rng {
 public:
  Rng(uint64_t seed, std::string_view stream);
  uint64_t next();
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; negligible bias for n << 2^64).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<U128>(next()) * n) >> 64);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_[4];
};

}  // namespace t3sim
