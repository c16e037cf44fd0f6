// SlotPool<T>: a growable array of T slots addressed by a uint32_t index, with a free list, for the
// in-flight records of a model (memory transactions, DMA descriptors, fabric messages, WGs, cache
// nodes). acquire() hands out the most recently released slot (LIFO) or, when none is free, a new
// slot at the end; so a given sequence of acquire/release calls always yields the same indices.
// Once the pool has reached its high-water mark, acquire and release allocate nothing. A released
// slot keeps its old value until it is reused: acquire(value) assigns, acquire() does not.
// Contract: indices stay valid until released; references are invalidated only when the pool grows.
// Releasing an index that is not in use is a ModelError (double release, or a foreign index).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/errors.h"

namespace t3sim {

template <typename T>
class SlotPool {
 public:
  SlotPool() = default;
  // A pool of `slots` free slots; acquire() then hands them out as 0, 1, 2, ...
  explicit SlotPool(uint32_t slots) { reset(slots); }

  // Drops every slot, then creates `slots` free ones handed out in index order.
  void reset(uint32_t slots) {
    slots_.assign(slots, T{});
    in_use_.assign(slots, 0);
    free_.clear();
    free_.reserve(slots);
    for (uint32_t s = slots; s > 0; --s) free_.push_back(s - 1);
    live_ = 0;
  }

  // A free slot's index (its value is left as it was: default-constructed or last released).
  uint32_t acquire() {
    uint32_t s = 0;
    if (free_.empty()) {
      s = grow();
    } else {
      s = free_.back();
      free_.pop_back();
    }
    in_use_[s] = 1;
    ++live_;
    return s;
  }

  // A free slot's index, with `value` stored in it.
  uint32_t acquire(T value) {
    const uint32_t s = acquire();
    slots_[s] = std::move(value);
    return s;
  }

  // Returns slot `s` to the free list; the next acquire() hands it out again.
  void release(uint32_t s) {
    if (s >= slots_.size() || in_use_[s] == 0) bad_release(s);
    in_use_[s] = 0;
    --live_;
    free_.push_back(s);
  }

  T& operator[](uint32_t s) { return slots_[s]; }
  const T& operator[](uint32_t s) const { return slots_[s]; }
  bool in_use(uint32_t s) const { return s < slots_.size() && in_use_[s] != 0; }

  uint32_t live() const { return live_; }                                      // in use
  uint32_t size() const { return static_cast<uint32_t>(slots_.size()); }       // ever made
  uint32_t free_count() const { return static_cast<uint32_t>(free_.size()); }  // reusable

 private:
  // A new slot at the end (out of line: acquire() stays small enough to inline).
  [[gnu::noinline]] uint32_t grow() {
    if (slots_.size() >= std::numeric_limits<uint32_t>::max()) {
      throw ModelError("slot_pool", "more than 2^32 - 1 slots in use");
    }
    slots_.emplace_back();
    in_use_.push_back(0);
    free_.reserve(slots_.capacity());  // so release() never allocates
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  // Out of line, so that release() stays small enough to inline.
  [[noreturn, gnu::noinline, gnu::cold]] void bad_release(uint32_t s) const {
    throw ModelError("slot_pool", "release of slot " + std::to_string(s) + " that is not in use (" +
                                      std::to_string(slots_.size()) + " slots)");
  }
  std::vector<T> slots_;
  std::vector<uint8_t> in_use_;  // 1 while a slot is handed out
  std::vector<uint32_t> free_;   // released slots; the back is reused first
  uint32_t live_ = 0;
};

}  // namespace t3sim
