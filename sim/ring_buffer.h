// RingBuffer<T>: the FIFO behind the models' hardware queues (HBM read/write queues and completion
// pipeline, L2 slice miss queues and hit completions) and their waiting-client lists. Fidelity:
// storage only. Invariants: FIFO order; the capacity is a power of two; push() on a full ring
// doubles it, which hardware queues never trigger (the controller checks its entry limit first), so
// there is no allocation in steady state. Source: STYLE.md §5 (fixed-capacity ring buffers for
// hardware queues).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace t3sim {

template <class T>
class RingBuffer {
 public:
  RingBuffer() = default;
  explicit RingBuffer(size_t capacity) { reserve(capacity); }

  // Contract: grows the storage to at least `capacity` slots, keeping the contents.
  void reserve(size_t capacity) {
    size_t cap = 1;
    while (cap < capacity) cap <<= 1;
    if (cap <= slots_.size()) return;
    std::vector<T> next(cap);
    for (size_t i = 0; i < size_; ++i) next[i] = std::move(slots_[(head_ + i) & mask_]);
    slots_ = std::move(next);
    head_ = 0;
    mask_ = cap - 1;
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }

  void push(const T& v) {
    if (size_ == slots_.size()) reserve(slots_.empty() ? 4 : slots_.size() * 2);
    slots_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  // Contract: front() and pop() require !empty().
  const T& front() const { return slots_[head_]; }
  T& front() { return slots_[head_]; }
  T pop() {
    T v = std::move(slots_[head_]);
    head_ = (head_ + 1) & mask_;
    --size_;
    return v;
  }
  // i-th oldest element, 0 = front(); requires i < size().
  const T& operator[](size_t i) const { return slots_[(head_ + i) & mask_]; }
  bool contains(const T& v) const {
    for (size_t i = 0; i < size_; ++i) {
      if ((*this)[i] == v) return true;
    }
    return false;
  }

 private:
  std::vector<T> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
  size_t mask_ = 0;
};

}  // namespace t3sim
