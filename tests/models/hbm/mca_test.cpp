// MCA (T3 §4.5) and its relation to FR-FCFS: compute first, the occupancy gate, the starvation
// limit, the dynamic threshold from measured memory intensity, and the FR-FCFS-equivalent corner.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "hbm_test_util.h"
#include "models/hbm/policies/mca.h"

namespace t3sim::hbm {
namespace {

using common::MemCmd;
using common::TrafficClass;
using testing::make_hbm;
using testing::Requester;

// One channel at 32 GB/s: a 4 KiB transfer takes 128 ns; latency 100 ns; queues large enough
// that only the policy gates.
nlohmann::json one_channel(nlohmann::json over) {
  nlohmann::json j = {{"stacks", 1},
                      {"channels_per_stack", 1},
                      {"bandwidth", "32 GB/s"},
                      {"efficiency", 1.0},
                      {"read_queue", "256 KiB"},
                      {"write_queue", "256 KiB"},
                      {"nmc_bandwidth", "64 GB/s"}};
  for (auto it = over.begin(); it != over.end(); ++it) j[it.key()] = it.value();
  return j;
}

TEST(Mca, ComputeRequestsCompleteBeforeEarlierCommunication) {
  for (const char* policy : {"fr-fcfs", "mca"}) {
    Simulator sim;
    auto hbm = make_hbm(sim, one_channel({{"policy", policy},
                                          {"mca_mode", "static"},
                                          {"mca_threshold", "1 MiB"},
                                          {"mca_starvation_limit", "1 ms"}}));
    Requester comm(sim, *hbm);
    Requester gemm(sim, *hbm);
    comm.stream(0, 8 * 4096, 4096, MemCmd::kRead, TrafficClass::kRsRead);  // arrive first
    gemm.stream(1 << 20, 8 * 4096, 4096, MemCmd::kRead, TrafficClass::kGemmRead);
    comm.pump();
    gemm.pump();
    sim.run();
    const bool mca = std::string(policy) == "mca";
    if (mca) {
      EXPECT_LT(gemm.last_done(), comm.done().front().at);
      EXPECT_EQ(gemm.last_done(), Tick{} + Duration::ns(8 * 128 + 100));
    } else {
      EXPECT_LT(comm.last_done(), gemm.done().front().at);  // FR-FCFS: oldest first
    }
  }
}

TEST(Mca, StarvationLimitBoundsCommunicationWait) {
  for (const char* limit : {"1 us", "1 ms"}) {
    Simulator sim;
    auto hbm = make_hbm(sim, one_channel({{"policy", "mca"},
                                          {"mca_mode", "static"},
                                          {"mca_threshold", "1 MiB"},
                                          {"mca_starvation_limit", limit}}));
    Requester gemm(sim, *hbm, 64);  // keeps the channel saturated with compute for 512 x 128 ns
    gemm.stream(0, 512 * 4096ull, 4096, MemCmd::kRead, TrafficClass::kGemmRead);
    Requester comm(sim, *hbm);
    comm.add(1 << 30, 4096, MemCmd::kUpdate, TrafficClass::kRsUpdate);
    gemm.pump();
    comm.pump();
    sim.run();
    ASSERT_EQ(comm.done().size(), 1u);
    const Tick done = comm.done()[0].at;
    if (std::string(limit) == "1 us") {
      // Issues at the first bus-free moment at or after 1 us (1024 ns = 8 transfers), then
      // turnaround + bus + NMC + latency.
      EXPECT_EQ(done, Tick{} + Duration::ns(1024 + 10 + 128 + 64 + 100));
      EXPECT_EQ(dynamic_cast<const McaPolicy&>(hbm->channel_policy(0)).starved_issues(), 1u);
    } else {
      EXPECT_GT(done + Duration::ns(100), gemm.last_done());  // waited for all compute
    }
  }
}

TEST(Mca, AdmissionKeepsCommunicationBelowThresholdWithoutIdling) {
  Simulator sim;
  auto hbm = make_hbm(sim, one_channel({{"policy", "mca"},
                                        {"mca_mode", "static"},
                                        {"mca_threshold", "8 KiB"},  // two 4 KiB requests
                                        {"mca_starvation_limit", "1 us"}}));
  Requester comm(sim, *hbm);
  comm.stream(0, 4 * 4096, 4096, MemCmd::kRead, TrafficClass::kAgRead);
  comm.pump();
  sim.run();
  // Only two communication requests enter the queue (bytes not yet on the bus < 8 KiB) at a time
  // (the others are back-pressured), but the bus never idles: all four finish back to back.
  EXPECT_GT(hbm->counters().refusals.value(), 0u);
  EXPECT_EQ(comm.last_done(), Tick{} + Duration::ns(4 * 128 + 100));
}

TEST(Mca, DynamicThresholdFollowsMeasuredMemoryIntensity) {
  for (const int gap_ns : {0, 128}) {
    Simulator sim;
    auto hbm = make_hbm(sim, one_channel({{"policy", "mca"}, {"mca_window", "4 us"}}));
    Requester gemm(sim, *hbm, gap_ns == 0 ? 64 : 1);
    // Saturating (window 64) or one-at-a-time (bus busy 128 of every 128 + 100 latency ns).
    gemm.stream(0, 64 * 4096ull, 4096, MemCmd::kRead, TrafficClass::kGemmRead);
    gemm.pump();
    sim.run();
    auto& mca = dynamic_cast<const McaPolicy&>(hbm->channel_policy(0));
    // The measurement closes at the first decision after the window.
    EXPECT_TRUE(mca.measured() || sim.now() < Tick{} + Duration::us(4));
    if (!mca.measured()) continue;
    if (gap_ns == 0) {
      EXPECT_DOUBLE_EQ(mca.intensity(), 1.0);
      EXPECT_EQ(mca.threshold(), 1u);
    } else {
      const double expect = 128.0 / 228.0;
      EXPECT_NEAR(mca.intensity(), expect, 0.02);
      // 4 us horizon at 32 GB/s = 128000 B.
      EXPECT_NEAR(static_cast<double>(mca.threshold()), 128000.0 * (1 - expect), 128000.0 * 0.02);
    }
  }
}

// A random mix of every class and command over 4 channels with small queues (back-pressure).
std::vector<uint64_t> random_mix(const nlohmann::json& over) {
  Simulator sim;
  nlohmann::json cfg = {{"stacks", 1},
                        {"channels_per_stack", 4},
                        {"read_queue", "4 KiB"},
                        {"write_queue", "4 KiB"},
                        {"interleave", "1 KiB"}};
  for (auto it = over.begin(); it != over.end(); ++it) cfg[it.key()] = it.value();
  auto hbm = make_hbm(sim, cfg);
  std::mt19937_64 rng(7);
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
  std::vector<uint64_t> out;
  for (size_t i = 0; i < rs.size(); ++i) {
    for (const auto& d : rs[i]->done()) out.push_back((i << 60) ^ (d.tag << 40) ^ d.at.ps());
  }
  return out;
}

TEST(Mca, StaticThresholdAtCapacityWithoutComputePriorityEqualsFrFcfs) {
  const auto fr = random_mix({{"policy", "fr-fcfs"}});
  const auto mca = random_mix({{"policy", "mca"},
                               {"mca_mode", "static"},
                               {"mca_threshold", "8 KiB"},
                               {"mca_compute_first", false}});
  EXPECT_EQ(fr.size(), 6000u);
  EXPECT_EQ(fr, mca);
  const auto mca_first = random_mix({{"policy", "mca"}});
  EXPECT_NE(fr, mca_first);  // compute-first does reorder
}

struct PolicySwitch {
  Hbm* hbm;
  void go(uint64_t) { hbm->set_policy("fr-fcfs"); }
};

TEST(Mca, SwitchingPolicyAtRunTimeReleasesGatedRequests) {
  Simulator sim;
  auto hbm = make_hbm(sim, one_channel({{"policy", "mca"},
                                        {"mca_mode", "static"},
                                        {"mca_threshold", "1 B"},
                                        {"mca_starvation_limit", "1 ms"}}));
  Requester comm(sim, *hbm);
  comm.stream(0, 4 * 4096, 4096, MemCmd::kRead, TrafficClass::kRsRead);
  comm.pump();
  PolicySwitch sw{hbm.get()};
  sim.call_at<PolicySwitch, &PolicySwitch::go>(Tick{} + Duration::ns(50), &sw, 0);
  sim.run();
  // Admission lets one request in at a time until the switch; then every waiter is re-offered
  // and FR-FCFS accepts all: the four reads still finish back to back.
  EXPECT_EQ(comm.done().front().at, Tick{} + Duration::ns(128 + 100));
  EXPECT_EQ(comm.last_done(), Tick{} + Duration::ns(4 * 128 + 100));
}

}  // namespace
}  // namespace t3sim::hbm
