// The compact store of a Kineto import's events (kineto_events.h): an event decodes to the value
// pushed (numbers keep their type, nested args their structure), events are read back by index in
// push order, the whole-document array form holds every element, and a kept kernel event takes a
// few hundred bytes, not the ~2 KB of a parsed object.
#include "models/workload/kineto_events.h"

#include <gtest/gtest.h>

namespace t3sim::workload {
namespace {

nlohmann::json kernel(int i) {
  return {
      {"ph", "X"},
      {"cat", "kernel"},
      {"name", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"},
      {"pid", 0},
      {"tid", 7},
      {"ts", 1000.5 + i},
      {"dur", 12.25},
      {"args", {{"correlation", 100000 + i}, {"External id", 500 + i}, {"stream", 7}}}};
}

TEST(KinetoEvents, NestedArgsRoundTripExactly) {
  const nlohmann::json op = {
      {"ph", "X"},
      {"cat", "cpu_op"},
      {"name", "aten::addmm \u00b5s"},
      {"ts", -3.5},
      {"dur", 0.1},
      {"pid", "host"},
      {"tid", std::uint64_t{1} << 40},
      {"args",
       {{"Input Dims", {{2048, 4096}, {4096, 1024}, nlohmann::json::array()}},
        {"Input type", {"c10::BFloat16", "c10::BFloat16", ""}},
        {"Concrete Inputs", {"", "", "1", nullptr}},
        {"Process Group Ranks", "[0, 1, 2, 3]"},
        {"Group size", -1},
        {"nested", {{"flag", true}, {"object", {{"a", 1.0e-300}}}}}}}};
  KinetoEvents store;
  store.push_back(op);
  ASSERT_EQ(store.size(), 1u);
  const nlohmann::json back = store[0];
  EXPECT_EQ(back, op);
  EXPECT_EQ(back.dump(), op.dump());
  EXPECT_TRUE(back["tid"].is_number_unsigned());
  EXPECT_TRUE(back["args"]["Group size"].is_number_integer());
  EXPECT_FALSE(back["args"]["Group size"].is_number_unsigned());
  EXPECT_TRUE(back["ts"].is_number_float());
  EXPECT_EQ(back["args"]["Input Dims"][1][0], 4096);
  EXPECT_TRUE(back["args"]["Concrete Inputs"][3].is_null());
}

TEST(KinetoEvents, IndexReadsEachEventInPushOrder) {
  KinetoEvents store;
  EXPECT_TRUE(store.empty());
  for (int i = 0; i < 100; ++i) store.push_back(kernel(i));
  store.push_back(42);  // any JSON value, as the whole-document array may hold
  store.push_back(nlohmann::json::object());
  ASSERT_EQ(store.size(), 102u);
  EXPECT_EQ(store[0], kernel(0));
  EXPECT_EQ(store[57]["args"]["correlation"], 100057);
  EXPECT_EQ(store[99], kernel(99));
  EXPECT_EQ(store[100], 42);
  EXPECT_EQ(store[101], nlohmann::json::object());
  EXPECT_EQ(store[57], kernel(57));  // reading does not consume
}

TEST(KinetoEvents, EventsAcrossChunksAndLargerThanAChunk) {
  KinetoEvents store;
  constexpr int kEvents = 80000;  // ~20 MB of CBOR: past the first 16 MiB chunk
  for (int i = 0; i < kEvents; ++i) store.push_back(kernel(i));
  const nlohmann::json big = {{"name", std::string(std::size_t{17} << 20, 'x')}};
  store.push_back(big);  // a chunk of its own
  store.push_back(kernel(-1));
  ASSERT_EQ(store.size(), kEvents + 2u);
  for (int i = 0; i < kEvents; ++i) ASSERT_EQ(store[i]["args"]["correlation"], 100000 + i) << i;
  EXPECT_EQ(store[kEvents], big);
  EXPECT_EQ(store[kEvents + 1], kernel(-1));
}

TEST(KinetoEvents, ArrayFormHoldsEveryElement) {
  const nlohmann::json events = {kernel(1), "not an event", nullptr, kernel(2)};
  const KinetoEvents store = KinetoEvents::of_array(events);
  ASSERT_EQ(store.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(store[i], events[i]) << i;
}

TEST(KinetoEvents, KernelEventTakesAFewHundredBytes) {
  KinetoEvents store;
  constexpr int kEvents = 1000;
  for (int i = 0; i < kEvents; ++i) store.push_back(kernel(i));
  const std::size_t text = kernel(0).dump().size();  // 250 bytes of JSON text
  EXPECT_LT(store.bytes(), kEvents * text);          // smaller than its text
  EXPECT_GT(store.bytes(), kEvents * text / 2);      // and holds the name and args
}

}  // namespace
}  // namespace t3sim::workload
