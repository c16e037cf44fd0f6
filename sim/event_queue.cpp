#include "sim/event_queue.h"

#include <algorithm>
#include <string>

#include "sim/errors.h"
#include "sim/units_parse.h"

namespace t3sim {

class EventQueue::OneShot final : public Event {
 public:
  explicit OneShot(EventQueue* q) : q_(q) {}
  void arm(OneShotFn fn, void* ctx, uint64_t arg) {
    fn_ = fn;
    ctx_ = ctx;
    arg_ = arg;
  }
  void process() override {
    const OneShotFn fn = fn_;
    void* ctx = ctx_;
    const uint64_t arg = arg_;
    q_->free_one_shots_.push_back(this);  // recycled before the call: the callback may reschedule
    fn(ctx, arg);
  }

 private:
  EventQueue* q_;
  OneShotFn fn_ = nullptr;
  void* ctx_ = nullptr;
  uint64_t arg_ = 0;
};

namespace {

// Stale entries tolerated beyond the live ones before a purge (keeps purges rare for small queues).
constexpr size_t kPurgeSlack = 1024;
// Heaps at least this large (entries; 24 B each, so 192 KiB) prefetch the next level while sifting.
constexpr size_t kPrefetchEntries = 8192;

[[noreturn]] [[gnu::cold]] void throw_past(Tick when, Tick now) {
  throw ModelError("event-queue", "schedule at " + std::to_string(when.ps()) +
                                      " ps is before now (" + std::to_string(now.ps()) + " ps)");
}

}  // namespace

EventQueue::EventQueue() { heap_.reserve(1024); }
EventQueue::~EventQueue() = default;

void EventQueue::schedule(Event& ev, Tick when, Priority prio) {
  if (when < now_) [[unlikely]] {
    throw_past(when, now_);
  }
  const uint64_t order = (static_cast<uint64_t>(prio) << 56) | sequence_++;
  const bool replaced = ev.scheduled_;  // the old entry, if any, becomes stale
  ev.scheduled_ = true;
  ev.order_ = order;
  ev.when_ = when;
  if (!replaced) ++live_;
  push(Entry{when.ps(), order, &ev});
  if (replaced && heap_.size() > 2 * live_ + kPurgeSlack) purge_stale();
}

void EventQueue::deschedule(Event& ev) {
  if (!ev.scheduled_) return;
  ev.scheduled_ = false;
  --live_;
  if (heap_.size() > 2 * live_ + kPurgeSlack) purge_stale();
}

EventQueue::OneShot* EventQueue::acquire_one_shot() {
  if (free_one_shots_.empty()) {
    one_shot_storage_.push_back(std::make_unique<OneShot>(this));
    return one_shot_storage_.back().get();
  }
  OneShot* e = free_one_shots_.back();
  free_one_shots_.pop_back();
  return e;
}

void EventQueue::schedule_fn(Tick when, OneShotFn fn, void* ctx, uint64_t arg, Priority prio) {
  if (when < now_) throw_past(when, now_);  // before taking a one-shot from the pool
  OneShot* e = acquire_one_shot();
  e->arm(fn, ctx, arg);
  schedule(*e, when, prio);
}

void EventQueue::push(Entry e) {
  if (root_vacant_) {  // the handler now running schedules: its entry takes the root slot
    root_vacant_ = false;
    sift_from_root(e);
    return;
  }
  size_t i = heap_.size();
  heap_.push_back(e);
  Entry* h = heap_.data();
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!earlier(e, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

// Index of the earliest child in the group starting at `first`. With a full group the index
// arithmetic (instead of ?:) keeps the three selections branch-free: they are coin flips.
size_t EventQueue::earliest_child(const Entry* h, size_t first, size_t n) {
  if (first + kArity > n) {
    size_t best = first;
    for (size_t c = first + 1; c < n; ++c) {
      if (earlier(h[c], h[best])) best = c;
    }
    return best;
  }
  const size_t a = first + static_cast<size_t>(earlier(h[first + 1], h[first]));
  const size_t b = first + 2 + static_cast<size_t>(earlier(h[first + 3], h[first + 2]));
  return a ^ ((a ^ b) & (size_t{0} - static_cast<size_t>(earlier(h[b], h[a]))));
}

// Fills the hole at the root with `e`. A cached heap sifts top-down and stops where `e` belongs
// (one mispredicted branch, at the end). A larger one walks the hole down to a leaf without
// comparing against `e`, prefetching the next level so that the loads of consecutive levels
// overlap, then sifts `e` up. (bench_events: each is the faster one in its own regime.)
void EventQueue::sift_from_root(Entry e) {
  Entry* h = heap_.data();
  const size_t n = heap_.size();
  size_t i = 0;
  if (n < kPrefetchEntries) {
    for (size_t first = 1; first < n; first = kArity * i + 1) {
      const size_t best = earliest_child(h, first, n);
      if (!earlier(h[best], e)) break;
      h[i] = h[best];
      i = best;
    }
    h[i] = e;
    return;
  }
  for (size_t first = 1; first < n; first = kArity * i + 1) {
    const size_t grandchildren = kArity * first + 1;  // one contiguous block holds the next level
    if (grandchildren < n) {
      const char* p = reinterpret_cast<const char*>(h + grandchildren);
      for (size_t off = 0; off < kArity * kArity * sizeof(Entry); off += 64) {
        __builtin_prefetch(p + off);
      }
    }
    const size_t best = earliest_child(h, first, n);
    if (i == 0) __builtin_prefetch(h[best].ev);  // the next event to run: overlap its miss
    h[i] = h[best];
    i = best;
  }
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!earlier(e, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

void EventQueue::pop_top() {
  root_vacant_ = false;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_from_root(last);
}

void EventQueue::drop_stale() {
  if (root_vacant_) pop_top();
  while (!heap_.empty() && !live(heap_.front())) pop_top();
}

// Drops every stale entry; a sorted array is a valid heap, and (tick, order) keys are unique, so
// the result does not depend on the previous layout.
void EventQueue::purge_stale() {
  if (root_vacant_) pop_top();
  std::erase_if(heap_, [](const Entry& e) { return !live(e); });
  std::sort(heap_.begin(), heap_.end(), earlier);
}

Tick EventQueue::next_tick() {
  drop_stale();
  return heap_.empty() ? Tick::max() : Tick::from_ps(heap_.front().key);
}

bool EventQueue::run_one() {
  drop_stale();
  if (heap_.empty()) return false;
  const Entry e = heap_.front();
  // The root stays in place while the handler runs: its first schedule() replaces it (one sift
  // instead of a pop and a push, the common hold pattern); otherwise it is removed afterwards (or
  // by the next queue operation, should the handler throw).
  root_vacant_ = true;
  now_ = Tick::from_ps(e.key);
  e.ev->scheduled_ = false;
  --live_;
  ++processed_;
  e.ev->process();
  if (root_vacant_) pop_top();
  return true;
}

}  // namespace t3sim
