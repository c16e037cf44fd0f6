#include "models/hbm/address_map.h"

#include <bit>

namespace t3sim::hbm {

AddressMap::AddressMap(uint32_t channels, uint64_t interleave_bytes)
    : channels_(channels),
      interleave_(interleave_bytes),
      pow2_(std::has_single_bit(channels)),
      field_bits_(8),
      field_mask_(0xff) {
  if (pow2_) {
    // One channel: there is nothing to spread; a 1-bit field keeps fold() well defined.
    field_bits_ = channels > 1 ? static_cast<uint32_t>(std::countr_zero(channels)) : 1;
    field_mask_ = (uint64_t{1} << field_bits_) - 1;
  }
}

}  // namespace t3sim::hbm
