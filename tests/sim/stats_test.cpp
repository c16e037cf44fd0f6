// Contracts of sim/stats.h: counters, accumulators, time-weighted means (checked against hand
// computation), histograms with an overflow bucket, formulas evaluated at dump time, and a dump
// that carries value/unit/desc in registration order.
#include "sim/stats.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/errors.h"

namespace t3sim {
namespace {

Tick at(uint64_t ps) { return Tick::from_ps(ps); }

TEST(Counter, IncrementsAndResets) {
  Counter c;
  EXPECT_EQ(c.value(), 0U);
  c.inc();
  c.inc(41);
  EXPECT_EQ(c.value(), 42U);
  c.reset();
  EXPECT_EQ(c.value(), 0U);
}

TEST(Accumulator, SumCountMeanMinMax) {
  Accumulator a;
  EXPECT_EQ(a.count(), 0U);
  EXPECT_EQ(a.mean(), 0.0);
  for (double x : {4.0, -2.0, 10.0, 0.5}) a.sample(x);
  EXPECT_EQ(a.count(), 4U);
  EXPECT_DOUBLE_EQ(a.sum(), 12.5);
  EXPECT_DOUBLE_EQ(a.mean(), 3.125);
  EXPECT_DOUBLE_EQ(a.min(), -2.0);
  EXPECT_DOUBLE_EQ(a.max(), 10.0);
}

TEST(Accumulator, FirstSampleSetsMinAndMax) {
  Accumulator a;
  a.sample(7.0);
  EXPECT_DOUBLE_EQ(a.min(), 7.0);  // not the initial 0
  EXPECT_DOUBLE_EQ(a.max(), 7.0);
}

TEST(TimeWeighted, MeanIsTheIntegralOverElapsedTime) {
  TimeWeighted q;
  q.set(at(0), 2);   // 2 for 10 ps
  q.set(at(10), 5);  // 5 for 20 ps
  q.set(at(30), 0);  // 0 for 10 ps
  // (2*10 + 5*20 + 0*10) / 40 = 3
  EXPECT_DOUBLE_EQ(q.mean(at(40)), 3.0);
  EXPECT_EQ(q.max(), 5);
  EXPECT_EQ(q.value(), 0);
  // Closing later without a change keeps integrating the current level (0 here).
  EXPECT_DOUBLE_EQ(q.mean(at(60)), 2.0);
}

TEST(TimeWeighted, AddChangesTheLevelAndTheOpenIntervalCounts) {
  TimeWeighted q;
  q.add(at(5), 1);    // 0 for [0,5), then 1
  q.add(at(15), 2);   // 1 for [5,15), then 3
  q.add(at(20), -3);  // 3 for [15,20), then 0
  // (0*5 + 1*10 + 3*5) / 20 = 1.25
  EXPECT_DOUBLE_EQ(q.mean(at(20)), 1.25);
  q.add(at(20), 4);
  // still at 20 -> unchanged mean; at 30: (25 + 4*10) / 30
  EXPECT_DOUBLE_EQ(q.mean(at(30)), 65.0 / 30.0);
  EXPECT_EQ(q.max(), 4);
  EXPECT_DOUBLE_EQ(TimeWeighted().mean(at(0)), 0.0);
}

TEST(Histogram, BucketsAndOverflow) {
  Histogram h(10, 3);  // [0,10) [10,20) [20,30) overflow
  for (uint64_t x : {0, 9, 10, 29, 30, 1000}) h.sample(x);
  h.sample(15, 5);
  EXPECT_EQ(h.counts(), (std::vector<uint64_t>{2, 6, 1, 2}));
  EXPECT_EQ(h.bucket_width(), 10U);
}

TEST(StatGroup, DumpHasValueUnitDescInRegistrationOrder) {
  StatGroup g("root");
  Counter bytes;
  Counter msgs;
  bytes.inc(64);
  msgs.inc(2);
  g.add("bytes", bytes, "B", "payload bytes");
  g.add("messages", msgs, "count", "messages sent");
  const auto j = g.dump(at(0));
  EXPECT_EQ(j["bytes"]["value"], 64U);
  EXPECT_EQ(j["bytes"]["unit"], "B");
  EXPECT_EQ(j["bytes"]["desc"], "payload bytes");
  EXPECT_EQ(j.begin().key(), "bytes");
  EXPECT_EQ(std::next(j.begin()).key(), "messages");
  // The dump reads the live member, not a copy taken at registration.
  bytes.inc(1);
  EXPECT_EQ(g.dump(at(0))["bytes"]["value"], 65U);
}

TEST(StatGroup, EveryKindDumps) {
  StatGroup g("g");
  Accumulator lat;
  lat.sample(1.0);
  lat.sample(3.0);
  TimeWeighted depth;
  depth.set(at(0), 4);
  Histogram h(100, 2);
  h.sample(150);
  g.add("latency", lat, "ns", "latency");
  g.add("depth", depth, "entries", "queue depth");
  g.add("sizes", h, "B", "size histogram");
  const auto j = g.dump(at(10));
  EXPECT_EQ(j["latency"]["value"]["count"], 2U);
  EXPECT_DOUBLE_EQ(j["latency"]["value"]["mean"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["depth"]["value"]["mean"].get<double>(), 4.0);
  EXPECT_EQ(j["depth"]["value"]["max"], 4);
  EXPECT_EQ(j["sizes"]["value"]["counts"], (std::vector<uint64_t>{0, 1, 0}));
  EXPECT_EQ(j["sizes"]["value"]["bucket_width"], 100U);
}

TEST(StatGroup, FormulasAreEvaluatedAtDumpTime) {
  StatGroup g("link");
  Counter busy;
  Counter total;
  g.add_formula(
      "utilisation",
      [&] { return total.value() ? static_cast<double>(busy.value()) / total.value() : 0.0; },
      "ratio", "busy / total");
  busy.inc(3);  // changed after registration
  total.inc(4);
  EXPECT_DOUBLE_EQ(g.dump(at(0))["utilisation"]["value"].get<double>(), 0.75);
  busy.inc(1);
  EXPECT_DOUBLE_EQ(g.dump(at(0))["utilisation"]["value"].get<double>(), 1.0);
}

TEST(StatGroup, NestedGroupsDumpAsObjects) {
  StatGroup root("stats");
  Counter c;
  c.inc(9);
  root.group("gpu0").group("hbm").add("reads", c, "count", "reads");
  EXPECT_EQ(&root.group("gpu0"), &root.group("gpu0"));  // the same group, not a new one
  const auto j = root.dump(at(0));
  EXPECT_EQ(j["gpu0"]["hbm"]["reads"]["value"], 9U);
  const auto d = root.describe();
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0]["name"], "gpu0.hbm.reads");
  EXPECT_EQ(d[0]["kind"], "counter");
  EXPECT_EQ(d[0]["unit"], "count");
}

TEST(StatGroup, DuplicateNamesThrow) {
  StatGroup g("g");
  Counter a;
  Counter b;
  g.add("x", a, "count", "first");
  EXPECT_THROW(g.add("x", b, "count", "second"), ModelError);
  EXPECT_THROW(g.add_formula(
                   "x", [] { return 0.0; }, "", ""),
               ModelError);
  g.group("sub");
  EXPECT_THROW(g.add("sub", b, "count", "clashes with a group"), ModelError);
}

}  // namespace
}  // namespace t3sim
