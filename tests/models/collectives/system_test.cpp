// Collectives on whole systems built from configs/systems (the real HBM and fabric models).
#include <gtest/gtest.h>

#include <filesystem>

#include "models/collectives/collective.h"
#include "models/fabric/fabric.h"
#include "models/system/system.h"
#include "sim/simulator.h"

namespace t3sim::collectives {
namespace {

const std::filesystem::path kConfigs = std::filesystem::path(T3SIM_SOURCE_DIR) / "configs";

struct Result {
  double us = 0;
  uint64_t rs_read = 0;
  uint64_t events = 0;
};

Result all_reduce(const std::string& system, uint64_t bytes, Algo algo = Algo::kAuto) {
  const ConfigDoc doc = system::load_system_config(system, kConfigs);
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc));
  const LibraryConfig lib = sys.collectives();
  CollectiveSpec s;
  s.bytes = bytes;
  s.algo = algo;
  Collective c(sim, &sys, "coll", sys.machine(), lib, s);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  EXPECT_TRUE(c.done());
  Result r;
  r.us = c.elapsed().to_us();
  for (int g = 0; g < sys.num_gpus(); ++g)
    r.rs_read += sys.hbm(g).bytes(common::TrafficClass::kRsRead);
  r.events = sim.events();
  return r;
}

TEST(SystemCollective, DgxA100AllReduceIsNvlinkBound) {
  const uint64_t S = 64 << 20;
  const Result r = all_reduce("dgx-a100", S);
  const double busbw = static_cast<double>(S) / (r.us * 1e3) * 1.75;
  EXPECT_GT(busbw, 100.0);  // GB/s; NVLink3 is 300 GB/s per direction
  EXPECT_LT(busbw, 300.0);
  EXPECT_GT(r.rs_read, 8 * S);  // reductions read local and received data through HBM
  const Result again = all_reduce("dgx-a100", S);
  EXPECT_EQ(r.us, again.us);  // deterministic
  EXPECT_EQ(r.events, again.events);
}

TEST(SystemCollective, P4deTwoNodesUsesTheNetwork) {
  const uint64_t S = 16 << 20;
  const Result hier = all_reduce("p4de-2node", S, Algo::kHierarchical);
  const Result ring = all_reduce("p4de-2node", S, Algo::kRing);
  EXPECT_GT(hier.us, 0.0);
  EXPECT_LT(hier.us, ring.us);  // the flat ring pushes 2(n-1)/n S through every NIC
}

}  // namespace
}  // namespace t3sim::collectives
