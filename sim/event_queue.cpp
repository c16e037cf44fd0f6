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
// Buckets up to this size are ordered by the near heap instead of being redistributed.
constexpr size_t kHeapedBucket = 64;

[[noreturn]] [[gnu::cold]] void throw_past(Tick when, Tick now) {
  throw ModelError("event-queue", "schedule at " + std::to_string(when.ps()) +
                                      " ps is before now (" + std::to_string(now.ps()) + " ps)");
}

}  // namespace

EventQueue::EventQueue() : buckets_(kLevels * kDigits) { near_.reserve(64); }
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
  if (replaced && entries_ > 2 * live_ + kPurgeSlack) purge_stale();
}

void EventQueue::deschedule(Event& ev) {
  if (!ev.scheduled_) return;
  ev.scheduled_ = false;
  --live_;
  if (entries_ > 2 * live_ + kPurgeSlack) purge_stale();
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

// An entry at or before last_ (the current tick, or one a next_tick() peek has passed) joins the
// near heap; a later one goes to its bucket.
void EventQueue::push(const Entry& e) {
  ++entries_;
  if (e.key <= last_) {
    near_.push_back(e);
    std::push_heap(near_.begin(), near_.end(), Later{});
    return;
  }
  push_bucketed(e);
}

void EventQueue::push_bucketed(const Entry& e) {
  const int level = (63 - std::countl_zero(e.key ^ last_)) / kDigitBits;
  const int digit = static_cast<int>(e.key >> (level * kDigitBits)) & (kDigits - 1);
  buckets_[level * kDigits + digit].push_back(e);
  occupied_[level][digit / 64] |= uint64_t{1} << (digit % 64);
  levels_ |= 1u << level;
}

void EventQueue::pop_near() {
  std::pop_heap(near_.begin(), near_.end(), Later{});
  near_.pop_back();
  --entries_;
}

// Marks the bucket empty (its entries are the caller's to move; the vector keeps its capacity).
void EventQueue::clear_bucket(int level, int digit) {
  buckets_[level * kDigits + digit].clear();
  std::array<uint64_t, kWords>& words = occupied_[level];
  words[digit / 64] &= ~(uint64_t{1} << (digit % 64));
  bool any = false;
  for (const uint64_t w : words) any = any || w != 0;
  if (!any) levels_ &= ~(1u << level);
}

// With near_ empty: takes the lowest non-empty bucket of the lowest non-empty level; every key in
// it is below every other bucketed key. A small bucket (or a level-0 one: a single tick) becomes
// near_ and last_ moves up to its largest key. A large one is redistributed: last_ moves up to the
// smallest key the bucket can hold, which it shares every digit above the bucket's with, so each
// entry lands lower (or in near_). Either way last_ only grows and stays below the bucketed keys.
bool EventQueue::refill() {
  while (near_.empty()) {
    if (levels_ == 0) return false;
    const int level = std::countr_zero(levels_);
    const std::array<uint64_t, kWords>& words = occupied_[level];
    int w = 0;
    while (words[w] == 0) ++w;
    const int digit = w * 64 + std::countr_zero(words[w]);
    const std::vector<Entry>& bucket = buckets_[level * kDigits + digit];
    if (level == 0 || bucket.size() <= kHeapedBucket) {
      for (const Entry& e : bucket) {
        near_.push_back(e);
        last_ = std::max(last_, e.key);
        __builtin_prefetch(e.ev);  // these run next: overlap the handlers' first cache misses
      }
    } else {
      const int shift = level * kDigitBits;
      const int above_bits = shift + kDigitBits;
      const uint64_t above = above_bits >= 64 ? 0 : last_ >> above_bits << above_bits;
      last_ = above | (static_cast<uint64_t>(digit) << shift);
      for (const Entry& e : bucket) {  // each lands in a lower level: `bucket` stays put
        if (e.key == last_) {
          near_.push_back(e);
        } else {
          push_bucketed(e);
        }
      }
    }
    clear_bucket(level, digit);
    std::make_heap(near_.begin(), near_.end(), Later{});
  }
  return true;
}

// Leaves a live entry on top of near_; false if the queue holds none.
bool EventQueue::drop_stale() {
  for (;;) {
    if (!refill()) return false;
    if (live(near_.front())) return true;
    pop_near();
  }
}

// Drops every stale entry. The pop order depends only on the (tick, order) keys, which are
// unique, so the result does not depend on where entries sat.
void EventQueue::purge_stale() {
  const auto stale = [](const Entry& e) { return !live(e); };
  for (int level = 0; level < kLevels; ++level) {
    for (int digit = 0; digit < kDigits; ++digit) {
      std::vector<Entry>& v = buckets_[level * kDigits + digit];
      if (v.empty()) continue;
      std::erase_if(v, stale);
      if (v.empty()) clear_bucket(level, digit);
    }
  }
  std::erase_if(near_, stale);
  std::make_heap(near_.begin(), near_.end(), Later{});
  entries_ = live_;
}

Tick EventQueue::next_tick() {
  return drop_stale() ? Tick::from_ps(near_.front().key) : Tick::max();
}

bool EventQueue::run_one() {
  if (!drop_stale()) return false;
  const Entry e = near_.front();
  pop_near();  // before the handler runs, so a throwing handler leaves a consistent queue
  now_ = Tick::from_ps(e.key);
  e.ev->scheduled_ = false;
  --live_;
  ++processed_;
  e.ev->process();
  return true;
}

}  // namespace t3sim
