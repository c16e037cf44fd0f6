// The Simulator: a value that owns the event queue, the component tree's root, the stats tree, the
// seeded RNG streams and the output directory. There are no globals: tests build their own.
// Lifecycle: build components -> elaborate() (wiring check, init hooks) -> run()/run_until() ->
// finish() (end-of-run invariants) -> dump_stats().
// Contract: run() returns when the queue is empty or stop() was called; time never goes backwards.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/component.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/timeline.h"

namespace t3sim {

class Simulator {
 public:
  explicit Simulator(uint64_t seed = 1);
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Tick now() const { return queue_.now(); }
  EventQueue& queue() { return queue_; }
  Component& root() { return root_; }
  StatGroup& stats() { return stats_; }
  uint64_t seed() const { return seed_; }
  uint64_t events() const { return queue_.processed(); }

  // Models schedule through these: Tick::max() is a time past 2^64 ps, saturated (units.h), and a
  // UsageError naming the slow rate (the queue itself still orders events at any tick).
  void schedule(Event& ev, Tick when, Priority prio = Priority::kDefault) {
    if (when == Tick::max()) [[unlikely]]
      past_end_of_time();
    queue_.schedule(ev, when, prio);
  }
  void schedule_in(Event& ev, Duration d, Priority prio = Priority::kDefault) {
    schedule(ev, now() + d, prio);
  }
  // Pooled one-shot: calls (obj->*M)(arg) at `when`.
  template <class T, void (T::*M)(uint64_t)>
  void call_at(Tick when, T* obj, uint64_t arg, Priority prio = Priority::kDefault) {
    if (when == Tick::max()) [[unlikely]]
      past_end_of_time();
    queue_.schedule_fn(
        when, [](void* ctx, uint64_t a) { (static_cast<T*>(ctx)->*M)(a); }, obj, arg, prio);
  }

  [[noreturn]] [[gnu::cold]] void past_end_of_time() const;

  // Checks the wiring (every non-optional port connected, no dangling links) and runs init().
  void elaborate();
  void run();
  void run_until(Tick limit);
  void stop() { stopped_ = true; }
  // Runs finish() on every component (end-of-run invariants).
  void finish();

  Rng rng(std::string_view stream) const { return Rng(seed_, stream); }
  // Optional Perfetto trace sink (nullptr = tracing off; models test it before emitting).
  void set_timeline(Timeline* t) { timeline_ = t; }
  Timeline* timeline() const { return timeline_; }
  void set_output_dir(std::filesystem::path dir) { out_dir_ = std::move(dir); }
  const std::filesystem::path& output_dir() const { return out_dir_; }

  // {"config": resolved_config, "stats": tree, "sim": {"ticks_ps", "events"}}.
  nlohmann::ordered_json dump(const nlohmann::json& resolved_config) const;

 private:
  EventQueue queue_;
  StatGroup stats_{"stats"};
  Component root_;
  uint64_t seed_;
  bool stopped_ = false;
  bool elaborated_ = false;
  std::filesystem::path out_dir_ = ".";
  Timeline* timeline_ = nullptr;
};

}  // namespace t3sim
