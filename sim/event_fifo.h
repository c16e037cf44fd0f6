// Storage of the event queue's buckets: FIFO lists of 24-byte entries, the first held inline and
// the others in 1 KiB blocks that come from, and go back to, one free list per queue. A bucket
// emptied by the queue returns its blocks at once, so the blocks that buckets fill next are the
// ones just read: the queue's memory stays about the size of its pending entries and hot in cache.
// Contract: a FIFO yields its entries in push order; moving a whole FIFO copies at most its inline
// entry; a FIFO's blocks belong to the pool it was filled from, which must outlive its use.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace t3sim {

class Event;

// One scheduling of an event: its tick, (band << 56) | sequence, and the event.
struct QueueEntry {
  uint64_t tick;
  uint64_t order;
  Event* ev;
};

class EntryBlockPool {
 public:
  static constexpr uint32_t kEntries = 42;  // 8 + 42 * 24 = 1016 bytes
  struct Block {
    Block* next;  // beside the first entries: a block holding one entry is one cache line
    QueueEntry entries[kEntries];
  };

  Block* take() {
    if (free_ == nullptr) [[unlikely]]
      grow();
    Block* b = free_;
    free_ = b->next;
    b->next = nullptr;
    return b;
  }
  void give(Block* b) {
    b->next = free_;
    free_ = b;
  }

 private:
  void grow() {
    constexpr size_t kChunk = 64;
    chunks_.push_back(std::make_unique<Block[]>(kChunk));
    for (size_t i = 0; i < kChunk; ++i) give(&chunks_.back()[i]);
  }
  std::vector<std::unique_ptr<Block[]>> chunks_;
  Block* free_ = nullptr;
};

// A FIFO of entries: the first one pushed into the empty FIFO held inline (a bucket of one entry,
// the common case, takes no block), the others in blocks, pushed at the tail and read from the head
// (read_ entries of the head block gone).
class EntryFifo {
 public:
  using Block = EntryBlockPool::Block;
  static constexpr uint32_t kEntries = EntryBlockPool::kEntries;

  bool empty() const { return !has_first_ && head_ == nullptr; }
  // True if the FIFO holds exactly one entry.
  bool single() const {
    return has_first_ ? head_ == nullptr : head_ == tail_ && used_ == read_ + 1;
  }
  // True if the FIFO holds at most 1 + kEntries entries (its inline one and one block).
  bool at_most_one_block() const { return head_ == tail_; }
  const QueueEntry& front() const { return has_first_ ? first_ : head_->entries[read_]; }

  // Returns true if the FIFO was empty.
  bool push(const QueueEntry& e, EntryBlockPool& pool) {
    if (used_ != kEntries) [[likely]] {
      tail_->entries[used_++] = e;
      return false;
    }
    if (empty()) {
      first_ = e;
      has_first_ = true;
      return true;
    }
    push_to_new_block(e, pool);
    return false;
  }
  void pop_front(EntryBlockPool& pool) {
    if (has_first_) {
      has_first_ = false;
      return;
    }
    ++read_;
    if (read_ == (head_ == tail_ ? used_ : kEntries)) [[unlikely]]
      drop_head(pool);
  }
  // If the FIFO holds just its inline entry: moves it to `out`, leaving the FIFO empty.
  bool take_lone(QueueEntry& out) {
    if (!has_first_ || head_ != nullptr) return false;
    out = first_;
    *this = EntryFifo{};
    return true;
  }
  // Moves every entry of `from` (left empty) into this empty FIFO.
  void take_all(EntryFifo& from) {
    *this = from;
    from = EntryFifo{};
  }
  // Calls f(entry) for each entry in order.
  template <class F>
  void for_each(F&& f) const {
    if (has_first_) f(first_);
    for (Block* b = head_; b != nullptr; b = b->next) {
      const uint32_t end = b == tail_ ? used_ : kEntries;
      for (uint32_t i = b == head_ ? read_ : 0; i < end; ++i) f(b->entries[i]);
    }
  }
  // Calls f(entry) for each entry in order, returning each block to the pool once read; the FIFO is
  // left empty before the first call, so f may push to it again. Always inlined (see refill()).
  template <class F>
  [[gnu::always_inline]] void drain(EntryBlockPool& pool, F&& f) {
    const EntryFifo list = *this;
    *this = EntryFifo{};
    if (list.has_first_) f(list.first_);
    Block* b = list.head_;
    uint32_t i = list.read_;
    while (b != nullptr) {
      Block* next = b->next;
      const uint32_t end = b == list.tail_ ? list.used_ : kEntries;
      for (; i < end; ++i) f(b->entries[i]);
      pool.give(b);
      b = next;
      i = 0;
    }
  }
  // Keeps the entries for which keep(entry) is true, in order.
  template <class Keep>
  void filter(EntryBlockPool& pool, Keep&& keep) {
    EntryFifo kept;
    drain(pool, [&](const QueueEntry& e) {
      if (keep(e)) kept.push(e, pool);
    });
    *this = kept;
  }
  // Returns every block to the pool.
  void clear(EntryBlockPool& pool) {
    drain(pool, [](const QueueEntry&) {});
  }

 private:
  [[gnu::noinline]] void push_to_new_block(const QueueEntry& e, EntryBlockPool& pool) {
    Block* b = pool.take();
    if (tail_ == nullptr) {
      head_ = b;
    } else {
      tail_->next = b;
    }
    tail_ = b;
    b->entries[0] = e;
    used_ = 1;
  }
  void drop_head(EntryBlockPool& pool) {
    Block* next = head_->next;
    pool.give(head_);
    if (next == nullptr) {
      *this = EntryFifo{};
    } else {
      head_ = next;
      read_ = 0;
    }
  }

  QueueEntry first_{};
  Block* head_ = nullptr;
  Block* tail_ = nullptr;
  uint16_t used_ = kEntries;  // entries written in the tail block (kEntries when there is none)
  uint16_t read_ = 0;         // entries already taken from the head block
  bool has_first_ = false;    // first_ holds the FIFO's first entry
};

}  // namespace t3sim
