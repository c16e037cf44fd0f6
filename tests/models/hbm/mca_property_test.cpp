// MCA under random open-loop arrivals: the byte gate is never passed above its threshold, the
// starvation limit bounds how long communication waits at the gate, and compute latency under MCA
// is within 10 % of FR-FCFS's at moderate load and far below it where FR-FCFS is overloaded.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "hbm_test_util.h"
#include "models/hbm/policies/mca.h"
#include "sim/units_parse.h"

namespace t3sim::hbm {
namespace {

using common::MemCmd;
using common::TrafficClass;
using testing::make_hbm;
using testing::TimedSource;

// 4 channels at 32 GB/s each, 8 KiB queues, 1 KiB interleave.
nlohmann::json four_channels(nlohmann::json over) {
  nlohmann::json j = {{"stacks", 1},
                      {"channels_per_stack", 4},
                      {"bandwidth", "128 GB/s"},
                      {"efficiency", 1.0},
                      {"interleave", "1 KiB"},
                      {"read_queue", "8 KiB"},
                      {"write_queue", "8 KiB"},
                      {"nmc_bandwidth", "256 GB/s"}};
  for (auto it = over.begin(); it != over.end(); ++it) j[it.key()] = it.value();
  return j;
}

struct Mix {
  std::unique_ptr<Simulator> sim;
  std::unique_ptr<Hbm> hbm;
  std::unique_ptr<TimedSource> compute;
  std::unique_ptr<TimedSource> comm;
};

// Random arrivals over 40 us: compute reads at ~`compute_load` of the 128 GB/s, communication
// reads / writes / UPDATEs at ~`comm_load`; sizes 256 B .. 1 KiB.
Mix run_mix(const nlohmann::json& over, double compute_load, double comm_load, uint64_t seed) {
  Mix m;
  m.sim = std::make_unique<Simulator>();
  m.hbm = make_hbm(*m.sim, four_channels(over));
  m.compute = std::make_unique<TimedSource>(*m.sim, *m.hbm);
  m.comm = std::make_unique<TimedSource>(*m.sim, *m.hbm);
  std::mt19937_64 rng(seed);
  const double bytes_per_ns = 128.0;
  for (int src = 0; src < 2; ++src) {
    const double load = src == 0 ? compute_load : comm_load;
    if (load <= 0) continue;
    std::exponential_distribution<double> gap(load * bytes_per_ns / 640.0);  // mean size 640 B
    double t = 0;
    while (true) {
      t += gap(rng);
      if (t > 40'000) break;
      const uint32_t bytes = 256 + 128 * static_cast<uint32_t>(rng() % 7);
      const uint64_t addr = (rng() % 65536) * 1024;
      const Tick at = Tick{} + Duration::ps(static_cast<uint64_t>(t * 1000));
      if (src == 0) {
        m.compute->at(at, addr, bytes, MemCmd::kRead, TrafficClass::kGemmRead);
      } else {
        const auto k = rng() % 3;
        m.comm->at(at, addr, bytes, static_cast<MemCmd>(k),
                   k == 0 ? TrafficClass::kRsRead
                          : (k == 1 ? TrafficClass::kRsWrite : TrafficClass::kRsUpdate));
      }
    }
  }
  m.sim->run();
  m.sim->finish();
  return m;
}

double mean_latency_ns(const TimedSource& s) {
  double sum = 0;
  for (const auto& d : s.done()) sum += (d.at - s.offered(d.tag)).to_ns();
  return s.done().empty() ? 0.0 : sum / static_cast<double>(s.done().size());
}

TEST(McaProperty, NeverAdmitsCommunicationAtOrAboveItsThreshold) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    for (const char* thr : {"1 B", "2 KiB", "6 KiB"}) {
      SCOPED_TRACE(std::to_string(seed) + " " + thr);
      Mix m = run_mix({{"policy", "mca"},
                       {"mca_mode", "static"},
                       {"mca_threshold", thr},
                       {"mca_starvation_limit", "1 s"}},
                      0.5, 0.45, seed);
      const uint64_t t = parse_bytes(thr).count();
      uint64_t refusals = 0;
      for (uint32_t c = 0; c < m.hbm->channels(); ++c) {
        const auto& p = dynamic_cast<const McaPolicy&>(m.hbm->channel_policy(c));
        EXPECT_EQ(p.threshold(), t);
        EXPECT_EQ(p.starved_admits(), 0u);
        EXPECT_LT(p.max_gated_admit_occupancy(), t);
      }
      refusals = m.hbm->counters().refusals.value();
      if (std::string(thr) != "6 KiB") {
        EXPECT_GT(refusals, 0u);  // the gate did act
      }
      EXPECT_EQ(m.comm->done().size() + m.compute->done().size(),
                m.hbm->counters().cls[0].requests.value() +
                    m.hbm->counters().cls[3].requests.value() +
                    m.hbm->counters().cls[4].requests.value() +
                    m.hbm->counters().cls[5].requests.value());
    }
  }
}

TEST(McaProperty, StarvationLimitBoundsTheWaitAtTheGate) {
  // Compute alone would keep every channel ~95 % busy; with a 1 B threshold communication enters
  // only an empty channel, which rarely happens; the limit forces it in.
  for (const char* limit : {"500 ns", "2 us"}) {
    SCOPED_TRACE(limit);
    Mix m = run_mix({{"policy", "mca"},
                     {"mca_mode", "static"},
                     {"mca_threshold", "1 B"},
                     {"mca_starvation_limit", limit},
                     {"read_queue", "1 MiB"},  // capacity never binds: only the gate holds
                     {"write_queue", "1 MiB"}},
                    0.95, 0.2, 11);
    uint64_t starved = 0;
    for (uint32_t c = 0; c < m.hbm->channels(); ++c) {
      starved += dynamic_cast<const McaPolicy&>(m.hbm->channel_policy(c)).starved_admits();
    }
    EXPECT_GT(starved, 0u);
    // The source offers one request at a time (FIFO): request k reaches the gate at
    // max(offered_k, accepted_{k-1}); MCA admits it at the latest at the limit after its first
    // refusal (the controller re-offers its waiters then), plus slack for retry ordering.
    const Duration lim = parse_duration(limit);
    std::vector<Tick> accepted(m.comm->done().size());
    for (const auto& d : m.comm->done()) accepted[d.tag] = d.accepted;
    Duration worst{};
    for (size_t k = 0; k < accepted.size(); ++k) {
      Tick reach = m.comm->offered(k);
      if (k > 0) reach = max(reach, accepted[k - 1]);
      worst = std::max(worst, accepted[k] - reach);
    }
    RecordProperty("worst_gate_wait_ns", std::to_string(worst.to_ns()));
    EXPECT_LE(worst, lim + Duration::ns(100));
    EXPECT_GT(worst, lim / 2);  // the gate did hold communication back
  }
}

TEST(McaProperty, ComputeLatencyUnderMcaIsNoWorseThanUnderFrFcfs) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    for (const double comm_load : {0.2, 0.4, 0.6}) {
      SCOPED_TRACE(std::to_string(seed) + " comm " + std::to_string(comm_load));
      Mix fr = run_mix({{"policy", "fr-fcfs"}}, 0.35, comm_load, seed);
      Mix mca = run_mix({{"policy", "mca"}, {"mca_window", "2 us"}}, 0.35, comm_load, seed);
      const double a = mean_latency_ns(*fr.compute);
      const double b = mean_latency_ns(*mca.compute);
      RecordProperty("fr_" + std::to_string(seed) + "_" + std::to_string(comm_load),
                     std::to_string(a));
      RecordProperty("mca_" + std::to_string(seed) + "_" + std::to_string(comm_load),
                     std::to_string(b));
      // MCA's starvation escape serves a communication request that waited the limit ahead of
      // compute, unpreempted; at moderate load, where FR-FCFS's write-drain batches already keep
      // reads flowing, that may cost compute a few per cent (seed 1 at 0.4: +7.6 %). Where the
      // communication load overwhelms FR-FCFS, MCA must win outright.
      if (comm_load >= 0.6) {
        EXPECT_LT(b, a / 2);
      } else {
        EXPECT_LE(b, a * 1.1);
      }
    }
  }
}

}  // namespace
}  // namespace t3sim::hbm
