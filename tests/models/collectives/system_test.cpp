// Collectives on whole systems built from the frozen systems in tests/fixtures (the real HBM and
// fabric models).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/collectives/collective.h"
#include "models/common/mirror.h"
#include "models/fabric/fabric.h"
#include "models/system/system.h"
#include "sim/simulator.h"
#include "tests/support/fixtures.h"

namespace t3sim::collectives {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();

struct Result {
  double us = 0;
  uint64_t rs_read = 0;
  uint64_t events = 0;
  Algo algo = Algo::kAuto;
  uint32_t channels = 0;
  uint64_t link_bytes = 0;  // all link directions, all hops
};

Result run(const std::string& system, Kind kind, uint64_t bytes, Algo algo = Algo::kAuto) {
  const ConfigDoc doc = system::load_system_config(system, kConfigs);
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc));
  const LibraryConfig lib = sys.collectives();
  CollectiveSpec s;
  s.kind = kind;
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
  r.algo = c.algo();
  r.channels = c.channels();
  r.link_bytes = sys.fabric().total_link_bytes();
  return r;
}

Result all_reduce(const std::string& system, uint64_t bytes, Algo algo = Algo::kAuto) {
  return run(system, Kind::kAllReduce, bytes, algo);
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

TEST(SystemCollective, AutoRunsNcclTreeAcrossNodesOnly) {
  const uint64_t S = 16 << 20;
  const Result tree = all_reduce("p4de-2node", S);
  EXPECT_EQ(tree.algo, Algo::kTree);
  EXPECT_EQ(all_reduce("dgx-a100", S).algo, Algo::kRing);  // one node: no tree
  // Tree: each node's NICs carry S out and S in; the flat ring 2(n-1)/n S through every NIC.
  EXPECT_LT(tree.us, all_reduce("p4de-2node", S, Algo::kRing).us);
}

TEST(SystemCollective, DgxH100PicksNvlsForLargeAllReducesAndItBeatsTheRing) {
  const uint64_t S = 256 << 20;
  const Result nvls = all_reduce("dgx-h100", S);
  const Result ring = all_reduce("dgx-h100", S, Algo::kRing);
  EXPECT_EQ(nvls.algo, Algo::kNvls);
  EXPECT_EQ(nvls.channels, 16u);                                 // NVLS_NCHANNELS_SM90
  EXPECT_EQ(all_reduce("dgx-h100", 1 << 20).algo, Algo::kRing);  // below nvls_min
  EXPECT_LT(nvls.us, ring.us);
  // In-switch reduction: each GPU's link carries its data up once plus its share's result, the
  // switch sends each GPU its reduced share plus the multicast of all shares: 2 S (1 + 1/n) per GPU
  // over both hops, against the ring's 2 x 2 S (n-1)/n.
  const double per_gpu = static_cast<double>(nvls.link_bytes) / 8.0 / static_cast<double>(S);
  EXPECT_GT(per_gpu, 2.0 * 9.0 / 8.0);  // plus packet headers
  EXPECT_LT(per_gpu, 2.0 * 9.0 / 8.0 * 1.3);
  const double ring_per_gpu = static_cast<double>(ring.link_bytes) / 8.0 / static_cast<double>(S);
  EXPECT_GT(ring_per_gpu, 2.0 * 2.0 * 7.0 / 8.0);
}

TEST(SystemCollective, NvlsNeedsAnNvlinkSharpSwitch) {
  EXPECT_THROW(all_reduce("dgx-a100", 64 << 20, Algo::kNvls), ConfigError);  // no nvls_channels
  EXPECT_THROW(all_reduce("mi300x-8", 64 << 20, Algo::kNvls), ConfigError);  // no switch
}

TEST(SystemCollective, Mi300xRingsUseEveryXgmiLink) {
  const uint64_t S = 256 << 20;
  const Result multi = all_reduce("mi300x-8", S, Algo::kRing);
  // 7 edge-disjoint rings share the 7 links of each GPU: busbw well above one 64 GB/s link.
  const double busbw = static_cast<double>(S) / (multi.us * 1e3) * 1.75;
  EXPECT_GT(busbw, 3 * 64.0);
  EXPECT_LT(busbw, 7 * 64.0);
}

// The T3 machine's ring is bidirectional: the planned rings run both ways, so a reduce-scatter
// puts the same bytes on every directed link, and one direction alone (the what-if override)
// leaves half the links idle and takes longer.
TEST(SystemCollective, T3RingReduceScatterUsesBothDirections) {
  const uint64_t S = 64 << 20;
  auto run_rs = [&](const std::string& direction, std::vector<uint64_t>& per_link) {
    ConfigDoc doc = system::load_system_config("t3-ring-8", kConfigs);
    if (!direction.empty()) doc.root["collectives"]["ring_direction"] = direction;
    Simulator sim;
    system::System sys(sim, ConfigNode::root(doc));
    CollectiveSpec s;
    s.kind = Kind::kReduceScatter;
    s.bytes = S;
    Collective c(sim, &sys, "coll", sys.machine(), sys.collectives(), s);
    sim.elaborate();
    c.start(nullptr, 0);
    sim.run();
    sim.finish();
    EXPECT_TRUE(c.done());
    const fabric::Topology& topo = sys.fabric().topology();
    for (size_t e = 0; e < topo.edges.size(); ++e) {
      per_link.push_back(sys.fabric().link(e).bytes_carried());
    }
    return c.elapsed().to_us();
  };
  std::vector<uint64_t> both, one;
  const double t_both = run_rs("", both);
  const double t_one = run_rs("forward", one);
  ASSERT_EQ(both.size(), 16u);                          // 8 links, two directions each
  for (const uint64_t b : both) EXPECT_EQ(b, both[0]);  // every directed link equally loaded
  EXPECT_GT(both[0], 0u);
  size_t idle = 0;
  for (const uint64_t b : one) idle += b == 0 ? 1 : 0;
  EXPECT_EQ(idle, 8u);  // one direction only: the other eight directed links carry nothing
  EXPECT_LT(t_both * 1.5, t_one);
}

TEST(SystemCollective, EveryKindRunsOnAWholeSystem) {
  for (const Kind k : {Kind::kReduceScatter, Kind::kAllGather, Kind::kBroadcast, Kind::kReduce,
                       Kind::kAllToAll, Kind::kSendRecv}) {
    const Result r = run("dgx-a100", k, 8 << 20);
    EXPECT_GT(r.us, 0.0) << to_string(k);
    EXPECT_GT(r.link_bytes, 0u) << to_string(k);
  }
  // One pass over the data moves about as much per GPU as half an all-reduce.
  const Result rs = run("dgx-a100", Kind::kReduceScatter, 64 << 20);
  const Result ar = all_reduce("dgx-a100", 64 << 20);
  EXPECT_LT(rs.us, ar.us);
  EXPECT_GT(rs.us, ar.us / 3);
}

// A flat ring across two DGX H100 nodes does not fold under node x local rotation; under
// whole-node rotations node 0's 8 GPUs stand for all 16 (within 1 % of the full run), on a system
// that simulates them (with GPU 0 alone it cannot).
TEST(SystemCollective, FlatRingFoldsOntoNodeZeroUnderWholeNodeRotations) {
  const ConfigDoc doc = system::load_system_config("dgx-h100-2node", kConfigs);
  CollectiveSpec s;
  s.bytes = uint64_t{4} << 20;
  s.algo = Algo::kRing;
  s.fold = true;
  s.fold_rotation = common::GpuRotation{2, 8};
  {
    Simulator sim;
    system::System eight(sim, ConfigNode::root(doc), 8);
    EXPECT_THROW(Collective(sim, &eight, "coll", eight.machine(), eight.collectives(), s),
                 common::FoldError);
  }
  s.fold_rotation.whole_nodes = true;
  {
    Simulator sim;
    system::System one(sim, ConfigNode::root(doc), 1);
    EXPECT_THROW(Collective(sim, &one, "coll", one.machine(), one.collectives(), s),
                 common::FoldError);
  }
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc), 8);
  Collective c(sim, &sys, "coll", sys.machine(), sys.collectives(), s);
  EXPECT_TRUE(c.fold_rotation().whole_nodes);
  sys.machine().remote->fold(nullptr, c.fold_rotation());
  for (const Lane& l : c.schedule().lanes) EXPECT_LT(l.gpu, 8);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  ASSERT_TRUE(c.done());
  const Result full = run("dgx-h100-2node", Kind::kAllReduce, s.bytes, Algo::kRing);
  EXPECT_NEAR(c.elapsed().to_us(), full.us, 0.01 * full.us);
  EXPECT_LT(sim.events() * 3 / 2, full.events);
}

// A ring across two DGX H100 nodes gives each channel its own rail (node_rails.h): every GPU's
// NIC carries traffic out and in, and the ring runs several times faster than through one NIC
// (8 NICs at 48.5 GB/s against a GPU's NVLink port).
TEST(SystemCollective, TwoNodeRingUsesEveryNic) {
  const ConfigDoc doc = system::load_system_config("dgx-h100-2node", kConfigs);
  Simulator sim;
  system::System sys(sim, ConfigNode::root(doc));
  CollectiveSpec s;
  s.bytes = uint64_t{64} << 20;
  s.algo = Algo::kRing;
  Collective c(sim, &sys, "coll", sys.machine(), sys.collectives(), s);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();
  ASSERT_TRUE(c.done());
  for (int g = 0; g < sys.num_gpus(); ++g) {
    const std::string gpu = "gpu" + std::to_string(g);
    const std::string nic = "nic" + std::to_string(g);
    const auto out = sys.fabric().find_link(gpu, nic);
    const auto in = sys.fabric().find_link(nic, gpu);
    ASSERT_TRUE(out && in) << gpu;
    EXPECT_GT(sys.fabric().link_busy(*out), Duration()) << gpu << " -> " << nic;
    EXPECT_GT(sys.fabric().link_busy(*in), Duration()) << nic << " -> " << gpu;
  }
  const double busbw = 1.875 * static_cast<double>(s.bytes) / (c.elapsed().to_us() * 1e3);
  EXPECT_GT(busbw, 3 * 48.5);
}

}  // namespace
}  // namespace t3sim::collectives
