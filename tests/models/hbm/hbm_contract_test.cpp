// Contracts of the Hbm as a MemTarget: UPDATE accounting and the tracker observer, back-pressure
// with exactly one retry, end-of-run invariant, request checks, run-time policy switch,
// determinism.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "hbm_test_util.h"
#include "sim/errors.h"

namespace t3sim::hbm {
namespace {

using common::MemCmd;
using common::TrafficClass;
using testing::make_hbm;
using testing::Requester;

nlohmann::json one_channel() {
  return {{"stacks", 1},
          {"channels_per_stack", 1},
          {"bandwidth", "32 GB/s"},
          {"efficiency", 1.0},
          {"nmc_bandwidth", "64 GB/s"}};
}

class CountingObserver : public common::UpdateObserver {
 public:
  void update_done(const common::MemRequest& r) override { tiles.push_back(r.tile); }
  std::vector<uint32_t> tiles;
};

TEST(HbmContract, UpdateOccupiesBusPlusNmcAndNotifiesObserverOncePerTiledStore) {
  Simulator sim;
  auto hbm = make_hbm(sim, one_channel());
  CountingObserver obs;
  hbm->set_update_observer(&obs);
  Requester r(sim, *hbm);
  r.add(0, 4096, MemCmd::kUpdate, TrafficClass::kRsUpdate, 7);
  r.add(4096, 4096, MemCmd::kUpdate, TrafficClass::kGemmUpdate);  // no tile: not observed
  r.add(8192, 4096, MemCmd::kWrite, TrafficClass::kRsWrite, 9);   // a tracked write (t3-nvls)
  r.pump();
  sim.run();
  sim.finish();
  // 4 KiB: 128 ns on the 32 GB/s bus + 64 ns in the 64 GB/s NMC; latency 100 ns.
  ASSERT_EQ(r.done().size(), 3u);
  EXPECT_EQ(r.done()[0].at, Tick{} + Duration::ns(192 + 100));
  EXPECT_EQ(r.done()[1].at, Tick{} + Duration::ns(2 * 192 + 100));
  EXPECT_EQ(r.done()[2].at, Tick{} + Duration::ns(2 * 192 + 128 + 100));
  EXPECT_EQ(obs.tiles, (std::vector<uint32_t>{7, 9}));
  EXPECT_EQ(hbm->bytes(TrafficClass::kRsUpdate), 4096u);
  EXPECT_EQ(hbm->bytes(TrafficClass::kGemmUpdate), 4096u);
  EXPECT_EQ(hbm->bytes(TrafficClass::kRsWrite), 4096u);
  const HbmStats& s = hbm->counters();
  EXPECT_EQ(s.cmd_bytes[static_cast<size_t>(MemCmd::kUpdate)].value(), 8192u);
  EXPECT_EQ(s.cmd_bytes[static_cast<size_t>(MemCmd::kWrite)].value(), 4096u);
  EXPECT_EQ(hbm->total_bytes(), 3 * 4096u);
  EXPECT_EQ(s.nmc_busy_ps.value(), 2 * 64'000u);
  EXPECT_EQ(s.bus_busy_ps.value(), (2 * 192 + 128) * 1000u);
  EXPECT_EQ(s.turnarounds.value(), 0u);  // UPDATE and WRITE share the write direction
}

TEST(HbmContract, FullQueueRefusesAndRetriesExactlyOnceWhenSpaceFrees) {
  Simulator sim;
  nlohmann::json cfg = one_channel();
  cfg["read_queue"] = "128 B";  // two 64 B requests
  auto hbm = make_hbm(sim, cfg);
  Requester a(sim, *hbm);
  Requester b(sim, *hbm);
  for (int i = 0; i < 3; ++i) a.add(i * 64, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  b.add(1024, 64, MemCmd::kRead, TrafficClass::kRsRead);
  a.pump();  // two accepted, the third refused -> waits
  b.pump();  // refused -> waits behind a
  EXPECT_EQ(hbm->outstanding(), 2u);
  EXPECT_EQ(hbm->counters().refusals.value(), 2u);
  sim.run();
  sim.finish();
  EXPECT_EQ(a.retries(), 1u);
  EXPECT_EQ(b.retries(), 1u);
  EXPECT_EQ(hbm->counters().retries.value(), 2u);
  ASSERT_EQ(a.done().size(), 3u);
  ASSERT_EQ(b.done().size(), 1u);
  EXPECT_LT(a.done()[2].at, b.done()[0].at);  // waiters are served in FIFO order
  EXPECT_EQ(hbm->outstanding(), 0u);
}

TEST(HbmContract, WaitForSpaceWithSpaceAlreadyFreeRetriesAtOnce) {
  Simulator sim;
  nlohmann::json cfg = one_channel();
  cfg["write_queue"] = "64 B";  // one 64 B request
  auto hbm = make_hbm(sim, cfg);
  Requester a(sim, *hbm);
  a.add(0, 64, MemCmd::kWrite, TrafficClass::kRsWrite);
  a.add(64, 64, MemCmd::kWrite, TrafficClass::kRsWrite);
  a.pump();  // second refused; a waits
  sim.run();
  EXPECT_EQ(a.retries(), 1u);
  EXPECT_EQ(a.done().size(), 2u);
  Requester c(sim, *hbm);
  hbm->wait_for_space(&c);  // last refusal's queue is empty now: one retry at the current time
  sim.run();
  EXPECT_EQ(c.retries(), 1u);
}

TEST(HbmContract, FinishThrowsWithOutstandingRequests) {
  Simulator sim;
  auto hbm = make_hbm(sim);
  Requester r(sim, *hbm);
  r.add(0, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  r.add(64, 64, MemCmd::kRead, TrafficClass::kGemmRead);
  r.pump();
  sim.run_until(Tick{} + Duration::ns(50));  // both queued/in service, none complete
  EXPECT_EQ(hbm->outstanding(), 2u);
  try {
    sim.finish();
    FAIL() << "finish() should throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("2 requests outstanding"), std::string::npos) << e.what();
  }
  sim.run();
  EXPECT_NO_THROW(sim.finish());
}

TEST(HbmContract, RejectsRequestsCrossingAnInterleaveBlockAndUnknownPolicies) {
  Simulator sim;
  auto hbm = make_hbm(sim, {{"interleave", "256 B"}});
  common::MemRequest r;
  r.addr = 200;
  r.bytes = 128;
  EXPECT_THROW(hbm->try_issue(r), ModelError);
  r.bytes = 0;
  EXPECT_THROW(hbm->try_issue(r), ModelError);
  EXPECT_THROW(hbm->set_policy("lifo"), ModelError);
  EXPECT_EQ(hbm->policy(), "fr-fcfs");
  hbm->set_policy("mca");
  EXPECT_EQ(hbm->policy(), "mca");
  EXPECT_EQ(hbm->channel_policy(3).name(), "mca");
}

TEST(HbmContract, BadConfigsAreConfigErrors) {
  Simulator sim;
  EXPECT_THROW(make_hbm(sim, {{"write_low_watermark", 0.9}}), ConfigError);
  EXPECT_THROW(make_hbm(sim, {{"policy", "fcfs"}}), ConfigError);
  EXPECT_THROW(make_hbm(sim, {{"latency", 100}}), ConfigError);
  EXPECT_THROW(make_hbm(sim, {{"chanels_per_stack", 8}}), ConfigError);
  EXPECT_THROW(make_hbm(sim, {{"read_queue", 64}}), ConfigError);  // bytes need a unit
  EXPECT_THROW(make_hbm(sim, {{"update", "atomic"}}), ConfigError);
}

// Classes, commands and the timeline all account for every completed byte.
void expect_conservation(const Hbm& hbm) {
  uint64_t by_class = 0;
  for (size_t c = 0; c < common::kNumTrafficClasses; ++c) {
    const auto cls = static_cast<TrafficClass>(c);
    uint64_t in_timeline = 0;
    for (const TimelineBin& bin : hbm.timeline()) in_timeline += bin[c];
    if (!hbm.timeline().empty()) {
      EXPECT_EQ(in_timeline, hbm.bytes(cls)) << to_string(cls);
    }
    by_class += hbm.bytes(cls);
  }
  uint64_t by_cmd = 0;
  for (const Counter& c : hbm.counters().cmd_bytes) by_cmd += c.value();
  EXPECT_EQ(by_class, hbm.total_bytes());
  EXPECT_EQ(by_cmd, hbm.total_bytes());
}

// A deterministic random mix over 4 channels; returns every completion (requester, tag, tick).
std::vector<uint64_t> random_mix(const nlohmann::json& over, std::string* stats = nullptr) {
  Simulator sim;
  nlohmann::json cfg = {{"stacks", 1},           {"channels_per_stack", 4},
                        {"read_queue", "4 KiB"}, {"write_queue", "4 KiB"},
                        {"interleave", "1 KiB"}, {"timeline_bin", "1 us"}};
  for (auto it = over.begin(); it != over.end(); ++it) cfg[it.key()] = it.value();
  auto hbm = make_hbm(sim, cfg);
  std::mt19937_64 rng(42);
  std::vector<std::unique_ptr<Requester>> rs;
  for (int i = 0; i < 4; ++i) {
    rs.push_back(std::make_unique<Requester>(sim, *hbm, 6));
    for (int k = 0; k < 1500; ++k) {
      const auto cmd = static_cast<MemCmd>(rng() % 3);
      const auto cls = static_cast<TrafficClass>(rng() % common::kNumTrafficClasses);
      rs.back()->add((rng() % 4096) * 1024, 256 + 256 * (rng() % 4), cmd, cls);
    }
  }
  for (auto& r : rs) r->pump();
  sim.run();
  sim.finish();
  expect_conservation(*hbm);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < rs.size(); ++i) {
    for (const auto& d : rs[i]->done()) out.push_back((i << 60) ^ (d.tag << 40) ^ d.at.ps());
  }
  if (stats != nullptr) *stats = sim.dump({}).dump();
  return out;
}

TEST(HbmContract, IdenticalRunsGiveIdenticalResults) {
  std::string s1;
  std::string s2;
  const auto a = random_mix({}, &s1);
  const auto b = random_mix({}, &s2);
  EXPECT_EQ(a, b);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(a.size(), 6000u);
}

TEST(HbmContract, TimelineBinsTrafficByClass) {
  Simulator sim;
  auto hbm = make_hbm(sim, {{"timeline_bin", "1 us"}});
  Requester r(sim, *hbm);
  r.add(0, 4096, MemCmd::kRead, TrafficClass::kGemmRead);
  r.add(4096, 4096, MemCmd::kUpdate, TrafficClass::kRsUpdate);
  r.pump();
  sim.run();
  ASSERT_EQ(hbm->timeline().size(), 1u);  // both start at t = 0 on different channels
  EXPECT_EQ(hbm->timeline()[0][static_cast<size_t>(TrafficClass::kGemmRead)], 4096u);
  EXPECT_EQ(hbm->timeline()[0][static_cast<size_t>(TrafficClass::kRsUpdate)], 4096u);
  Simulator sim2;
  auto off = make_hbm(sim2, {{"timeline_bin", "0 ns"}});
  Requester r2(sim2, *off);
  r2.add(0, 4096, MemCmd::kRead, TrafficClass::kGemmRead);
  r2.pump();
  sim2.run();
  EXPECT_TRUE(off->timeline().empty());
}

}  // namespace
}  // namespace t3sim::hbm
