// SHA-256 (FIPS 180-4) of a byte string, for the input records of a calibration: a fitted preset
// names each measurement file with its size and digest so the fit can be traced to exact bytes.
// Contract: returns 64 lower-case hex digits; pure function.
#pragma once

#include <string>

namespace t3sim::validation {

std::string sha256_hex(const std::string& data);

}  // namespace t3sim::validation
