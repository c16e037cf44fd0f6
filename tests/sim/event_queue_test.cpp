// Contracts of sim/event_queue.h: order by (tick, priority band, insertion sequence); re-scheduling
// replaces; deschedule; scheduling in the past is a ModelError; pooled one-shots; and a randomized
// comparison against a reference ordered map.
#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "sim/errors.h"
#include "sim/rng.h"

namespace t3sim {
namespace {

// An event that records its id (and the time it ran) into a shared log when it fires.
class LogEvent final : public Event {
 public:
  LogEvent(EventQueue& q, std::vector<std::pair<int, uint64_t>>& log, int id)
      : q_(q), log_(log), id_(id) {}
  void process() override { log_.emplace_back(id_, q_.now().ps()); }

 private:
  EventQueue& q_;
  std::vector<std::pair<int, uint64_t>>& log_;
  int id_;
};

std::vector<int> ids(const std::vector<std::pair<int, uint64_t>>& log) {
  std::vector<int> out;
  for (const auto& [id, t] : log) out.push_back(id);
  return out;
}

void run_all(EventQueue& q) {
  while (q.run_one()) {
  }
}

TEST(EventQueue, OrdersByTickThenBandThenInsertion) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  std::vector<std::unique_ptr<LogEvent>> evs;
  for (int i = 0; i < 8; ++i) evs.push_back(std::make_unique<LogEvent>(q, log, i));
  q.schedule(*evs[0], Tick::from_ps(30));
  q.schedule(*evs[1], Tick::from_ps(10), Priority::kLast);
  q.schedule(*evs[2], Tick::from_ps(10), Priority::kDefault);
  q.schedule(*evs[3], Tick::from_ps(10), Priority::kFirst);
  q.schedule(*evs[4], Tick::from_ps(20));
  q.schedule(*evs[5], Tick::from_ps(10), Priority::kDefault);
  q.schedule(*evs[6], Tick::from_ps(10), Priority::kStats);
  q.schedule(*evs[7], Tick::from_ps(10), Priority::kArbitrate);
  EXPECT_EQ(q.pending(), 8U);
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{3, 2, 5, 7, 6, 1, 4, 0}));
  EXPECT_EQ(log.back().second, 30U);
  EXPECT_EQ(q.now().ps(), 30U);
  EXPECT_EQ(q.processed(), 8U);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, SameTickSameBandRunsInInsertionOrder) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  std::vector<std::unique_ptr<LogEvent>> evs;
  for (int i = 0; i < 100; ++i) {
    evs.push_back(std::make_unique<LogEvent>(q, log, i));
    q.schedule(*evs.back(), Tick::from_ps(5));
  }
  run_all(q);
  std::vector<int> expected;
  for (int i = 0; i < 100; ++i) expected.push_back(i);
  EXPECT_EQ(ids(log), expected);
}

TEST(EventQueue, EarlierBandAddedLaterStillRunsFirst) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent late(q, log, 1);
  LogEvent early(q, log, 2);
  q.schedule(late, Tick::from_ps(7), Priority::kLast);
  q.schedule(early, Tick::from_ps(7), Priority::kFirst);
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{2, 1}));
}

TEST(EventQueue, RescheduleReplacesThePendingEntry) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent a(q, log, 1);
  LogEvent b(q, log, 2);
  q.schedule(a, Tick::from_ps(10));
  q.schedule(b, Tick::from_ps(20));
  q.schedule(a, Tick::from_ps(30));  // later
  EXPECT_EQ(q.pending(), 2U);
  EXPECT_TRUE(a.scheduled());
  EXPECT_EQ(a.when().ps(), 30U);
  EXPECT_EQ(q.next_tick().ps(), 20U);  // the stale entry at 10 is skipped
  q.schedule(b, Tick::from_ps(5));     // earlier
  run_all(q);
  EXPECT_EQ(log, (std::vector<std::pair<int, uint64_t>>{{2, 5}, {1, 30}}));
  EXPECT_EQ(q.processed(), 2U);
}

TEST(EventQueue, RescheduleAtTheSameTickMovesToTheBackOfTheLine) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent a(q, log, 1);
  LogEvent b(q, log, 2);
  q.schedule(a, Tick::from_ps(10));
  q.schedule(b, Tick::from_ps(10));
  q.schedule(a, Tick::from_ps(10));
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{2, 1}));
}

TEST(EventQueue, DescheduleCancels) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent a(q, log, 1);
  LogEvent b(q, log, 2);
  q.schedule(a, Tick::from_ps(10));
  q.schedule(b, Tick::from_ps(20));
  q.deschedule(a);
  EXPECT_FALSE(a.scheduled());
  EXPECT_EQ(q.pending(), 1U);
  q.deschedule(a);  // no-op when not scheduled
  EXPECT_EQ(q.pending(), 1U);
  EXPECT_EQ(q.next_tick().ps(), 20U);
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{2}));
  // A cancelled event can be scheduled again.
  q.schedule(a, Tick::from_ps(25));
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{2, 1}));
  EXPECT_EQ(q.next_tick(), Tick::max());
}

TEST(EventQueue, SchedulingInThePastIsAModelError) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent a(q, log, 1);
  LogEvent b(q, log, 2);
  q.schedule(a, Tick::from_ps(100));
  run_all(q);
  EXPECT_THROW(q.schedule(b, Tick::from_ps(99)), ModelError);
  EXPECT_FALSE(b.scheduled());
  EXPECT_EQ(q.pending(), 0U);
  EXPECT_THROW(q.schedule_fn(
                   Tick::from_ps(1), [](void*, uint64_t) {}, nullptr, 0),
               ModelError);
  EXPECT_EQ(q.pending(), 0U);
  q.schedule(b, Tick::from_ps(100));  // "now" is allowed
  EXPECT_TRUE(q.run_one());
  EXPECT_EQ(ids(log), (std::vector<int>{1, 2}));
}

TEST(EventQueue, RunOneOnAnEmptyQueueReturnsFalse) {
  EventQueue q;
  EXPECT_FALSE(q.run_one());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_tick(), Tick::max());
  EXPECT_EQ(q.now().ps(), 0U);
}

struct Chain {
  EventQueue* q = nullptr;
  uint64_t fired = 0;
  uint64_t limit = 0;
  uint64_t arg_sum = 0;
  bool in_order = true;
  static void step(void* ctx, uint64_t arg) {
    auto* c = static_cast<Chain*>(ctx);
    c->in_order = c->in_order && arg == c->fired;
    c->arg_sum += arg;
    ++c->fired;
    if (c->fired < c->limit) {
      c->q->schedule_fn(c->q->now() + Duration::ps(3), &Chain::step, c, c->fired);
    }
  }
};

TEST(EventQueue, OneShotsRunOneAtATimeFromThePool) {
  EventQueue q;
  Chain c{&q, 0, 100'000, 0, true};
  q.schedule_fn(Tick::from_ps(0), &Chain::step, &c, 0);
  while (q.run_one()) {
    EXPECT_LE(q.pending(), 1U);  // a single one-shot recycled each time
  }
  EXPECT_EQ(c.fired, 100'000U);
  EXPECT_TRUE(c.in_order);
  EXPECT_EQ(c.arg_sum, 100'000ULL * 99'999ULL / 2);
  EXPECT_EQ(q.now().ps(), 3ULL * 99'999ULL);
  EXPECT_EQ(q.processed(), 100'000U);
}

TEST(EventQueue, ManyPendingOneShotsKeepTheirArguments) {
  EventQueue q;
  std::vector<uint64_t> seen;
  auto record = [](void* ctx, uint64_t arg) {
    static_cast<std::vector<uint64_t>*>(ctx)->push_back(arg);
  };
  for (int round = 0; round < 3; ++round) {  // later rounds reuse the pooled one-shots
    seen.clear();
    for (uint64_t i = 0; i < 1000; ++i) {
      q.schedule_fn(q.now() + Duration::ps(1000 - i), record, &seen, i);
    }
    EXPECT_EQ(q.pending(), 1000U);
    run_all(q);
    ASSERT_EQ(seen.size(), 1000U);
    for (uint64_t i = 0; i < 1000; ++i) EXPECT_EQ(seen[i], 999 - i);
  }
}

// A handler that schedules a configurable number of follow-ups, exercising the root-reuse path.
class Fanout final : public Event {
 public:
  Fanout(EventQueue& q, std::vector<std::pair<int, uint64_t>>& log, std::vector<LogEvent*> kids)
      : q_(q), log_(log), kids_(std::move(kids)) {}
  void process() override {
    log_.emplace_back(-1, q_.now().ps());
    uint64_t d = 1;
    for (LogEvent* k : kids_) q_.schedule(*k, q_.now() + Duration::ps(d++));
  }

 private:
  EventQueue& q_;
  std::vector<std::pair<int, uint64_t>>& log_;
  std::vector<LogEvent*> kids_;
};

TEST(EventQueue, HandlersMayScheduleZeroOneOrManyEvents) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent a(q, log, 1);
  LogEvent b(q, log, 2);
  LogEvent c(q, log, 3);
  LogEvent other(q, log, 4);
  Fanout none(q, log, {});
  Fanout many(q, log, {&a, &b, &c});
  q.schedule(none, Tick::from_ps(10));
  q.schedule(many, Tick::from_ps(20));
  q.schedule(other, Tick::from_ps(22));
  run_all(q);
  // `other` was queued for 22 before the handler queued b for 22, so it runs first.
  EXPECT_EQ(log, (std::vector<std::pair<int, uint64_t>>{
                     {-1, 10}, {-1, 20}, {1, 21}, {4, 22}, {2, 22}, {3, 23}}));
}

class Thrower final : public Event {
 public:
  void process() override { throw std::runtime_error("boom"); }
};

TEST(EventQueue, StaysConsistentWhenAHandlerThrows) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  Thrower t;
  LogEvent a(q, log, 1);
  LogEvent b(q, log, 2);
  q.schedule(a, Tick::from_ps(30));
  q.schedule(t, Tick::from_ps(10));
  q.schedule(b, Tick::from_ps(20));
  EXPECT_THROW(q.run_one(), std::runtime_error);
  EXPECT_EQ(q.pending(), 2U);
  EXPECT_EQ(q.next_tick().ps(), 20U);
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{2, 1}));
}

// Randomized schedule / reschedule / deschedule against a reference std::map keyed by
// (tick, band, sequence). Many reschedules make stale entries pile up (and get purged).
class RefEvent final : public Event {
 public:
  explicit RefEvent(std::vector<int>* log, int id) : log_(log), id_(id) {}
  void process() override { log_->push_back(id_); }

 private:
  std::vector<int>* log_;
  int id_;
};

// Runs `steps` random operations on `events` events (all scheduled first) and checks every pop
// against the reference; `spread` is how far ahead events are scheduled.
void check_against_reference(int events, int steps, uint64_t spread, uint64_t seed) {
  EventQueue q;
  Rng rng(seed, "queue-model");
  std::vector<int> log;
  std::vector<std::unique_ptr<RefEvent>> evs;
  for (int i = 0; i < events; ++i) evs.push_back(std::make_unique<RefEvent>(&log, i));
  using Key = std::tuple<uint64_t, int, uint64_t>;
  std::map<Key, int> ref;
  std::vector<std::optional<Key>> key_of(events);
  uint64_t seq = 0;
  std::vector<int> expected;
  const Priority bands[] = {Priority::kFirst, Priority::kDefault, Priority::kLast};
  auto schedule = [&](int id) {
    const uint64_t when = q.now().ps() + rng.below(spread);
    const Priority p = bands[rng.below(3)];
    if (key_of[id]) ref.erase(*key_of[id]);
    key_of[id] = Key{when, static_cast<int>(p), seq++};
    ref[*key_of[id]] = id;
    q.schedule(*evs[id], Tick::from_ps(when), p);
  };
  for (int id = 0; id < events; ++id) schedule(id);
  for (int step = 0; step < steps; ++step) {
    const uint64_t r = rng.below(100);
    const int id = static_cast<int>(rng.below(events));
    if (r < 50) {  // schedule or reschedule
      schedule(id);
    } else if (r < 60) {
      if (key_of[id]) ref.erase(*key_of[id]);
      key_of[id].reset();
      q.deschedule(*evs[id]);
    } else if (!ref.empty()) {
      const auto it = ref.begin();
      expected.push_back(it->second);
      key_of[it->second].reset();
      const uint64_t when = std::get<0>(it->first);
      ref.erase(it);
      ASSERT_TRUE(q.run_one());
      ASSERT_EQ(q.now().ps(), when);
    }
    ASSERT_EQ(q.pending(), ref.size());
  }
  while (!ref.empty()) {
    expected.push_back(ref.begin()->second);
    ref.erase(ref.begin());
    ASSERT_TRUE(q.run_one());
  }
  EXPECT_FALSE(q.run_one());
  EXPECT_EQ(log, expected);
}

TEST(EventQueue, MatchesAReferenceModelUnderRandomOperations) {
  check_against_reference(3000, 200'000, 50, 11);  // many ties, cache-sized heap
}

TEST(EventQueue, MatchesAReferenceModelWithALargeHeap) {
  check_against_reference(30'000, 150'000, 1'000'000, 13);  // the out-of-cache sift path
}

TEST(EventQueue, MatchesAReferenceModelAcrossManyTimeScales) {
  // Delays up to 2^40 ps put entries in high radix levels that are redistributed many times.
  check_against_reference(20'000, 100'000, uint64_t{1} << 40, 17);
}

TEST(EventQueue, SchedulingBeforeAPeekedTickStillRunsFirst) {
  // next_tick() may move the queue's internal reference time up to the next event; an event
  // scheduled afterwards between now and that tick must still run before it, in band order.
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent far(q, log, 1);
  LogEvent near_a(q, log, 2);
  LogEvent near_b(q, log, 3);
  LogEvent same(q, log, 4);
  q.schedule(far, Tick::from_ps(1'000'000));
  EXPECT_EQ(q.next_tick().ps(), 1'000'000U);
  q.schedule(near_a, Tick::from_ps(500));
  q.schedule(same, Tick::from_ps(1'000'000), Priority::kFirst);
  q.schedule(near_b, Tick::from_ps(400), Priority::kLast);
  EXPECT_EQ(q.next_tick().ps(), 400U);
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{3, 2, 4, 1}));
}

// Schedules `kid` at now in band `band` when it fires.
class SpawnAtNow final : public Event {
 public:
  SpawnAtNow(EventQueue& q, std::vector<std::pair<int, uint64_t>>& log, int id, Event& kid,
             Priority band)
      : q_(q), log_(log), id_(id), kid_(kid), band_(band) {}
  void process() override {
    log_.emplace_back(id_, q_.now().ps());
    q_.schedule(kid_, q_.now(), band_);
  }

 private:
  EventQueue& q_;
  std::vector<std::pair<int, uint64_t>>& log_;
  int id_;
  Event& kid_;
  Priority band_;
};

TEST(EventQueue, HandlerSchedulingAtNowInAnEarlierBandRunsNext) {
  // At tick 10, a (default band) schedules spawn_c at now in the first band, which schedules c at
  // now in the last band; d (default band, queued before either) runs between the two.
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent c(q, log, 3);
  LogEvent d(q, log, 4);
  SpawnAtNow spawn_c(q, log, 5, c, Priority::kLast);
  SpawnAtNow a(q, log, 1, spawn_c, Priority::kFirst);
  q.schedule(a, Tick::from_ps(10));
  q.schedule(d, Tick::from_ps(10));
  run_all(q);
  // a -> spawn_c at (10, first) runs before d; spawn_c -> c at (10, last) runs after d.
  EXPECT_EQ(ids(log), (std::vector<int>{1, 5, 4, 3}));
}

TEST(EventQueue, RunOneStopsAtTheLimit) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  std::vector<std::unique_ptr<LogEvent>> evs;
  for (int id = 1; id <= 2; ++id) {
    evs.push_back(std::make_unique<LogEvent>(q, log, id));
    q.schedule(*evs.back(), Tick::from_ps(10 * static_cast<uint64_t>(id)));  // at 10 and 20
  }
  EXPECT_FALSE(q.run_one(Tick::from_ps(9)));
  EXPECT_EQ(q.now().ps(), 0U);
  EXPECT_TRUE(q.run_one(Tick::from_ps(10)));
  EXPECT_FALSE(q.run_one(Tick::from_ps(19)));
  EXPECT_EQ(q.pending(), 1U);
  EXPECT_TRUE(q.run_one(Tick::from_ps(20)));
  EXPECT_FALSE(q.run_one());
  EXPECT_EQ(ids(log), (std::vector<int>{1, 2}));
}

TEST(EventQueue, EventsNearTheEndOfTimeKeepTheirOrder) {
  EventQueue q;
  std::vector<std::pair<int, uint64_t>> log;
  LogEvent a(q, log, 1);
  LogEvent b(q, log, 2);
  LogEvent c(q, log, 3);
  LogEvent d(q, log, 4);
  q.schedule(a, Tick::max());
  q.schedule(b, Tick::from_ps(~uint64_t{0} - 1));
  q.schedule(c, Tick::from_ps(uint64_t{1} << 63));
  q.schedule(d, Tick::max(), Priority::kFirst);
  run_all(q);
  EXPECT_EQ(ids(log), (std::vector<int>{3, 2, 4, 1}));
}

TEST(EventQueue, ManyReschedulesOfPendingEventsKeepTheOrder) {
  // Far-future reschedules leave stale entries that never reach the top; enough of them trigger
  // bulk purges (from schedule() and from deschedule()), which must leave a valid heap.
  EventQueue q;
  Rng rng(12, "purge");
  std::vector<int> log;
  constexpr int kEvents = 600;
  std::vector<std::unique_ptr<RefEvent>> evs;
  for (int i = 0; i < kEvents; ++i) evs.push_back(std::make_unique<RefEvent>(&log, i));
  std::vector<std::pair<uint64_t, int>> final_time;  // (when, id) of the last schedule
  for (int round = 0; round < 20; ++round) {
    final_time.clear();
    for (int i = 0; i < kEvents; ++i) {
      const uint64_t when = 1'000'000 + rng.below(1'000'000'000);
      q.schedule(*evs[i], Tick::from_ps(when));
      final_time.emplace_back(when, i);
    }
    ASSERT_EQ(q.pending(), static_cast<size_t>(kEvents));
  }
  std::vector<std::pair<uint64_t, int>> kept;
  for (const auto& [when, id] : final_time) {
    if (id % 3 == 0) {
      q.deschedule(*evs[id]);
    } else {
      kept.emplace_back(when, id);  // ties: the lower id was scheduled first
    }
  }
  EXPECT_EQ(q.pending(), kept.size());
  std::sort(kept.begin(), kept.end());
  std::vector<int> expected;
  for (const auto& [when, id] : kept) expected.push_back(id);
  run_all(q);
  EXPECT_EQ(log, expected);
  EXPECT_EQ(q.processed(), kept.size());
}

}  // namespace
}  // namespace t3sim
