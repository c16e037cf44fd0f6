#include "models/hbm/address_map.h"

#include <bit>

namespace t3sim::hbm {

AddressMap::AddressMap(uint32_t channels, uint64_t interleave_bytes)
    : channels_(channels),
      interleave_(interleave_bytes),
      pow2_(std::has_single_bit(channels)),
      field_bits_(8),
      field_mask_(0xff) {
  if (std::has_single_bit(interleave_bytes)) interleave_shift_ = std::countr_zero(interleave_bytes);
  if (pow2_) {
    channel_shift_ = static_cast<uint32_t>(std::countr_zero(channels));
    // One channel: there is nothing to spread; a 1-bit field keeps fold() well defined.
    field_bits_ = channels > 1 ? channel_shift_ : 1;
    field_mask_ = (uint64_t{1} << field_bits_) - 1;
  } else {
    reciprocal_ = ~uint64_t{0} / channels + 1;  // ceil(2^64 / C) for C not a power of two
  }
}

}  // namespace t3sim::hbm
