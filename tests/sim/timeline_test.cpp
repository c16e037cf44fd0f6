// The timeline recorder (sim/timeline.h) and its structural check (sim/timeline_check.h): lanes
// keep complete slices from overlapping, async slices pair up, half-recorded flows lose their
// arrows, bandwidth counters bin bytes into GB/s and merge to stay within their budget, the event
// cap holds, and the checker finds each kind of broken trace it exists for.
#include "sim/timeline.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/timeline_check.h"

namespace t3sim {
namespace {

Tick ns(uint64_t v) { return Tick{} + Duration::ns(v); }

nlohmann::json parsed(const Timeline& tl) { return nlohmann::json::parse(tl.json()); }

std::set<std::string> thread_names(const nlohmann::json& j) {
  std::set<std::string> out;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") out.insert(e["args"]["name"]);
  }
  return out;
}

TEST(Timeline, OverlappingSlicesSpillIntoNamedLanes) {
  Timeline tl;
  tl.process(0, "GPU 0");
  const uint32_t t = tl.track(0, "tracker");
  EXPECT_EQ(tl.track(0, "tracker"), t);  // looked up, not duplicated
  tl.slice(t, "a", ns(0), ns(10));
  tl.slice(t, "b", ns(5), ns(12));   // overlaps a: second lane
  tl.slice(t, "c", ns(2), ns(13));   // overlaps both: third lane
  tl.slice(t, "d", ns(12), ns(20));  // fits the first lane again
  const auto j = parsed(tl);
  EXPECT_EQ(thread_names(j), (std::set<std::string>{"tracker", "tracker #2", "tracker #3"}));
  EXPECT_TRUE(check_timeline(j).empty()) << check_timeline(j).front();
}

TEST(Timeline, AsyncSlicesPairUpPerLane) {
  Timeline tl;
  tl.process(1, "GPU 1");
  const uint32_t t = tl.track(1, "DMA engine 0");
  tl.async(t, "to GPU 2", ns(0), ns(10));
  tl.async(t, "to GPU 3", ns(3), ns(8));
  const auto j = parsed(tl);
  int begins = 0, ends = 0;
  std::set<std::string> ids;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "e") ++ends;
    if (e["ph"] != "b") continue;
    ++begins;
    ids.insert(e["id"]);
    EXPECT_EQ(e["name"], "DMA engine 0");  // the track's name groups them
  }
  EXPECT_EQ(begins, 2);
  EXPECT_EQ(ends, 2);
  EXPECT_EQ(ids.size(), 2u);  // overlapping: two lanes
  EXPECT_TRUE(check_timeline(j).empty());
}

TEST(Timeline, FlowsKeepArrowsOnlyWithBothEnds) {
  TimelineOptions o;
  o.detail_gpus = 1;  // GPU 1's slices are not recorded
  Timeline tl(o);
  tl.process(0, "GPU 0");
  tl.process(1, "GPU 1");
  const uint64_t whole = tl.new_flow(), half = tl.new_flow();
  tl.slice(tl.track(0, "tracker"), "trigger", ns(0), ns(1), whole, FlowRole::kOut);
  tl.async(tl.track(0, "DMA engine 0"), "to GPU 1", ns(1), ns(9), whole, FlowRole::kThrough);
  tl.slice(tl.track(0, "tracker"), "trigger", ns(20), ns(21), half, FlowRole::kOut);
  tl.async(tl.track(1, "remote updates"), "from GPU 0", ns(22), ns(30), half, FlowRole::kIn);
  const auto j = parsed(tl);
  std::set<std::string> bound;
  for (const auto& e : j["traceEvents"]) {
    if (e.contains("bind_id")) bound.insert(e["bind_id"]);
  }
  EXPECT_EQ(bound.size(), 1u);  // the half-recorded flow lost its arrow
  EXPECT_TRUE(check_timeline(j).empty()) << check_timeline(j).front();
}

TEST(Timeline, BandwidthCountersBinBytesIntoGbps) {
  TimelineOptions o;
  o.bin = Duration::ns(10);
  Timeline tl(o);
  tl.process(0, "GPU 0");
  const uint32_t c = tl.counter(0, "HBM gemm_read GB/s");
  tl.bytes(c, ns(0), ns(20), 2000);                // 100 B/ns = 100 GB/s over two bins
  tl.bytes(c, ns(5), ns(10), 500);                 // +50 B in bin 0: 150 GB/s there
  std::vector<std::pair<double, double>> samples;  // ts (us), value
  const auto j = parsed(tl);
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "C") samples.emplace_back(e["ts"], e["args"]["value"]);
  }
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_DOUBLE_EQ(samples[0].second, 150.0);
  EXPECT_DOUBLE_EQ(samples[1].second, 100.0);
  EXPECT_DOUBLE_EQ(samples[1].first, 0.01);
  EXPECT_DOUBLE_EQ(samples[2].second, 0.0);  // ends at zero
  EXPECT_TRUE(check_timeline(j).empty());
}

TEST(Timeline, CountersMergeBinsToFitTheirBudget) {
  TimelineOptions o;
  o.bin = Duration::ns(1);
  o.counter_points = 100;
  Timeline tl(o);
  tl.process(0, "GPU 0");
  const uint32_t c = tl.counter(0, "link gpu0 -> gpu1 GB/s");
  for (uint64_t i = 0; i < 1000; ++i) tl.bytes(c, ns(i), ns(i + 1), i % 2 == 0 ? 10 : 30);
  size_t samples = 0;
  double first = -1;
  const auto j = parsed(tl);
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "C") continue;
    ++samples;
    if (first < 0) first = e["args"]["value"];
  }
  EXPECT_LE(samples, 101u);
  EXPECT_DOUBLE_EQ(first, 20.0);  // merged bins average the alternating 10 and 30 GB/s
}

TEST(Timeline, LevelsWithinOneNanosecondKeepTheLastValue) {
  Timeline tl;
  tl.process(0, "GPU 0");
  const uint32_t c = tl.counter(0, "tracker occupancy");
  tl.level(c, ns(1), 1);
  tl.level(c, ns(1) + Duration::ps(400), 2);  // the same ns in the trace
  tl.level(c, ns(2), 1);
  std::vector<double> v;
  const auto j = parsed(tl);
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "C") v.push_back(e["args"]["value"]);
  }
  EXPECT_EQ(v, (std::vector<double>{2, 1}));
}

TEST(Timeline, TheEventCapHoldsAndCountsTheRest) {
  TimelineOptions o;
  o.max_events = 10;
  Timeline tl(o);
  tl.process(0, "GPU 0");
  const uint32_t t = tl.track(0, "collective channel 0");
  for (uint64_t i = 0; i < 25; ++i) tl.slice(t, "RS step", ns(i * 10), ns(i * 10 + 5));
  EXPECT_EQ(tl.recorded(), 10u);
  EXPECT_EQ(tl.dropped(), 15u);
  EXPECT_EQ(parsed(tl)["otherData"]["dropped"], 15);
}

TEST(Timeline, JsonIsDeterministic) {
  const auto make = [] {
    Timeline tl;
    tl.process(0, "GPU 0");
    tl.slice(tl.track(0, "CUs 0-15"), "gemm0", ns(0), ns(3));
    tl.bytes(tl.counter(0, "HBM rs_read GB/s"), ns(0), ns(3), 99);
    return tl.json();
  };
  EXPECT_EQ(make(), make());
}

// The checker itself: each broken trace is caught.
nlohmann::json trace_of(const char* events) {
  return nlohmann::json::parse(
      std::string("{\"traceEvents\": [") +
      "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":"
      "\"P\"}},{\"ph\":\"M\",\"pid\":0,\"tid\":1,\"name\":\"thread_name\","
      "\"args\":{\"name\":\"T\"}}," +
      events + "]}");
}

TEST(TimelineCheck, FindsPartialOverlapButAcceptsNesting) {
  EXPECT_TRUE(check_timeline(trace_of(R"({"ph":"X","pid":0,"tid":1,"name":"a","ts":0,"dur":10},
      {"ph":"X","pid":0,"tid":1,"name":"b","ts":2,"dur":3})"))
                  .empty());
  const auto p = check_timeline(trace_of(R"({"ph":"X","pid":0,"tid":1,"name":"a","ts":0,"dur":10},
      {"ph":"X","pid":0,"tid":1,"name":"b","ts":5,"dur":10})"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("partially overlaps"), std::string::npos);
}

TEST(TimelineCheck, FindsFlowsWithOneEnd) {
  const auto p = check_timeline(trace_of(
      R"({"ph":"X","pid":0,"tid":1,"name":"a","ts":0,"dur":1,"bind_id":"0x1","flow_out":true})"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("lacks an end"), std::string::npos);
}

TEST(TimelineCheck, FindsCountersGoingBackInTime) {
  const auto p = check_timeline(trace_of(R"({"ph":"C","pid":0,"name":"c","ts":5,"args":{"v":1}},
      {"ph":"C","pid":0,"name":"c","ts":4,"args":{"v":2}})"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("back in time"), std::string::npos);
}

TEST(TimelineCheck, FindsUnnamedTracksAndUnpairedAsyncSlices) {
  const auto p = check_timeline(trace_of(R"({"ph":"X","pid":0,"tid":7,"name":"a","ts":0,"dur":1},
      {"ph":"b","cat":"transfer","id":"0x3","pid":0,"name":"x","ts":0})"));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_NE(p[0].find("never ends"), std::string::npos);
  EXPECT_NE(p[1].find("no thread_name"), std::string::npos);
}

}  // namespace
}  // namespace t3sim
