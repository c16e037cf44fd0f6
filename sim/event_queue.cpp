#include "sim/event_queue.h"

#include <algorithm>
#include <bit>
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

[[noreturn]] [[gnu::cold]] void throw_past(Tick when, Tick now) {
  throw ModelError("event-queue", "schedule at " + std::to_string(when.ps()) +
                                      " ps is before now (" + std::to_string(now.ps()) + " ps)");
}

}  // namespace

// Files an entry by its key k = (tick, band) against last_: above it, in the bucket of the highest
// differing digit; equal, at the back of current_; below (rare), in the early heap.
[[gnu::always_inline]] inline void EventQueue::push(const QueueEntry& e) {
  int level;
  int digit;
  if (e.tick > last_tick_) [[likely]] {
    level = 1 + (63 - std::countl_zero(e.tick ^ last_tick_)) / kDigitBits;
    digit = static_cast<int>(e.tick >> ((level - 1) * kDigitBits)) & (kDigits - 1);
  } else if (e.tick == last_tick_ && band_of(e) >= last_band_) {
    if (band_of(e) == last_band_) {
      current_.push(e, pool_);
      return;
    }
    level = 0;
    digit = static_cast<int>(band_of(e));
  } else {
    early_.push_back(e);
    std::push_heap(early_.begin(), early_.end(), Later{});
    return;
  }
  if (buckets_[level * kDigits + digit].push(e, pool_)) {  // the bucket was empty
    occupied_[level][digit / 64] |= uint64_t{1} << (digit % 64);
    summary_[level] |= uint64_t{1} << (digit / 64);
    levels_ |= 1u << level;
  }
}

EventQueue::EventQueue() : buckets_(kLevels * kDigits) {}
EventQueue::~EventQueue() = default;

void EventQueue::schedule(Event& ev, Tick when, Priority prio) {
  if (when < now_) [[unlikely]] {
    throw_past(when, now_);
  }
  const uint64_t order = (static_cast<uint64_t>(prio) << 56) | sequence_++;
  const bool replaced = ev.order_ != 0;  // the old entry, if any, becomes stale
  ev.order_ = order;
  ev.when_ = when;
  if (!replaced) ++live_;
  ++entries_;
  push(QueueEntry{when.ps(), order, &ev});
  if (replaced && entries_ > 2 * live_ + kPurgeSlack) [[unlikely]] {
    purge_stale();
  }
}

void EventQueue::deschedule(Event& ev) {
  if (!ev.scheduled()) return;
  ev.order_ = 0;
  --live_;
  if (entries_ > 2 * live_ + kPurgeSlack) purge_stale();
}

EventQueue::OneShot* EventQueue::acquire_one_shot() {
  if (free_one_shots_.empty()) return &one_shot_storage_.emplace_back(this);
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

void EventQueue::clear_bit(int level, int digit) {
  uint64_t& word = occupied_[level][digit / 64];
  word &= ~(uint64_t{1} << (digit % 64));
  if (word != 0) return;
  summary_[level] &= ~(uint64_t{1} << (digit / 64));
  if (summary_[level] == 0) levels_ &= ~(1u << level);
}

// Opens a bucket of level 1: all its entries have tick `tick`. last_ becomes (tick, lowest band);
// that band's entries form current_ (the whole bucket, copied nowhere, when it has one band) and
// the others go to level 0 by band.
void EventQueue::open_tick_bucket(EntryFifo& list, uint64_t tick) {
  uint64_t lo = 255;
  uint64_t hi = 0;
  list.for_each([&](const QueueEntry& e) {
    lo = std::min(lo, band_of(e));
    hi = std::max(hi, band_of(e));
  });
  last_tick_ = tick;
  last_band_ = lo;
  if (lo == hi) {
    current_.take_all(list);
    return;
  }
  list.drain(pool_, [this](const QueueEntry& e) { push(e); });
}

// With early_ and current_ empty: takes the lowest non-empty bucket of the lowest non-empty level;
// every key in it is below every other bucketed key. A bucket of one entry, or of one key (level
// 0), becomes current_ and last_ its key; a level-1 bucket (one tick) is split by band. A larger
// one is redistributed: last_ moves up to the smallest key the bucket can hold, which shares every
// digit above the bucket's with it, so each entry lands lower (or in current_). Either way last_
// only grows and stays below the bucketed keys, and every FIFO keeps insertion order: the lower
// levels are empty when a bucket is redistributed into them.
bool EventQueue::refill() {
  while (current_.empty()) {
    if (levels_ == 0) return false;
    const int level = std::countr_zero(levels_);
    const int w = std::countr_zero(summary_[level]);
    const int digit = w * 64 + std::countr_zero(occupied_[level][w]);
    EntryFifo list;
    list.take_all(buckets_[level * kDigits + digit]);
    clear_bit(level, digit);
    if (level == 0) {
      last_band_ = static_cast<uint64_t>(digit);
      current_.take_all(list);
      break;
    }
    if (list.single()) {
      last_tick_ = list.front().tick;
      last_band_ = band_of(list.front());
      current_.take_all(list);
      break;
    }
    const int shift = (level - 1) * kDigitBits;
    const int above_bits = shift + kDigitBits;
    const uint64_t above = above_bits >= 64 ? 0 : last_tick_ >> above_bits << above_bits;
    const uint64_t floor = above | (static_cast<uint64_t>(digit) << shift);
    if (level == 1) {
      open_tick_bucket(list, floor);
      break;
    }
    last_tick_ = floor;
    last_band_ = 0;
    if (level == 2) {  // these run within 256 ticks: start their handlers' cache misses
      list.drain(pool_, [this](const QueueEntry& e) {
        __builtin_prefetch(e.ev);
        push(e);
      });
    } else {
      list.drain(pool_, [this](const QueueEntry& e) { push(e); });
    }
  }
  return true;
}

// The next live entry (dropping stale ones on the way), or nullptr if the queue holds none.
const QueueEntry* EventQueue::top_live() {
  for (;;) {
    if (!early_.empty()) [[unlikely]] {
      if (live(early_.front())) return &early_.front();
    } else {
      if (current_.empty() && !refill()) return nullptr;
      if (live(current_.front())) return &current_.front();
    }
    pop_top();
  }
}

void EventQueue::pop_top() {
  if (!early_.empty()) [[unlikely]] {
    std::pop_heap(early_.begin(), early_.end(), Later{});
    early_.pop_back();
  } else {
    current_.pop_front(pool_);
  }
  --entries_;
}

// Drops every stale entry. FIFOs keep their order and the early heap is rebuilt, so the pop order
// (by the unique (tick, band, sequence) keys) does not change.
void EventQueue::purge_stale() {
  for (int level = 0; level < kLevels; ++level) {
    if ((levels_ >> level & 1) == 0) continue;
    for (int digit = 0; digit < kDigits; ++digit) {
      EntryFifo& fifo = buckets_[level * kDigits + digit];
      if (fifo.empty()) continue;
      fifo.filter(pool_, live);
      if (fifo.empty()) clear_bit(level, digit);
    }
  }
  current_.filter(pool_, live);
  std::erase_if(early_, [](const QueueEntry& e) { return !live(e); });
  std::make_heap(early_.begin(), early_.end(), Later{});
  entries_ = live_;
}

Tick EventQueue::next_tick() {
  const QueueEntry* top = top_live();
  return top == nullptr ? Tick::max() : Tick::from_ps(top->tick);
}

bool EventQueue::run_one(Tick limit) {
  QueueEntry e;
  if (early_.empty()) [[likely]] {
    for (;;) {  // the next live entry of current_, dropping stale ones
      if (current_.empty() && !refill()) return false;
      e = current_.front();
      if (live(e)) break;
      current_.pop_front(pool_);
      --entries_;
    }
    if (e.tick > limit.ps()) return false;
    current_.pop_front(pool_);  // before the handler runs, so a throwing handler leaves a
    --entries_;                 // consistent queue
  } else {
    const QueueEntry* top = top_live();
    if (top == nullptr || top->tick > limit.ps()) return false;
    e = *top;
    pop_top();
  }
  now_ = Tick::from_ps(e.tick);
  e.ev->order_ = 0;
  --live_;
  ++processed_;
  e.ev->process();
  return true;
}

}  // namespace t3sim
