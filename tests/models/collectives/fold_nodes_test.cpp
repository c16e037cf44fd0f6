// Folding onto several representatives (models/common/mirror.h, whole-node rotations): a flat
// ring across DGX nodes is not the same under node x local rotation (the GPUs at a node boundary
// send over the NIC) but is under whole-node rotations, and folds onto node 0's GPUs, each
// receive rewired onto a representative's connection. FoldStream gives fold_schedule's result op
// for op; a schedule that differs between nodes is refused; one representative is unchanged.
#include <gtest/gtest.h>

#include <cstdint>

#include "models/collectives/fold.h"
#include "models/collectives/schedule_builder.h"
#include "models/common/mirror.h"
#include "tests/models/collectives/fold_helpers.h"

namespace t3sim::collectives {
namespace {

using testing::expect_balanced;
using testing::expect_same;
using testing::ring_geo;

Geometry flat_ring(Kind k, int nodes) {
  Geometry g = ring_geo(k, uint64_t{64} << 20, nodes * 8, 2);
  g.gpus_per_node = 8;
  return g;
}

TEST(FoldNodes, FlatRingAcrossNodesFoldsOntoNodeZero) {
  for (const int nodes : {2, 4}) {
    const common::GpuRotation whole{nodes, 8, true};
    for (const Kind k : {Kind::kReduceScatter, Kind::kAllGather, Kind::kAllReduce}) {
      const Schedule s = make_ring(flat_ring(k, nodes));
      // Node x local rotation moves the node boundary: GPU 7's NIC send is not GPU 0's NVLink one.
      EXPECT_THROW(fold_schedule(s, common::GpuRotation{nodes, 8}), common::FoldError);
      const Schedule f = fold_schedule(s, whole);
      EXPECT_EQ(f.lanes.size() * nodes, s.lanes.size());
      EXPECT_EQ(f.ops.size() * nodes, s.ops.size());
      EXPECT_EQ(f.conns.size() * nodes, s.conns.size());
      for (const Lane& l : f.lanes) EXPECT_LT(l.gpu, 8);
      int inter = 0;
      for (const Conn& c : f.conns) {
        EXPECT_LT(c.src, 8);
        EXPECT_EQ(c.dst, c.src + 1);  // 7 -> 8 crosses to node 1 as in the full run
        ASSERT_NE(c.recv_lane, kNone);
        // GPU 0 receives GPU 7's NIC traffic, as it would GPU 8 * nodes - 1's.
        EXPECT_EQ(f.lanes[c.recv_lane].gpu, (c.src + 1) % 8);
        EXPECT_EQ(f.lanes[c.send_lane].channel, f.lanes[c.recv_lane].channel);
        inter += c.inter_node ? 1 : 0;
      }
      EXPECT_EQ(inter, 2);  // one per channel
      expect_balanced(f);
      Geometry g = flat_ring(k, nodes);
      g.fold = &whole;
      expect_same(make_ring(g), f);
    }
  }
}

TEST(FoldNodes, WholeNodeRotationOfOneRepresentativeIsTheRotationOfGpuZero) {
  // Hierarchical all-reduce: node x local rotation folds onto GPU 0; whole-node rotations also
  // hold (they are among them) and keep node 0's eight GPUs.
  Geometry h = flat_ring(Kind::kAllReduce, 2);
  const Schedule s = make_hierarchical(h);
  const Schedule one = fold_schedule(s, common::GpuRotation{2, 8});
  const Schedule eight = fold_schedule(s, common::GpuRotation{2, 8, true});
  EXPECT_EQ(eight.ops.size(), one.ops.size() * 8);
  const common::GpuRotation whole{2, 8, true};
  h.fold = &whole;
  expect_same(make_hierarchical(h), eight);
}

TEST(FoldNodes, ANodeThatDiffersIsRefused) {
  Schedule s = make_ring(flat_ring(Kind::kReduceScatter, 2));
  for (const Lane& l : s.lanes) {
    if (l.gpu == 9) {
      s.ops[l.first_op].bytes += 4096;  // GPU 9's first slice differs from GPU 1's
      break;
    }
  }
  EXPECT_THROW(fold_schedule(s, common::GpuRotation{2, 8, true}), common::FoldError);
  // Tree: each node has its own place in the tree.
  Geometry t = flat_ring(Kind::kAllReduce, 4);
  t.min_chunk = 1 << 20;
  const common::GpuRotation whole{4, 8, true};
  EXPECT_THROW(fold_schedule(make_tree(t), whole), common::FoldError);
  t.fold = &whole;
  EXPECT_THROW(make_tree(t), common::FoldError);
}

TEST(FoldNodes, ALaneBeforeItsRepresentativesIsRefused) {
  Geometry g = flat_ring(Kind::kAllGather, 2);
  const common::GpuRotation whole{2, 8, true};
  g.fold = &whole;
  ScheduleBuilder b(g);
  b.connect(9, 10);
  EXPECT_THROW(b.open_lane(9, 0), common::FoldError);  // GPU 1's lane 0 is not generated yet
}

TEST(FoldNodes, NvlsOffsetsKeepOneRepresentative) {
  Geometry g = ring_geo(Kind::kAllReduce, uint64_t{16} << 20, 8, 2);
  g.chunk = 256 << 10;
  EXPECT_THROW(fold_offsets(make_nvls(g), common::GpuRotation{1, 8, true}), common::FoldError);
}

TEST(FoldNodes, OneRepresentativeWithoutWholeNodes) {
  const common::GpuRotation r{4, 8};
  EXPECT_EQ(r.reps(), 1);
  for (int g = 0; g < r.size(); ++g) {
    EXPECT_EQ(r.rep(g), 0);
    EXPECT_EQ(r.shift(g), g);
  }
  const common::GpuRotation w{4, 8, true};
  EXPECT_EQ(w.reps(), 8);
  for (int g = 0; g < w.size(); ++g) EXPECT_EQ(w.add(w.rep(g), w.shift(g)), g);
}

}  // namespace
}  // namespace t3sim::collectives
