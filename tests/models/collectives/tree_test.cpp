// NCCL's Tree all-reduce (tree_schedule.cpp): the schedule's shape and volumes without running it,
// conservation and the pipeline fill (two passes along the node chain) on a machine of fakes.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "models/collectives/collective.h"
#include "models/collectives/schedule_builder.h"
#include "sim/errors.h"
#include "test_machine.h"

namespace t3sim::collectives {
namespace {

using testing::library;
using testing::MachineOptions;
using testing::TestMachine;

Geometry tree_geo(uint64_t bytes, int n, uint32_t gpus_per_node, uint32_t channels) {
  Geometry g;
  g.bytes = bytes;
  g.channels = channels;
  g.ranks.resize(static_cast<size_t>(n));
  std::iota(g.ranks.begin(), g.ranks.end(), 0);
  g.chunk = 512 << 10;
  g.gpus_per_node = gpus_per_node;
  return g;
}

TEST(TreeSchedule, EveryGpuStoresEveryByteAndEachEdgeCarriesItBothWays) {
  const int n = 16;
  const uint64_t S = 64 << 20;
  const Schedule s = make_tree(tree_geo(S, n, 8, 4));
  std::vector<uint64_t> written(n, 0);
  uint64_t sent = 0;
  uint64_t inter = 0;
  for (const Lane& l : s.lanes) {
    for (uint32_t i = l.first_op; i < l.first_op + l.num_ops; ++i) {
      const Op& op = s.ops[i];
      if (op.flags & kWriteLocal) written[static_cast<size_t>(l.gpu)] += op.bytes;
      for (uint16_t k = 0; k < op.sends; ++k) {
        sent += op.bytes;
        if (s.conns[s.send_conn(op, k)].inter_node) inter += op.bytes;
      }
    }
  }
  for (int g = 0; g < n; ++g) EXPECT_EQ(written[g], S) << "gpu " << g;
  // Per channel a spanning tree of n - 1 edges, each carrying its share up once and down once.
  EXPECT_EQ(sent, 2 * (n - 1) * S);
  // Two nodes: one network edge per channel tree, so the nodes exchange S each way in all.
  EXPECT_EQ(inter, 2 * S);
  // Per channel the root runs one lane (reduce, store, send down), every other rank two.
  EXPECT_EQ(s.lanes.size(), 4u * (1 + 2 * (n - 1)));
}

TEST(TreeSchedule, ChannelsAlternateTreesAndSpreadTheirHeadsOverTheNode) {
  const Schedule s = make_tree(tree_geo(8 << 20, 16, 8, 16));
  std::vector<int> sends_from(16, 0);  // inter-node connections by source GPU
  for (const Conn& c : s.conns) {
    if (c.inter_node) ++sends_from[static_cast<size_t>(c.src)];
  }
  std::vector<int> roots(16, 0);  // lanes that reduce, store and send down in one op
  for (const Lane& l : s.lanes) {
    if (s.ops[l.first_op].flags == kRecvReduceCopySend) ++roots[static_cast<size_t>(l.gpu)];
  }
  // 16 channels: each local rank heads two channels, one per tree (node 0 is the first tree's
  // root, node 1 the second's), with one network connection out of its node in each.
  for (int g = 0; g < 16; ++g) {
    EXPECT_EQ(sends_from[g], 2) << "gpu " << g;
    EXPECT_EQ(roots[g], 1) << "gpu " << g;
  }
}

TEST(TreeSchedule, NeedsEqualNodes) {
  EXPECT_THROW(make_tree(tree_geo(1 << 20, 12, 8, 2)), ConfigError);
  EXPECT_NO_THROW(make_tree(tree_geo(1 << 20, 8, 0, 2)));   // one node: a chain
  EXPECT_NO_THROW(make_tree(tree_geo(1 << 20, 24, 8, 2)));  // three nodes: shifted second tree
}

struct TreeRun {
  double us = 0;
  uint64_t sent = 0;
  Algo algo = Algo::kAuto;
};

TreeRun run_tree(int gpus, uint32_t per_node, uint64_t bytes, const char* step_latency) {
  MachineOptions mo;
  mo.gpus = gpus;
  Simulator sim;
  TestMachine tm(sim, mo);
  const LibraryConfig lib =
      library({{"gpus_per_node", per_node}, {"simple_step_latency", step_latency}});
  CollectiveSpec s;
  s.bytes = bytes;
  s.algo = Algo::kTree;
  s.proto = Protocol::kSimple;
  s.channels = 1;
  Collective c(sim, &sim.root(), "coll", tm.machine(), lib, s);
  sim.elaborate();
  c.start(nullptr, 0);
  sim.run();
  sim.finish();  // throws if payload sent != received
  EXPECT_TRUE(c.done());
  TreeRun r{c.elapsed().to_us(), 0, c.algo()};
  for (int g = 0; g < gpus; ++g) r.sent += c.bytes_sent(g);
  return r;
}

TEST(TreeCollective, DeliversEveryByteAcrossNodes) {
  const uint64_t S = 8 << 20;
  const TreeRun r = run_tree(8, 4, S, "4 us");
  EXPECT_EQ(r.algo, Algo::kTree);
  EXPECT_EQ(r.sent, 2 * 7 * S);
}

TEST(TreeCollective, PipelineFillGrowsWithTheChain) {
  // 64 KiB on one channel: the tree cuts it into 2 chunks of 32 KiB. A fenced slice is visible
  // one step latency after its data landed, so the last chunk passes 2L stages (L - 1 up, the
  // root, L - 1 down), each paying the step latency once: 3 us more per stage.
  const uint64_t S = 64 << 10;
  auto extra = [&](int gpus) {
    return run_tree(gpus, 0, S, "3.6 us").us - run_tree(gpus, 0, S, "0.6 us").us;
  };
  EXPECT_NEAR(extra(4), 2 * 4 * 3.0, 0.15 * 2 * 4 * 3.0);
  EXPECT_NEAR(extra(8), 2 * 8 * 3.0, 0.15 * 2 * 8 * 3.0);
}

TEST(TreeCollective, AutoRunsTheTreeAcrossNodesUpToTreeMax) {
  Simulator sim;
  TestMachine tm(sim, MachineOptions{});
  auto algo = [&](uint32_t per_node, uint64_t bytes) {
    const LibraryConfig lib = library({{"gpus_per_node", per_node}, {"tree_max", "4 MiB"}});
    CollectiveSpec s;
    s.bytes = bytes;
    return Collective(sim, &sim.root(),
                      "c" + std::to_string(bytes) + "_" + std::to_string(per_node), tm.machine(),
                      lib, s)
        .algo();
  };
  EXPECT_EQ(algo(4, 4 << 20), Algo::kTree);
  EXPECT_EQ(algo(4, 8 << 20), Algo::kHierarchical);
  EXPECT_EQ(algo(0, 4 << 20), Algo::kRing);  // one node
}

}  // namespace
}  // namespace t3sim::collectives
