// The future event list: the entries of the next 256 ps (the window) sorted in an array, over a
// radix heap (Ahuja et al. 1990) of the later ones in base-256 digits of the tick. A later entry
// sits in the FIFO bucket of the highest byte in which its tick differs from the window's start;
// when the window is used up the lowest bucket is taken, and a bucket of one 256 ps span (or a
// sparse one of 65536 ps: sparse runs open fewer, wider windows) is sorted into the window.
// Contract: run order is (tick, band, sequence); schedule() requires when >= now (else ModelError);
// deschedule() and re-scheduling are O(1) by lazy deletion (stale entries skipped, purged in bulk);
// an Event must outlive the queue's use. Speed: tools/bench/bench_events.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/event.h"
#include "sim/event_fifo.h"

namespace t3sim {

class EventQueue {
 public:
  EventQueue();
  ~EventQueue();
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  Tick now() const { return now_; }
  bool empty() const { return live_ == 0; }
  size_t pending() const { return live_; }
  uint64_t processed() const { return processed_; }

  void schedule(Event& ev, Tick when, Priority prio = Priority::kDefault);
  void deschedule(Event& ev);
  void schedule_fn(Tick when, OneShotFn fn, void* ctx, uint64_t arg,
                   Priority prio = Priority::kDefault);

  // Pops and runs the next live event if its tick is at most `limit`; returns false if there is
  // none. Advances now().
  bool run_one(Tick limit = Tick::max());
  // Tick of the next live event (Tick::max() if none).
  Tick next_tick();

 private:
  class OneShot;
  static constexpr int kDigitBits = 8;
  static constexpr int kDigits = 1 << kDigitBits;  // buckets per level
  static constexpr int kLevels = 64 / kDigitBits;  // level l: the tick's digit l (1..7) differs
  static constexpr int kWords = kDigits / 64;      // occupancy words per level (bits of a summary)
  // True if a runs before b: (tick, band, sequence) order.
  static bool before(const QueueEntry& a, const QueueEntry& b) {
    return a.tick != b.tick ? a.tick < b.tick : a.order < b.order;
  }
  // The min-heap order of late_.
  struct Later {
    bool operator()(const QueueEntry& a, const QueueEntry& b) const { return before(b, a); }
  };
  static bool live(const QueueEntry& e) { return e.ev->order_ == e.order; }
  bool in_window(uint64_t tick) const { return tick <= window_last_; }
  EntryFifo& bucket(int level, int digit) { return buckets_[(level - 1) * kDigits + digit]; }
  void push(const QueueEntry& e);
  void push_bucket(const QueueEntry& e);
  void push_window(const QueueEntry& e);
  const QueueEntry* top_live();
  void pop_run();
  void pop_late();
  bool refill();
  void sort_run();
  bool sort_nearly_sorted();
  void clear_bit(int level, int digit);
  void purge_stale();
  OneShot* acquire_one_shot();

  EntryBlockPool pool_;
  // bucket(level, digit): the entries whose tick first differs from anchor_ (scanning from the top)
  // in digit `level` (1..7), where the tick's digit is `digit` (> anchor_'s).
  std::vector<EntryFifo> buckets_;
  std::array<std::array<uint64_t, kWords>, kLevels> occupied_{};  // bit set: bucket not empty
  std::array<uint64_t, kLevels> summary_{};  // bit w set: occupied_[level][w] is not 0
  uint32_t levels_ = 0;                      // bit set: the level has a non-empty bucket
  // The window: entries with tick <= window_last_ (anchor_ a multiple of 256, only growing; every
  // bucketed tick is beyond window_last_). run_[run_head_..] is sorted; late_ is a min-heap of
  // those that arrived after more than a few later ones (rare). run_ is cleared once read.
  std::vector<QueueEntry> run_;
  size_t run_head_ = 0;
  std::vector<QueueEntry> late_;
  std::vector<QueueEntry> scratch_;  // sort_run()'s copy of run_
  uint64_t anchor_ = 0;
  // anchor_ + 255, or + 65535 for a window opened from level 2 (no overflow at the top tick).
  uint64_t window_last_ = kDigits - 1;
  size_t entries_ = 0;  // entries held, stale ones included
  std::deque<OneShot> one_shot_storage_;
  std::vector<OneShot*> free_one_shots_;
  Tick now_{};
  uint64_t sequence_ = 1;  // order 0 means "not scheduled"
  uint64_t processed_ = 0;
  size_t live_ = 0;
};

}  // namespace t3sim
