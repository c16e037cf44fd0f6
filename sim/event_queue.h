// The future event list: a 4-ary heap of 24-byte PODs ordered by (tick, priority band, insertion
// sequence), so equal-time events run in a deterministic order; one-shots come from a free list.
// Contract: schedule() requires when >= now (else ModelError); deschedule() and re-scheduling are
// O(1) by lazy deletion (stale entries are skipped on pop and purged in bulk when they outnumber
// the live ones). Entries, stale ones too, point at their Event: an Event must outlive the queue's
// use (components live as long as the Simulator). Speed: the popped root's slot is reused by the
// first event its handler schedules; large heaps prefetch the next level while sifting
// (tools/bench/bench_events.cpp measures the hold model).
#pragma once

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
  static constexpr size_t kArity = 4;
  // Strict (tick, order) order. Ticks rarely tie, so the tie test is a well-predicted branch and
  // the tick comparison a conditional move.
  static bool earlier(const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.order < b.order;
  }
  static bool live(const Entry& e) { return e.ev->scheduled_ && e.ev->order_ == e.order; }
  void push(Entry e);
  static size_t earliest_child(const Entry* h, size_t first, size_t n);
  void sift_from_root(Entry e);
  void pop_top();
  void drop_stale();
  void purge_stale();
  OneShot* acquire_one_shot();

  std::vector<Entry> heap_;
  std::vector<std::unique_ptr<OneShot>> one_shot_storage_;
  std::vector<OneShot*> free_one_shots_;
  Tick now_{};
  uint64_t sequence_ = 0;
  uint64_t processed_ = 0;
  size_t live_ = 0;
  bool root_vacant_ = false;  // heap_[0] was run and awaits replacement or removal
};

}  // namespace t3sim
