// fold_schedule (collectives/fold.h): a ring schedule folds to GPU 0's lanes with every receive
// rewired onto one of GPU 0's own sending connections; any asymmetry (a GPU whose op differs, a
// multi-node hierarchical schedule) is a FoldError, never a silently wrong fold.
#include "models/collectives/fold.h"

#include <gtest/gtest.h>

#include <span>

#include "models/collectives/fold_stream.h"
#include "models/common/mirror.h"
#include "tests/models/collectives/fold_helpers.h"

namespace t3sim::collectives {
namespace {

using testing::expect_balanced;
using testing::expect_same;
using testing::ring_geo;

common::GpuRotation cyclic(int n) { return common::GpuRotation{1, n}; }

TEST(FoldSchedule, RingKeepsGpuZeroAndPairsItsOwnConnections) {
  const int n = 8;
  for (const Kind k : {Kind::kReduceScatter, Kind::kAllGather, Kind::kAllReduce}) {
    const Schedule s = make_ring(ring_geo(k, 64ull << 20, n, 2));  // 2 whole loops per rank
    const Schedule f = fold_schedule(s, cyclic(n));
    EXPECT_EQ(f.lanes.size() * n, s.lanes.size());
    EXPECT_EQ(f.ops.size() * n, s.ops.size());
    EXPECT_EQ(f.conns.size() * n, s.conns.size());
    for (const Lane& l : f.lanes) EXPECT_EQ(l.gpu, 0);
    for (const Conn& c : f.conns) {
      EXPECT_EQ(c.src, 0);
      ASSERT_NE(c.send_lane, kNone);
      ASSERT_NE(c.recv_lane, kNone);
      // The ring sends to the next rank; GPU 0 receives what it sent, as GPU 7 would send it.
      EXPECT_EQ(c.dst, 1);
      EXPECT_EQ(f.lanes[c.send_lane].channel, f.lanes[c.recv_lane].channel);
    }
    expect_balanced(f);
  }
}

TEST(FoldSchedule, UnevenLastLoopIsRefused) {
  // All-reduce of 64 MiB over 8 ranks x 3 channels x 2 MiB chunks: the last loop gives ranks
  // different slice sizes.
  EXPECT_THROW(fold_schedule(make_ring(ring_geo(Kind::kAllReduce, 64ull << 20, 8, 3)), cyclic(8)),
               common::FoldError);
}

TEST(FoldSchedule, OneGpuIsItsOwnFold) {
  const Schedule s = make_ring(ring_geo(Kind::kAllReduce, 1 << 20, 1, 2));
  const Schedule f = fold_schedule(s, cyclic(1));
  EXPECT_EQ(f.ops.size(), s.ops.size());
}

TEST(FoldSchedule, AnAsymmetricOpIsRefused) {
  Schedule s = make_ring(ring_geo(Kind::kReduceScatter, 16 << 20, 4, 1));
  for (const Lane& l : s.lanes) {
    if (l.gpu == 2) {
      s.ops[l.first_op].bytes += 4096;  // GPU 2's first slice differs from GPU 0's
      break;
    }
  }
  EXPECT_THROW(fold_schedule(s, cyclic(4)), common::FoldError);
}

TEST(FoldSchedule, HierarchicalAllReduceFoldsByNodeAndLocalRotationOnly) {
  Geometry g = ring_geo(Kind::kAllReduce, 64ull << 20, 16, 2);
  g.gpus_per_node = 8;
  const Schedule s = make_hierarchical(g);
  // One rotation over all 16 GPUs does not map the node boundary onto itself...
  EXPECT_THROW(fold_schedule(s, cyclic(16)), common::FoldError);
  // ...node x local rotation does: GPU 0 keeps its lanes, intra-node and inter-node.
  const Schedule f = fold_schedule(s, common::GpuRotation{2, 8});
  EXPECT_EQ(f.ops.size() * 16, s.ops.size());
  bool inter = false;
  for (const Conn& c : f.conns) {
    EXPECT_EQ(c.src, 0);
    inter = inter || c.inter_node;
  }
  EXPECT_TRUE(inter);
  expect_balanced(f);
}

TEST(FoldSchedule, HierarchicalGivesEveryNodeAnInterNodeStepWhenPartsAreSmall) {
  // 16 nodes x 2 GPUs, 256 KiB: a pipelined chunk of 32 KiB would cut into 2 KiB per node, which
  // rounds up to the 4 KiB granule and leaves nodes 8-15 empty steps (no fold); the chunk grows
  // instead.
  Geometry g = ring_geo(Kind::kAllReduce, 256 << 10, 32, 1);
  g.gpus_per_node = 2;
  const Schedule s = make_hierarchical(g);
  const Schedule f = fold_schedule(s, common::GpuRotation{16, 2});
  EXPECT_EQ(f.ops.size() * 32, s.ops.size());
  expect_balanced(f);
}

TEST(FoldSchedule, TreeAllReduceIsRefused) {  // tree roles differ by node
  Geometry g = ring_geo(Kind::kAllReduce, 64ull << 20, 32, 2);
  g.gpus_per_node = 8;
  g.min_chunk = 1 << 20;
  EXPECT_THROW(fold_schedule(make_tree(g), common::GpuRotation{4, 8}), common::FoldError);
}

TEST(FoldStream, GeneratingFoldedEqualsFoldingTheWholeSchedule) {
  Geometry g = ring_geo(Kind::kAllReduce, 64ull << 20, 8, 2);
  const common::GpuRotation ring = cyclic(8);
  g.fold = &ring;
  expect_same(make_ring(g),
              fold_schedule(make_ring(ring_geo(Kind::kAllReduce, 64ull << 20, 8, 2)), ring));
  Geometry h = ring_geo(Kind::kAllReduce, 64ull << 20, 32, 2);
  h.gpus_per_node = 8;
  Geometry hf = h;
  const common::GpuRotation nodes{4, 8};
  hf.fold = &nodes;
  expect_same(make_hierarchical(hf), fold_schedule(make_hierarchical(h), nodes));
}

TEST(FoldStream, RefusesWhatFoldScheduleRefuses) {
  const common::GpuRotation eight = cyclic(8);
  Geometry uneven = ring_geo(Kind::kAllReduce, 64ull << 20, 8, 3);
  uneven.fold = &eight;
  EXPECT_THROW(make_ring(uneven), common::FoldError);
  Geometry h = ring_geo(Kind::kAllReduce, 64ull << 20, 16, 2);
  h.gpus_per_node = 8;
  const common::GpuRotation all = cyclic(16);
  h.fold = &all;  // one rotation over both nodes moves the node boundary
  EXPECT_THROW(make_hierarchical(h), common::FoldError);
  Geometry t = ring_geo(Kind::kAllReduce, 64ull << 20, 32, 2);
  t.gpus_per_node = 8;
  t.min_chunk = 1 << 20;
  const common::GpuRotation nodes{4, 8};
  t.fold = &nodes;
  EXPECT_THROW(make_tree(t), common::FoldError);
}

// GPU 1 repeats GPU 0's chunks on its own connections; a repeat that differs in any argument
// (here the size, the operation, a dependency) is refused as it is generated, also after a run of
// repeats that were counted without the full check.
TEST(FoldStream, ARepeatedChunkIsStillCheckedArgumentByArgument) {
  constexpr uint8_t kStep = kRecv | kReadLocal | kSend;
  const auto run = [](uint64_t bytes, uint8_t flags, bool dep) {
    FoldStream fs(common::GpuRotation{1, 2});
    const uint32_t c01 = 0, c10 = 1;  // GPU 0 -> 1 and GPU 1 -> 0
    const auto step = [&](uint32_t send, uint32_t recv, uint64_t b, uint8_t f, uint32_t d,
                          uint32_t real) {
      return fs.chunk(f, Phase::kReduceScatter, b, 0, std::span(&send, 1), std::span(&recv, 1), d,
                      real);
    };
    fs.open_lane(0, 0);
    for (uint32_t i = 0; i < 4; ++i) step(c01, c10, 4096, kStep, kNone, i);
    fs.open_lane(1, 0);
    const uint32_t first = step(c10, c01, 4096, kStep, kNone, kNone);
    for (int i = 0; i < 2; ++i) step(c10, c01, 4096, kStep, kNone, kNone);
    step(c10, c01, bytes, flags, dep ? first : kNone, kNone);
  };
  EXPECT_NO_THROW(run(4096, kStep, false));
  EXPECT_THROW(run(8192, kStep, false), common::FoldError);
  EXPECT_THROW(run(4096, kRecv | kSend, false), common::FoldError);
  EXPECT_THROW(run(4096, kStep, true), common::FoldError);
}

TEST(GpuRotation, NodeAndLocalIndexRotateApart) {
  const common::GpuRotation r{4, 8};
  EXPECT_EQ(r.add(7, 1), 0);   // local 7 + 1 wraps inside node 0
  EXPECT_EQ(r.add(31, 9), 0);  // node 3 + 1 wraps, local 7 + 1 wraps
  EXPECT_EQ(r.add(10, r.neg(10)), 0);
  for (int a = 0; a < r.size(); ++a) {
    EXPECT_EQ(r.add(r.neg(a), a), 0);
    EXPECT_EQ(r.add(a, 0), a);
  }
  const common::GpuRotation ring{1, 8};
  EXPECT_EQ(ring.add(5, 6), 3);
  EXPECT_EQ(ring.neg(3), 5);
}

TEST(FoldSchedule, AnUnfinalizedScheduleIsRefused) {
  Schedule s = make_ring(ring_geo(Kind::kAllGather, 1 << 20, 2, 1));
  s.conn_first.clear();
  EXPECT_THROW(fold_schedule(s, cyclic(2)), common::FoldError);
}

}  // namespace
}  // namespace t3sim::collectives
