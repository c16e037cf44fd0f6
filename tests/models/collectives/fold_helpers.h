// Helpers of the fold tests (fold_test.cpp, fold_nodes_test.cpp): a ring geometry of `n` GPUs
// with 2 MiB chunks cut in two slices, op-for-op equality of two folded schedules (what
// FoldStream generates against what fold_schedule folds), and a folded schedule's balance.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "models/collectives/schedule.h"

namespace t3sim::collectives::testing {

inline Geometry ring_geo(Kind k, uint64_t bytes, int n, uint32_t channels) {
  Geometry g;
  g.kind = k;
  g.bytes = bytes;
  g.channels = channels;
  g.elem_bytes = 2;
  for (int i = 0; i < n; ++i) g.ranks.push_back(i);
  g.chunk = 2 << 20;
  g.slices_per_chunk = 2;
  g.slice_floor = (1 << 20) / 32;
  return g;
}

inline void expect_same(const Schedule& a, const Schedule& b) {
  ASSERT_EQ(a.ops.size(), b.ops.size());
  ASSERT_EQ(a.lanes.size(), b.lanes.size());
  ASSERT_EQ(a.conns.size(), b.conns.size());
  EXPECT_EQ(a.conn_refs, b.conn_refs);
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op& x = a.ops[i];
    const Op& y = b.ops[i];
    EXPECT_TRUE(x.offset == y.offset && x.bytes == y.bytes && x.flags == y.flags &&
                x.dep == y.dep && x.sends == y.sends && x.recvs == y.recvs &&
                x.send_list == y.send_list && x.recv_list == y.recv_list)
        << "op " << i;
  }
  for (size_t l = 0; l < a.lanes.size(); ++l) {
    EXPECT_TRUE(a.lanes[l].gpu == b.lanes[l].gpu && a.lanes[l].channel == b.lanes[l].channel &&
                a.lanes[l].first_op == b.lanes[l].first_op &&
                a.lanes[l].num_ops == b.lanes[l].num_ops)
        << "lane " << l;
  }
  for (size_t c = 0; c < a.conns.size(); ++c) {
    EXPECT_TRUE(a.conns[c].src == b.conns[c].src && a.conns[c].dst == b.conns[c].dst &&
                a.conns[c].max_bytes == b.conns[c].max_bytes &&
                a.conns[c].send_lane == b.conns[c].send_lane &&
                a.conns[c].recv_lane == b.conns[c].recv_lane)
        << "connection " << c;
  }
}

// A folded schedule's kept lanes receive exactly what they send, and send something.
inline void expect_balanced(const Schedule& f) {
  uint64_t sent = 0, received = 0;
  for (const Op& op : f.ops) {
    sent += op.bytes * op.sends;
    received += op.bytes * op.recvs;
  }
  EXPECT_EQ(sent, received);
  EXPECT_GT(sent, 0u);
}

}  // namespace t3sim::collectives::testing
