// FNV-1a, 64 bit: a stable digest of a byte string (the same on every platform and run), for
// naming random streams and fingerprinting inputs. Not for security.
#pragma once

#include <cstdint>
#include <string_view>

namespace t3sim {

constexpr uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace t3sim
