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

// Files an entry: beyond the window, in the bucket of the highest digit in which its tick differs
// from anchor_; in the window (or below it), into run_ or late_.
[[gnu::always_inline]] inline void EventQueue::push(const QueueEntry& e) {
  if (!in_window(e.tick)) [[likely]] {
    push_bucket(e);
  } else {
    push_window(e);
  }
}

[[gnu::always_inline]] inline void EventQueue::push_bucket(const QueueEntry& e) {
  const int level = (63 - std::countl_zero(e.tick ^ anchor_)) / kDigitBits;
  const int digit = static_cast<int>(e.tick >> (level * kDigitBits)) & (kDigits - 1);
  if (bucket(level, digit).push(e, pool_)) {  // the bucket was empty
    occupied_[level][digit / 64] |= uint64_t{1} << (digit % 64);
    summary_[level] |= uint64_t{1} << (digit / 64);
    levels_ |= 1u << level;
  }
}

// An entry that runs after every one of run_ (an event at now in the running band or a later one,
// with nothing later in the window) is appended. Another takes its place in run_ if at most
// kShiftMax entries have to move for it: those before it one slot towards the front, into the slot
// of the entry that ran last (typically for an event at now while the window holds later ones), or
// those after it one slot back. Any other goes to late_.
void EventQueue::push_window(const QueueEntry& e) {
  if (run_.empty() || before(run_.back(), e)) {
    run_.push_back(e);
    return;
  }
  constexpr size_t kShiftMax = 16;
  const auto head = run_.begin() + static_cast<std::ptrdiff_t>(run_head_);
  if (run_head_ > 0) {  // typically an event at now: its place is at or near the head
    auto pos = head;    // e runs before run_.back(), so the scan stops inside run_
    while (pos - head <= static_cast<std::ptrdiff_t>(kShiftMax) && before(*pos, e)) ++pos;
    if (pos - head <= static_cast<std::ptrdiff_t>(kShiftMax)) {
      std::copy(head, pos, head - 1);
      *(pos - 1) = e;
      --run_head_;
      return;
    }
  }
  const auto pos = std::lower_bound(head, run_.end(), e, before);  // e runs just before *pos
  if (static_cast<size_t>(run_.end() - pos) <= kShiftMax) {
    run_.insert(pos, e);
  } else {
    late_.push_back(e);
    std::push_heap(late_.begin(), late_.end(), Later{});
  }
}

EventQueue::EventQueue() : buckets_((kLevels - 1) * kDigits) {}
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

// Sorts run_ (filled from one bucket, in sequence order) by (tick, band, sequence). A 65536 ps
// window (a sparse run's) comes nearly in order and is first sorted by insertion. Otherwise up to
// 256 entries are sorted by 32-bit keys (the tick's offset in the window, the band, the index,
// which stands for the sequence: the insertion keeps entries of equal (tick, band) in order): up
// to 64 by rank (each key's count of smaller keys, a loop without branches), more with
// std::sort. Beyond 256, by entries.
void EventQueue::sort_run() {
  const size_t n = run_.size();
  if (window_last_ - anchor_ != kDigits - 1 && sort_nearly_sorted()) return;
  if (n > kDigits) {
    if (!std::is_sorted(run_.begin(), run_.end(), before)) {
      std::sort(run_.begin(), run_.end(), before);
    }
    return;
  }
  // The tick's offset in the window (below 2^16), the band, the index: unsigned 32-bit keys, the
  // top bit flipped so that they compare as signed ones, which vectorise.
  std::array<int32_t, kDigits> keys;
  bool sorted = true;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t key = (run_[i].tick - anchor_) << 16 | run_[i].order >> 56 << 8 | i;
    keys[i] = static_cast<int32_t>(static_cast<uint32_t>(key) ^ 0x80000000u);
    sorted &= i == 0 || keys[i - 1] < keys[i];
  }
  if (sorted) return;
  scratch_.resize(n);
  constexpr size_t kRankSortMax = 64;
  if (n <= kRankSortMax) {
    for (size_t i = 0; i < n; ++i) {
      int32_t rank = 0;
      for (size_t j = 0; j < n; ++j) rank += keys[j] < keys[i];
      scratch_[static_cast<size_t>(rank)] = run_[i];
    }
  } else {
    std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n));
    for (size_t i = 0; i < n; ++i) scratch_[i] = run_[static_cast<size_t>(keys[i]) & (kDigits - 1)];
  }
  run_.swap(scratch_);
}

// Sorts run_ by insertion (stable) unless that takes more than 4 moves per entry: then returns
// false, run_ left a permutation in which entries of equal (tick, band) keep their order.
bool EventQueue::sort_nearly_sorted() {
  size_t budget = 4 * run_.size();
  for (size_t i = 1; i < run_.size(); ++i) {
    if (!before(run_[i], run_[i - 1])) continue;
    const QueueEntry e = run_[i];
    size_t j = i;
    for (; j > 0 && before(e, run_[j - 1]); --j) {
      run_[j] = run_[j - 1];
      if (--budget == 0) {
        run_[j - 1] = e;
        return false;
      }
    }
    run_[j] = e;
  }
  return true;
}

// With the window empty (run_ and late_): takes the lowest non-empty bucket of the lowest
// non-empty level; every tick in it is below every other bucketed tick. Its span's start (the
// anchor's digits above the bucket's level, the bucket's digit, zeros below) becomes anchor_: the
// entries of the new window go to run_, sorted; the others land a level lower or more, in the
// buckets below, which are empty, so every FIFO keeps insertion order. A bucket of one entry opens
// the window of that entry's tick at once. anchor_ only grows and stays below the bucketed ticks.
bool EventQueue::refill() {
  while (run_.empty()) {
    if (levels_ == 0) return false;
    const int level = std::countr_zero(levels_);
    const int w = std::countr_zero(summary_[level]);
    const int digit = w * 64 + std::countr_zero(occupied_[level][w]);
    EntryFifo& taken = bucket(level, digit);
    clear_bit(level, digit);
    QueueEntry lone;
    if (taken.take_lone(lone)) {
      anchor_ = lone.tick >> kDigitBits << kDigitBits;
      window_last_ = anchor_ + (kDigits - 1);
      run_.push_back(lone);
      break;
    }
    EntryFifo list;
    list.take_all(taken);
    const int shift = level * kDigitBits;
    const int above_bits = shift + kDigitBits;
    const uint64_t above = above_bits >= 64 ? 0 : anchor_ >> above_bits << above_bits;
    anchor_ = above | (static_cast<uint64_t>(digit) << shift);
    // The drain callbacks are inlined wherever they are used, so that the profile-guided build
    // (tools/hot_path.cmake) finds the functions its training build counted.
    if (level == 2 && list.at_most_one_block()) {
      // A sparse level-2 bucket is one window of 65536 ps (level 1 is empty): sorted at once
      // instead of spread over level 1 and opened 256 ps at a time.
      window_last_ = anchor_ + ((uint64_t{1} << (2 * kDigitBits)) - 1);
      list.drain(
          pool_, [this](const QueueEntry& e) __attribute__((always_inline)) {
            __builtin_prefetch(e.ev);
            run_.push_back(e);
          });
    } else {
      window_last_ = anchor_ + (kDigits - 1);
      list.drain(
          pool_, [this](const QueueEntry& e) __attribute__((always_inline)) {
            if (in_window(e.tick)) {  // runs within 256 ps: start the handler's cache miss
              __builtin_prefetch(e.ev);
              run_.push_back(e);
            } else {
              push_bucket(e);
            }
          });
    }
    sort_run();
  }
  return true;
}

// The next live entry of the window (dropping stale ones on the way), or nullptr if the queue holds
// none.
const QueueEntry* EventQueue::top_live() {
  for (;;) {
    const QueueEntry* top;
    if (late_.empty()) [[likely]] {
      if (run_.empty() && !refill()) return nullptr;
      top = &run_[run_head_];
    } else if (run_.empty() || before(late_.front(), run_[run_head_])) {
      top = &late_.front();
    } else {
      top = &run_[run_head_];
    }
    if (live(*top)) return top;
    if (top == late_.data()) {
      pop_late();
    } else {
      pop_run();
    }
  }
}

void EventQueue::pop_late() {
  std::pop_heap(late_.begin(), late_.end(), Later{});
  late_.pop_back();
  --entries_;
}

void EventQueue::pop_run() {
  ++run_head_;
  if (run_.begin() + static_cast<std::ptrdiff_t>(run_head_) == run_.end()) {  // no division
    run_.clear();
    run_head_ = 0;
  }
  --entries_;
}

// Drops every stale entry. FIFOs and run_ keep their order and late_ is rebuilt, so the pop order
// (by the unique (tick, band, sequence) keys) does not change.
void EventQueue::purge_stale() {
  for (int level = 1; level < kLevels; ++level) {
    if ((levels_ >> level & 1) == 0) continue;
    for (int digit = 0; digit < kDigits; ++digit) {
      EntryFifo& fifo = bucket(level, digit);
      if (fifo.empty()) continue;
      fifo.filter(pool_, live);
      if (fifo.empty()) clear_bit(level, digit);
    }
  }
  run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(run_head_));
  run_head_ = 0;
  std::erase_if(run_, [](const QueueEntry& e) { return !live(e); });
  std::erase_if(late_, [](const QueueEntry& e) { return !live(e); });
  std::make_heap(late_.begin(), late_.end(), Later{});
  entries_ = live_;
}

Tick EventQueue::next_tick() {
  const QueueEntry* top = top_live();
  return top == nullptr ? Tick::max() : Tick::from_ps(top->tick);
}

bool EventQueue::run_one(Tick limit) {
  QueueEntry e;
  if (late_.empty()) [[likely]] {
    for (;;) {  // the next live entry of run_, dropping stale ones
      if (run_.empty() && !refill()) return false;
      e = run_[run_head_];
      if (live(e)) break;
      pop_run();
    }
    if (e.tick > limit.ps()) return false;
    pop_run();  // before the handler runs, so a throwing handler leaves a consistent queue
  } else {
    const QueueEntry* top = top_live();
    if (top == nullptr || top->tick > limit.ps()) return false;
    e = *top;
    if (top == late_.data()) {
      pop_late();
    } else {
      pop_run();
    }
  }
  now_ = Tick::from_ps(e.tick);
  e.ev->order_ = 0;
  --live_;
  ++processed_;
  e.ev->process();
  return true;
}

}  // namespace t3sim
