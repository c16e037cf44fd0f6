// Event-queue throughput: the classic hold model. P events are pending; each handler schedules one
// new event at now + a uniform random delay in [1, 2 * kMeanDelay] ps, so the queue size stays P.
// Runs N events on the t3sim EventQueue (each of P objects owns one MemberEvent and re-schedules
// itself) and on a naive std::priority_queue of (time, seq, std::function) callbacks, with the same
// random stream (the two must end at the same time). Each is run 3 times, alternating, and the
// best kept. Prints one line per configuration, then `events_per_s=<N> baseline_ratio=<R>` for the
// last P. Usage: t3sim_bench_events [events (default 10'000'000)] [P... (default 1024 65536)].
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <queue>
#include <tuple>
#include <vector>

#include "sim/event_queue.h"
#include "sim/rng.h"

namespace {

using t3sim::Duration;
using t3sim::EventQueue;
using t3sim::MemberEvent;
using t3sim::Rng;
using t3sim::Tick;

constexpr uint64_t kMeanDelay = 1'000'000;  // 1 us in ps
constexpr int kRounds = 3;

uint64_t draw_delay(Rng& rng) { return 1 + rng.below(2 * kMeanDelay); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One object of the hold model: fires, then re-schedules itself.
class Holder {
 public:
  Holder(EventQueue& q, Rng& rng) : q_(q), rng_(rng), ev_(this) {}
  void start() { q_.schedule(ev_, q_.now() + Duration::ps(draw_delay(rng_))); }
  void fire() { q_.schedule(ev_, q_.now() + Duration::ps(draw_delay(rng_))); }

 private:
  EventQueue& q_;
  Rng& rng_;
  MemberEvent<Holder, &Holder::fire> ev_;
};

// Returns events per second; `checksum` receives the final time (keeps the work observable).
double run_t3sim(size_t pending, uint64_t events, uint64_t& checksum) {
  EventQueue q;
  Rng rng(42, "hold");
  std::vector<std::unique_ptr<Holder>> holders;
  holders.reserve(pending);
  for (size_t i = 0; i < pending; ++i) {
    holders.push_back(std::make_unique<Holder>(q, rng));
    holders.back()->start();
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < events; ++i) q.run_one();
  const double s = seconds_since(t0);
  if (q.pending() != pending || q.processed() != events) {
    std::fprintf(stderr, "t3sim queue lost events: pending %zu, processed %llu\n", q.pending(),
                 static_cast<unsigned long long>(q.processed()));
    std::exit(1);
  }
  checksum = q.now().ps();
  return static_cast<double>(events) / s;
}

// The naive baseline: a binary heap of (time, seq, std::function) through std::priority_queue.
class NaiveQueue {
 public:
  using Item = std::tuple<uint64_t, uint64_t, std::function<void()>>;
  struct Later {
    bool operator()(const Item& a, const Item& b) const {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                              : std::get<1>(a) > std::get<1>(b);
    }
  };
  uint64_t now() const { return now_; }
  size_t size() const { return heap_.size(); }
  void schedule(uint64_t when, std::function<void()> fn) {
    heap_.emplace(when, seq_++, std::move(fn));
  }
  void run_one() {
    Item top = std::move(const_cast<Item&>(heap_.top()));
    heap_.pop();
    now_ = std::get<0>(top);
    std::get<2>(top)();
  }

 private:
  std::priority_queue<Item, std::vector<Item>, Later> heap_;
  uint64_t now_ = 0;
  uint64_t seq_ = 0;
};

struct NaiveHolder {
  NaiveQueue* q;
  Rng* rng;
  void fire() {
    q->schedule(q->now() + draw_delay(*rng), [this] { fire(); });
  }
};

double run_baseline(size_t pending, uint64_t events, uint64_t& checksum) {
  NaiveQueue q;
  Rng rng(42, "hold");
  std::vector<NaiveHolder> holders(pending, NaiveHolder{&q, &rng});
  for (auto& h : holders) q.schedule(draw_delay(rng), [&h] { h.fire(); });
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < events; ++i) q.run_one();
  const double s = seconds_since(t0);
  if (q.size() != pending) {
    std::fprintf(stderr, "baseline queue lost events: %zu pending\n", q.size());
    std::exit(1);
  }
  checksum = q.now();
  return static_cast<double>(events) / s;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000ULL;
  if (events == 0) {
    std::fprintf(stderr, "usage: t3sim_bench_events [events > 0] [pending...]\n");
    return 2;
  }
  std::vector<size_t> configs{1024, 65536};
  if (argc > 2) configs.clear();
  for (int i = 2; i < argc; ++i) configs.push_back(std::strtoull(argv[i], nullptr, 10));
  double last_rate = 0;
  double last_ratio = 0;
  for (const size_t pending : configs) {
    // Alternate the two queues kRounds times and keep each one's best: on a shared machine this
    // filters out time slices lost to other processes.
    double t3 = 0;
    double naive = 0;
    for (int round = 0; round < kRounds; ++round) {
      uint64_t t3_end = 0;
      uint64_t naive_end = 0;
      t3 = std::max(t3, run_t3sim(pending, events, t3_end));
      naive = std::max(naive, run_baseline(pending, events, naive_end));
      if (t3_end != naive_end) {
        std::fprintf(stderr, "queues disagree: end time %llu vs %llu ps\n",
                     static_cast<unsigned long long>(t3_end),
                     static_cast<unsigned long long>(naive_end));
        return 1;
      }
    }
    last_rate = t3;
    last_ratio = t3 / naive;
    std::printf(
        "hold P=%zu N=%llu (best of %d): t3sim %.1f M events/s, baseline %.1f M events/s, "
        "ratio %.2f\n",
        pending, static_cast<unsigned long long>(events), kRounds, t3 / 1e6, naive / 1e6,
        last_ratio);
    std::fflush(stdout);
  }
  std::printf("events_per_s=%llu baseline_ratio=%.2f\n", static_cast<unsigned long long>(last_rate),
              last_ratio);
  return 0;
}
