// The future event list: a radix heap over monotone time (Ahuja et al. 1990) with base-256 digits,
// in effect a hierarchical timing wheel anchored at `last_`. Entries are 24-byte PODs ordered by
// (tick, priority band, insertion sequence), so equal-time events run in a deterministic order;
// one-shots come from a free list. Entries with tick <= last_ wait in a small binary heap ordered
// by (tick, order), which alone decides what runs next; later ones sit in the bucket of the
// highest digit in which they differ from last_ and move down a level at a time (at most 7 moves).
// Contract: schedule() requires when >= now (else ModelError); deschedule() and re-scheduling are
// O(1) by lazy deletion (stale entries are skipped on pop and purged in bulk when they outnumber
// the live ones). Entries, stale ones too, point at their Event: an Event must outlive the queue's
// use. Speed: tools/bench/bench_events.cpp measures the hold model.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/event.h"

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

  // Pops and runs the next live event; returns false if none. Advances now().
  bool run_one();
  // Tick of the next live event (Tick::max() if none).
  Tick next_tick();

 private:
  struct Entry {
    uint64_t key;    // tick in ps; ties broken by order
    uint64_t order;  // (band << 56) | sequence; equals ev->order_ while this entry is live
    Event* ev;
  };
  class OneShot;
  static constexpr int kDigitBits = 8;
  static constexpr int kDigits = 1 << kDigitBits;  // buckets per level
  static constexpr int kLevels = 64 / kDigitBits;
  static constexpr int kWords = kDigits / 64;  // occupancy words per level
  // The near heap's order: a min-heap by (key, order).
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.key != b.key ? a.key > b.key : a.order > b.order;
    }
  };
  static bool live(const Entry& e) { return e.ev->scheduled_ && e.ev->order_ == e.order; }
  void push(const Entry& e);
  void push_bucketed(const Entry& e);
  void pop_near();
  bool refill();
  void clear_bucket(int level, int digit);
  bool drop_stale();
  void purge_stale();
  OneShot* acquire_one_shot();

  // buckets_[level * kDigits + digit]: entries whose key first differs from last_ (scanning
  // from the top) in base-256 digit `level`, where the key's digit is `digit` (> last_'s).
  std::vector<std::vector<Entry>> buckets_;
  std::array<std::array<uint64_t, kWords>, kLevels> occupied_{};  // bit set: bucket not empty
  uint32_t levels_ = 0;      // bit set: the level has a non-empty bucket
  std::vector<Entry> near_;  // min-heap by (key, order) of the entries with key <= last_
  uint64_t last_ = 0;        // every bucketed entry has key > last_; last_ only grows
  size_t entries_ = 0;       // entries held, stale ones included
  std::vector<std::unique_ptr<OneShot>> one_shot_storage_;
  std::vector<OneShot*> free_one_shots_;
  Tick now_{};
  uint64_t sequence_ = 0;
  uint64_t processed_ = 0;
  size_t live_ = 0;
};

}  // namespace t3sim
