// The future event list: a radix heap (Ahuja et al. 1990) over the 72-bit key (tick, band) in
// base-256 digits (digit 0 the band, 1-8 the tick's bytes), anchored at the last key taken, last_.
// An entry sits in the FIFO bucket of the highest digit in which its key differs from last_; those
// equal to last_ wait in the FIFO current_. FIFOs keep insertion order, so (tick, band, sequence)
// needs no comparison; keys below last_ (after a next_tick() peek, or at now in an earlier band)
// go to a small heap. Contract: schedule() requires when >= now (else ModelError); deschedule() and
// re-scheduling are O(1) by lazy deletion (stale entries skipped, purged in bulk); an Event must
// outlive the queue's use. Speed: tools/bench/bench_events.cpp measures the hold model.
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
  static constexpr int kLevels = 1 + (64 + kDigitBits - 1) / kDigitBits;
  static constexpr int kWords = kDigits / 64;  // occupancy words per level (bits of a summary)
  // The early heap's order: a min-heap by (tick, order), i.e. (tick, band, sequence).
  struct Later {
    bool operator()(const QueueEntry& a, const QueueEntry& b) const {
      return a.tick != b.tick ? a.tick > b.tick : a.order > b.order;
    }
  };
  static uint64_t band_of(const QueueEntry& e) { return e.order >> 56; }
  static bool live(const QueueEntry& e) { return e.ev->order_ == e.order; }
  void push(const QueueEntry& e);
  const QueueEntry* top_live();
  void pop_top();
  bool refill();
  void open_tick_bucket(EntryFifo& list, uint64_t tick);
  void clear_bit(int level, int digit);
  void purge_stale();
  OneShot* acquire_one_shot();

  EntryBlockPool pool_;
  // buckets_[level * kDigits + digit]: entries whose key first differs from last_ (scanning from
  // the top) in digit `level`, where the key's digit is `digit` (> last_'s).
  std::vector<EntryFifo> buckets_;
  std::array<std::array<uint64_t, kWords>, kLevels> occupied_{};  // bit set: bucket not empty
  std::array<uint64_t, kLevels> summary_{};  // bit w set: occupied_[level][w] is not 0
  uint32_t levels_ = 0;                      // bit set: the level has a non-empty bucket
  EntryFifo current_;              // the entries whose key equals last_, in insertion order
  std::vector<QueueEntry> early_;  // min-heap of the entries whose key is below last_
  uint64_t last_tick_ =
      0;  // last_ = (last_tick_, last_band_) only grows; buckets hold keys > last_
  uint64_t last_band_ = 0;
  size_t entries_ = 0;  // entries held, stale ones included
  std::deque<OneShot> one_shot_storage_;
  std::vector<OneShot*> free_one_shots_;
  Tick now_{};
  uint64_t sequence_ = 1;  // order 0 means "not scheduled"
  uint64_t processed_ = 0;
  size_t live_ = 0;
};

}  // namespace t3sim
