// Property tests of sim/event_queue.h: random interleavings of schedule, reschedule, deschedule,
// next_tick() peeks and pops, with handlers that schedule at `now` in earlier and later bands,
// delays from 0 to beyond 2^56 ps (or crowded below 512 ps, or sparse) and any of the 256 bands,
// checked pop by pop against a reference std::priority_queue ordered by (tick, band, sequence) that
// skips cancelled entries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <tuple>
#include <vector>

#include "sim/event_queue.h"
#include "sim/rng.h"

namespace t3sim {
namespace {

// How the random operations are drawn (percentages).
struct Mix {
  uint64_t huge_delay_pct;     // delays of 2^56 ps and more
  uint64_t at_now_pct;         // delay 0
  uint64_t handler_spawn_pct;  // a handler schedules another event at now + (0..15) ps
  int near_bits;               // if not 0: the other delays are below 2^near_bits ps (else mixed)
};

class Model;

class PropEvent final : public Event {
 public:
  PropEvent(Model* m, int id) : model_(m), id_(id) {}
  void process() override;

 private:
  Model* model_;
  int id_;
};

class Model {
 public:
  Model(int events, uint64_t seed, Mix mix) : rng_(seed, "queue-property"), mix_(mix) {
    for (int i = 0; i < events; ++i) evs_.push_back(std::make_unique<PropEvent>(this, i));
    seq_of_.assign(events, 0);
  }

  void schedule(int id, uint64_t when, uint8_t band) {
    seq_of_[id] = ++seq_;
    ref_.emplace(when, band, seq_, id);
    q_.schedule(*evs_[id], Tick::from_ps(when), static_cast<Priority>(band));
  }
  void deschedule(int id) {
    seq_of_[id] = 0;  // its reference entry becomes stale
    q_.deschedule(*evs_[id]);
  }
  uint8_t draw_band() {
    static constexpr uint8_t kNamed[] = {0, 50, 70, 90, 100};
    const uint64_t r = rng_.below(7);
    return r < 5 ? kNamed[r] : static_cast<uint8_t>(rng_.below(256));
  }
  uint64_t draw_when() {
    const uint64_t now = q_.now().ps();
    const uint64_t room = std::numeric_limits<uint64_t>::max() - now;
    const uint64_t r = rng_.below(100);
    uint64_t delay;
    if (r < mix_.huge_delay_pct) {
      delay = (uint64_t{1} << 56) + rng_.below(uint64_t{1} << 60);
    } else if (r < mix_.huge_delay_pct + mix_.at_now_pct) {
      delay = 0;
    } else {
      const int bits[] = {4, 8, 9, 16, 20, 33};
      const int b = mix_.near_bits != 0 ? mix_.near_bits : bits[rng_.below(6)];
      delay = rng_.below(uint64_t{1} << b);
    }
    return now + std::min(delay, room);
  }
  // Drops stale reference entries; returns the next live one's key, if any.
  const std::tuple<uint64_t, int, uint64_t, int>* ref_top() {
    while (!ref_.empty() && seq_of_[std::get<3>(ref_.top())] != std::get<2>(ref_.top())) ref_.pop();
    return ref_.empty() ? nullptr : &ref_.top();
  }
  // Pops one event from both; false (with a failure recorded) if they disagree.
  bool pop_both() {
    const auto* top = ref_top();
    if (top == nullptr) return !q_.run_one();
    const auto [when, band, seq, id] = *top;
    ref_.pop();
    seq_of_[id] = 0;
    const size_t ran = ran_.size();
    EXPECT_TRUE(q_.run_one());
    EXPECT_EQ(ran_.size(), ran + 1);
    if (ran_.size() != ran + 1) return false;
    EXPECT_EQ(ran_[ran], id) << "tick " << when << " band " << band << " seq " << seq;
    EXPECT_EQ(q_.now().ps(), when);
    return ran_[ran] == id && q_.now().ps() == when;
  }
  void fired(int id) {
    ran_.push_back(id);
    if (rng_.below(100) < mix_.handler_spawn_pct) {
      const int other = static_cast<int>(rng_.below(evs_.size()));
      const uint64_t now = q_.now().ps();
      const uint64_t delay = rng_.below(2) * rng_.below(16);  // half of them at now
      const uint8_t band = draw_band();
      schedule(other, now + std::min(delay, std::numeric_limits<uint64_t>::max() - now), band);
    }
  }

  // Runs `steps` random operations, then drains both queues.
  void run(int steps) {
    for (int step = 0; step < steps; ++step) {
      const uint64_t r = rng_.below(100);
      const int id = static_cast<int>(rng_.below(evs_.size()));
      if (r < 40) {
        const uint64_t when = draw_when();
        const uint8_t band = draw_band();
        schedule(id, when, band);
      } else if (r < 48) {
        deschedule(id);
      } else if (r < 58) {
        const auto* top = ref_top();
        ASSERT_EQ(q_.next_tick().ps(), top ? std::get<0>(*top) : Tick::max().ps());
      } else {
        ASSERT_TRUE(pop_both()) << "step " << step;
      }
      ASSERT_EQ(q_.pending(), live_count());
    }
    while (ref_top() != nullptr) ASSERT_TRUE(pop_both());
    EXPECT_FALSE(q_.run_one());
    EXPECT_TRUE(q_.empty());
  }

 private:
  size_t live_count() const {
    size_t n = 0;
    for (const uint64_t s : seq_of_) n += s != 0;
    return n;
  }

  EventQueue q_;
  Rng rng_;
  Mix mix_;
  std::vector<std::unique_ptr<PropEvent>> evs_;
  std::vector<uint64_t> seq_of_;  // sequence of each event's live reference entry (0: none)
  uint64_t seq_ = 0;
  std::priority_queue<std::tuple<uint64_t, int, uint64_t, int>,
                      std::vector<std::tuple<uint64_t, int, uint64_t, int>>, std::greater<>>
      ref_;
  std::vector<int> ran_;
};

void PropEvent::process() { model_->fired(id_); }

TEST(EventQueueProperty, ManyTiesAcrossAllBandsAndHandlersSchedulingAtNow) {
  Model(64, 1, Mix{0, 30, 40, 0}).run(200'000);
}

TEST(EventQueueProperty, LargePopulationWithShortAndMediumDelays) {
  Model(5000, 2, Mix{0, 5, 10, 0}).run(200'000);
}

TEST(EventQueueProperty, TimeJumpsBeyondTwoToThe56Picoseconds) {
  // Jumps of 2^56 ps and more walk time up to the end of the range (delays are clipped there), so
  // the top radix levels, and ticks at Tick::max(), are exercised too.
  Model(500, 3, Mix{20, 10, 20, 0}).run(100'000);
}

TEST(EventQueueProperty, RareHugeJumpsAmongManyNearEvents) {
  Model(2000, 4, Mix{1, 10, 20, 0}).run(150'000);
}

TEST(EventQueueProperty, CrowdedWindowsOfEverySizeKeepTheOrder) {
  // Delays below 512 ps crowd each 256 ps window with about half the population, so its sort meets
  // every size (ranked keys, sorted keys, sorted entries); handlers scheduling at now in any band
  // and the events rescheduled into the open window arrive behind later ones, out of order.
  for (const int events : {40, 300, 3000}) {
    Model(events, 5 + static_cast<uint64_t>(events), Mix{0, 10, 30, 9}).run(100'000);
  }
}

TEST(EventQueueProperty, SparseWideWindowsKeepTheOrder) {
  // Delays below 2^18 or 2^20 ps leave a few entries per 65536 ps span, so sparse level-2 buckets
  // open as one wide window (nearly in order, or shuffled past the insertion sort's budget); events
  // at now then land in front of later ones of the window, which make room for them.
  for (const int events : {16, 64, 400}) {
    for (const int near_bits : {18, 20}) {
      Model(events, 20 + static_cast<uint64_t>(events + near_bits), Mix{0, 20, 40, near_bits})
          .run(100'000);
    }
  }
}

}  // namespace
}  // namespace t3sim
