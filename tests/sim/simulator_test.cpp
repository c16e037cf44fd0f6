// Contracts of sim/simulator.h: run() drains the queue, run_until() stops at its limit leaving
// later events pending, stop() from inside an event, named RNG streams, the lifecycle hooks and
// dump().
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace t3sim {
namespace {

using namespace literals;

// Fires at the times it is given, recording each; optionally stops the simulator at one of them.
class Ticker : public Component {
 public:
  Ticker(Simulator& sim, std::string name, std::vector<uint64_t> times_ps)
      : Component(sim, &sim.root(), std::move(name)), times_(std::move(times_ps)), ev_(this) {}
  void init() override {
    ++inits;
    if (!times_.empty()) schedule_at(ev_, Tick::from_ps(times_[0]));
  }
  void finish() override { ++finishes; }
  void fire() {
    fired.push_back(now().ps());
    if (now().ps() == stop_at) sim().stop();
    if (fired.size() < times_.size()) schedule_at(ev_, Tick::from_ps(times_[fired.size()]));
  }
  std::vector<uint64_t> fired;
  uint64_t stop_at = UINT64_MAX;
  int inits = 0;
  int finishes = 0;

 private:
  std::vector<uint64_t> times_;
  MemberEvent<Ticker, &Ticker::fire> ev_;
};

TEST(Simulator, RunDrainsTheQueue) {
  Simulator sim;
  Ticker t(sim, "t", {10, 20, 35});
  sim.run();
  EXPECT_EQ(t.fired, (std::vector<uint64_t>{10, 20, 35}));
  EXPECT_EQ(sim.now().ps(), 35U);
  EXPECT_EQ(sim.events(), 3U);
  EXPECT_TRUE(sim.queue().empty());
  EXPECT_EQ(t.inits, 1);  // run() elaborated once
  sim.finish();
  EXPECT_EQ(t.finishes, 1);
}

TEST(Simulator, RunUntilStopsAtTheLimitAndLeavesLaterEventsPending) {
  Simulator sim;
  Ticker t(sim, "t", {10, 20, 30, 40});
  sim.run_until(Tick::from_ps(30));  // inclusive
  EXPECT_EQ(t.fired, (std::vector<uint64_t>{10, 20, 30}));
  EXPECT_EQ(sim.queue().pending(), 1U);
  EXPECT_EQ(sim.queue().next_tick().ps(), 40U);
  EXPECT_LE(sim.now().ps(), 30U);
  sim.run_until(Tick::from_ps(39));
  EXPECT_EQ(t.fired.size(), 3U);
  sim.run();
  EXPECT_EQ(t.fired, (std::vector<uint64_t>{10, 20, 30, 40}));
  EXPECT_EQ(sim.events(), 4U);
  EXPECT_EQ(t.inits, 1);  // elaborated only once across the runs
}

TEST(Simulator, StopFromInsideAnEventEndsTheRunAfterIt) {
  Simulator sim;
  Ticker t(sim, "t", {10, 20, 30});
  Ticker u(sim, "u", {20, 25});
  t.stop_at = 20;
  sim.run();
  // u@20 was scheduled at init, before t re-scheduled itself for 20, so it runs first; after t's
  // stop nothing else runs.
  EXPECT_EQ(t.fired, (std::vector<uint64_t>{10, 20}));
  EXPECT_EQ(u.fired, (std::vector<uint64_t>{20}));
  EXPECT_EQ(sim.now().ps(), 20U);
  EXPECT_EQ(sim.queue().pending(), 2U);
  EXPECT_EQ(sim.events(), 3U);
  sim.run();  // resumes
  EXPECT_EQ(t.fired, (std::vector<uint64_t>{10, 20, 30}));
  EXPECT_EQ(u.fired, (std::vector<uint64_t>{20, 25}));
}

TEST(Simulator, EventsCountsProcessedEventsOnly) {
  Simulator sim;
  Ticker t(sim, "t", {5, 6, 7, 8, 9});
  EXPECT_EQ(sim.events(), 0U);
  sim.run_until(Tick::from_ps(7));
  EXPECT_EQ(sim.events(), 3U);
  sim.run();
  EXPECT_EQ(sim.events(), 5U);
}

class Caller : public Component {
 public:
  explicit Caller(Simulator& sim) : Component(sim, &sim.root(), "caller") {}
  void hit(uint64_t arg) { hits.emplace_back(now().ps(), arg); }
  std::vector<std::pair<uint64_t, uint64_t>> hits;
};

TEST(Simulator, CallAtRunsAPooledMemberCallWithItsArgument) {
  Simulator sim;
  Caller c(sim);
  sim.call_at<Caller, &Caller::hit>(Tick::from_ps(50), &c, 7);
  sim.call_at<Caller, &Caller::hit>(Tick::from_ps(20), &c, 9, Priority::kLast);
  sim.call_at<Caller, &Caller::hit>(Tick::from_ps(20), &c, 8, Priority::kFirst);
  sim.run();
  EXPECT_EQ(c.hits, (std::vector<std::pair<uint64_t, uint64_t>>{{20, 8}, {20, 9}, {50, 7}}));
}

class Once : public Event {
 public:
  explicit Once(Simulator& sim) : sim_(sim) {}
  void process() override { at = sim_.now().ps(); }
  uint64_t at = 0;

 private:
  Simulator& sim_;
};

TEST(Simulator, ScheduleInIsRelativeToNow) {
  Simulator sim;
  Ticker t(sim, "t", {100});
  Once once(sim);
  sim.run();
  sim.schedule_in(once, 5_ns);
  sim.run();
  EXPECT_EQ(once.at, 5100U);
}

TEST(Simulator, RngStreamsAreDeterministicAndIndependentByName) {
  Simulator a(42);
  Simulator b(42);
  Simulator c(43);
  Rng a1 = a.rng("traffic");
  Rng b1 = b.rng("traffic");
  Rng a2 = a.rng("arbiter");
  Rng c1 = c.rng("traffic");
  int same_name = 0;
  int other_name = 0;
  int other_seed = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a1.next();
    same_name += x == b1.next();
    other_name += x == a2.next();
    other_seed += x == c1.next();
  }
  EXPECT_EQ(same_name, 1000);
  EXPECT_EQ(other_name, 0);
  EXPECT_EQ(other_seed, 0);
  EXPECT_EQ(a.seed(), 42U);
  // Drawing from one stream does not perturb a fresh copy of another.
  Rng again = a.rng("arbiter");
  Rng fresh = Simulator(42).rng("arbiter");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(again.next(), fresh.next());
}

TEST(Simulator, DumpHasConfigSimAndStats) {
  Simulator sim(9);
  Ticker t(sim, "t", {10, 20});
  Counter c;
  c.inc(3);
  t.stats().add("count", c, "count", "a counter");
  sim.run();
  const auto j = sim.dump(nlohmann::json{{"answer", 42}});
  EXPECT_EQ(j["config"]["answer"], 42);
  EXPECT_EQ(j["sim"]["ticks_ps"], 20U);
  EXPECT_EQ(j["sim"]["events"], 2U);
  EXPECT_EQ(j["sim"]["seed"], 9U);
  EXPECT_EQ(j["stats"]["t"]["count"]["value"], 3U);
}

TEST(Simulator, OutputDirDefaultsToTheWorkingDirectory) {
  Simulator sim;
  EXPECT_EQ(sim.output_dir(), std::filesystem::path("."));
  sim.set_output_dir("results/x");
  EXPECT_EQ(sim.output_dir(), std::filesystem::path("results/x"));
}

}  // namespace
}  // namespace t3sim
