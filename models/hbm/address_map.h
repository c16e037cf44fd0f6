// AddressMap: byte address -> HBM channel. Fidelity: channel selection only (the model is
// channel-level: no bank/row bits). Addresses are cut into `interleave`-byte blocks; consecutive
// blocks go to consecutive channels, skewed by an XOR-fold of the higher block bits so that
// power-of-two strides (one channel under plain modulo) spread over every channel.
// Invariants: a block maps to one channel; each aligned run of C blocks (C = channels) covers every
// channel once. Speed: a power-of-two interleave is a shift and the division by C a multiply by a
// precomputed reciprocal (exact for block numbers below 2^32; larger ones divide). Source: XOR
// channel hashing of GPU memory partitions (the idea; the fold is t3sim's, t3-paper.md §9 item 1).
#pragma once

#include <cstdint>

#include "sim/units.h"

namespace t3sim::hbm {

// b = addr / interleave, q = b / C:
//   C a power of two:  ch = (b mod C) XOR fold(q)      (fold = XOR of the log2(C)-bit fields of q)
//   otherwise:         ch = (b mod C + fold(q)) mod C  (fold = XOR of the 8-bit fields of q)
class AddressMap {
 public:
  // Contract: channels >= 1 and interleave_bytes >= 1.
  AddressMap(uint32_t channels, uint64_t interleave_bytes);

  uint32_t channel(uint64_t addr) const {
    const uint64_t b = block(addr);
    if (pow2_) {
      return static_cast<uint32_t>(((b & (channels_ - 1)) ^ fold(b >> channel_shift_)) &
                                   (channels_ - 1));
    }
    const uint64_t q = divide(b);
    const uint64_t low = b - q * channels_;
    return static_cast<uint32_t>(low + fold(q)) % channels_;
  }
  // Block index of an address (requests must stay inside one block).
  uint64_t block(uint64_t addr) const {
    return interleave_shift_ >= 0 ? addr >> interleave_shift_ : addr / interleave_;
  }
  uint64_t interleave() const { return interleave_; }
  uint32_t channels() const { return channels_; }

 private:
  uint64_t fold(uint64_t q) const {
    uint64_t h = 0;
    for (; q != 0; q >>= field_bits_) h ^= q & field_mask_;
    return h;
  }
  // b / channels_ (Lemire et al., "Faster remainder by direct computation", 2019: exact for
  // 32-bit numerators with the 64-bit reciprocal ceil(2^64 / C)).
  uint64_t divide(uint64_t b) const {
    if (b >> 32 != 0) return b / channels_;
    return static_cast<uint64_t>((static_cast<U128>(reciprocal_) * b) >> 64);
  }
  uint32_t channels_;
  uint64_t interleave_;
  bool pow2_;
  int interleave_shift_ = -1;   // log2(interleave) when it is a power of two
  uint32_t channel_shift_ = 0;  // log2(channels) when it is a power of two
  uint64_t reciprocal_ = 0;     // ceil(2^64 / channels) (channels > 1, not a power of two)
  uint32_t field_bits_;
  uint64_t field_mask_;
};

}  // namespace t3sim::hbm
