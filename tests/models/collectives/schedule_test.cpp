// Schedule generators: NCCL's step structure, per-GPU traffic volumes, coverage of the buffer and
// send/receive matching, without running anything.
#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <utility>

#include "models/collectives/fold.h"
#include "models/collectives/schedule.h"
#include "models/common/mirror.h"
#include "sim/errors.h"

namespace t3sim::collectives {
namespace {

Geometry geo(Kind k, uint64_t bytes, int n, uint32_t channels = 2) {
  Geometry g;
  g.kind = k;
  g.bytes = bytes;
  g.channels = channels;
  g.ranks.resize(static_cast<size_t>(n));
  std::iota(g.ranks.begin(), g.ranks.end(), 0);
  g.chunk = 2 << 20;
  g.slices_per_chunk = 2;
  g.slice_floor = (1 << 20) / 32;
  return g;
}

struct Volumes {
  std::vector<uint64_t> sent;     // payload pushed per GPU
  std::vector<uint64_t> written;  // payload stored locally per GPU
};

Volumes volumes(const Schedule& s, int n) {
  Volumes v{std::vector<uint64_t>(static_cast<size_t>(n)),
            std::vector<uint64_t>(static_cast<size_t>(n))};
  for (const Lane& l : s.lanes) {
    for (uint32_t i = l.first_op; i < l.first_op + l.num_ops; ++i) {
      const Op& op = s.ops[i];
      if (op.flags & kSend) v.sent[static_cast<size_t>(l.gpu)] += op.bytes * op.sends;
      if (op.flags & kWriteLocal) {
        const bool per_peer = op.stride != 0 && !(op.flags & kReadLocal);
        v.written[static_cast<size_t>(l.gpu)] += op.bytes * (per_peer ? op.recvs : 1);
      }
    }
  }
  return v;
}

TEST(RingSchedule, AllReduceHasTwoNMinusOneStepsPlusFinalCopy) {
  const int n = 8;
  const uint64_t S = 64 << 20;
  const Schedule s = make_ring(geo(Kind::kAllReduce, S, n));
  ASSERT_EQ(s.lanes.size(), 16u);
  // 64 MiB / (2 channels x 8 ranks x 2 MiB) = 2 loops; per loop 2(n-1)+1 chunk ops of 2 slices.
  EXPECT_EQ(s.lanes[0].num_ops, 2u * 15 * 2);
  const Volumes v = volumes(s, n);
  for (int g = 0; g < n; ++g) {
    EXPECT_EQ(v.sent[g], 2 * (n - 1) * S / n) << "gpu " << g;
    EXPECT_EQ(v.written[g], S) << "gpu " << g;  // every byte ends written once, in place
  }
  EXPECT_EQ(s.send_ops.size(), s.recv_ops.size());
}

TEST(RingSchedule, OddSizesStillMatchAndCoverTheBuffer) {
  const int n = 5;
  const uint64_t S = 3 * 1000 * 1000 + 4 * 7;  // not a multiple of the chunk grid
  const Schedule s = make_ring(geo(Kind::kAllReduce, S, n, 3));
  const Volumes v = volumes(s, n);
  for (int g = 0; g < n; ++g) EXPECT_EQ(v.written[g], S);
}

TEST(RingSchedule, ReduceScatterAndAllGatherSendNMinusOneParts) {
  const int n = 4;
  const uint64_t S = 8 << 20;
  const Volumes rs = volumes(make_ring(geo(Kind::kReduceScatter, S, n)), n);
  const Volumes ag = volumes(make_ring(geo(Kind::kAllGather, S, n)), n);
  for (int g = 0; g < n; ++g) {
    EXPECT_EQ(rs.sent[g], (n - 1) * S / n);
    EXPECT_EQ(rs.written[g], S / n);  // the reduced own part
    EXPECT_EQ(ag.sent[g], (n - 1) * S / n);
    EXPECT_EQ(ag.written[g], (n - 1) * S / n);  // everyone else's parts
  }
}

TEST(RingSchedule, ReversedRingMirrorsTheForwardOne) {
  const int n = 4;
  const uint64_t S = 8 << 20;
  for (Kind k : {Kind::kAllReduce, Kind::kReduceScatter, Kind::kAllGather}) {
    Geometry g = geo(k, S, n);
    g.ring_step = -1;
    const Schedule s = make_ring(g);
    for (const Conn& c : s.conns) EXPECT_EQ(c.dst, (c.src + n - 1) % n);  // r -> r-1
    const Volumes fwd = volumes(make_ring(geo(k, S, n)), n);
    const Volumes rev = volumes(s, n);
    EXPECT_EQ(rev.sent, fwd.sent);
    EXPECT_EQ(rev.written, fwd.written);
  }
  // The reduce-scatter still leaves rank r owning part r: its last (reducing) write is there.
  Geometry g = geo(Kind::kReduceScatter, S, n, 1);
  g.ring_step = -1;
  const Schedule s = make_ring(g);
  for (const Lane& l : s.lanes) {
    const Op& last = s.ops[l.first_op + l.num_ops - 1];
    EXPECT_TRUE(last.flags & kWriteLocal);
    EXPECT_EQ(last.offset / (S / n), static_cast<uint64_t>(l.rank));
  }
}

TEST(DirectSchedule, OneShotMovesTheSameVolumeInTwoSteps) {
  const int n = 8;
  const uint64_t S = 1 << 20;
  const Schedule s = make_direct(geo(Kind::kAllReduce, S, n, 1));
  const Volumes v = volumes(s, n);
  for (int g = 0; g < n; ++g) EXPECT_EQ(v.sent[g], 2 * (n - 1) * S / n);
  EXPECT_EQ(s.conns.size(), static_cast<size_t>(n * (n - 1)));
  EXPECT_EQ(s.lanes[0].num_ops, 4u * 2);  // scatter, reduce, broadcast, gather; 2 slices each
  EXPECT_EQ(s.ops[s.lanes[0].first_op].sends, n - 1);
}

TEST(HierarchicalSchedule, InterNodeTrafficIsOneNodeShare) {
  const int n = 16;
  const uint64_t S = 64 << 20;
  Geometry g = geo(Kind::kAllReduce, S, n);
  g.gpus_per_node = 8;
  const Schedule s = make_hierarchical(g);
  std::vector<uint64_t> inter(n, 0);
  for (const Op& op : s.ops) {
    for (uint16_t k = 0; k < op.sends; ++k) {
      const Conn& c = s.conns[s.send_conn(op, k)];
      if (c.inter_node) inter[static_cast<size_t>(c.src)] += op.bytes;
    }
  }
  const Volumes v = volumes(s, n);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(inter[r], S / 8) << r;  // ring AR of S/8 over 2 nodes: 2 (N-1)/N x S/8
    EXPECT_EQ(v.sent[r], 2 * 7 * S / 8 + S / 8) << r;
  }
  EXPECT_EQ(s.lanes.size(), 2u * 16 * 3);  // three lanes per channel and GPU
  g.gpus_per_node = 16;
  EXPECT_THROW(make_hierarchical(g), ConfigError);
}

TEST(HierarchicalSchedule, ManyNodesTakeLoopsTogetherForLongerInterNodeSteps) {
  // 16 nodes x 2 GPUs, one channel, 256 KiB: two loops of 64 KiB parts per GPU. Cut per loop, an
  // inter-node step would carry 4 KiB; the two loops go round the inter-node ring together, in
  // 8 KiB steps, half as many.
  const int n = 32;
  const uint64_t S = 256 << 10;
  Geometry g = geo(Kind::kAllReduce, S, n, 1);
  g.gpus_per_node = 2;
  const Schedule s = make_hierarchical(g);
  std::vector<uint64_t> inter(n, 0), steps(n, 0);
  for (const Lane& l : s.lanes) {
    for (uint32_t i = l.first_op; i < l.first_op + l.num_ops; ++i) {
      const Op& op = s.ops[i];
      if (op.sends == 0 || op.bytes == 0 || !s.conns[s.send_conn(op, 0)].inter_node) continue;
      EXPECT_EQ(op.bytes, 8u << 10);
      inter[static_cast<size_t>(l.gpu)] += op.bytes;
      ++steps[static_cast<size_t>(l.gpu)];
    }
  }
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(inter[r], 2 * 15 * (S / 2) / 16) << r;  // ring AR of S / 2 over 16 nodes
    EXPECT_EQ(steps[r], 2u * 15) << r;
  }
  // Every node takes the same groups: the schedule still folds by node x local rotation.
  const Schedule f = fold_schedule(s, common::GpuRotation{16, 2});
  EXPECT_EQ(f.ops.size() * n, s.ops.size());
}

TEST(RingSchedule, MultiRingReduceScatterStillLeavesRankROwningPartR) {
  const int n = 8;
  const uint64_t S = 8 << 20;
  Geometry g = geo(Kind::kReduceScatter, S, n, 7);
  g.rings = disjoint_rings(n);
  const Schedule s = make_ring(g);
  std::vector<uint64_t> owned(n, 0);
  for (const Lane& l : s.lanes) {
    for (uint32_t i = l.first_op; i < l.first_op + l.num_ops; ++i) {
      const Op& op = s.ops[i];
      if (!(op.flags & kWriteLocal)) continue;
      EXPECT_EQ(op.offset / (S / n), static_cast<uint64_t>(l.gpu)) << "lane on gpu " << l.gpu;
      owned[static_cast<size_t>(l.gpu)] += op.bytes;
    }
  }
  for (int r = 0; r < n; ++r) EXPECT_EQ(owned[static_cast<size_t>(r)], S / n) << r;
  // Channel c runs ring c: its connections are that ring's links, all distinct across rings.
  std::set<std::pair<int, int>> links;
  for (const Conn& c : s.conns) links.insert({c.src, c.dst});
  EXPECT_EQ(links.size(), static_cast<size_t>(n * (n - 1)));
}

TEST(RingSchedule, BroadcastIsAChainFromTheRoot) {
  const int n = 4;
  const uint64_t S = 8 << 20;
  Geometry g = geo(Kind::kBroadcast, S, n);
  g.root = 2;
  const Volumes v = volumes(make_ring(g), n);
  EXPECT_EQ(v.sent[2], S);  // root: send only
  EXPECT_EQ(v.written[2], 0u);
  EXPECT_EQ(v.sent[3], S);  // middle ranks: receive, store, forward
  EXPECT_EQ(v.written[3], S);
  EXPECT_EQ(v.sent[1], 0u);  // the root's predecessor ends the chain
  EXPECT_EQ(v.written[1], S);
}

TEST(RingSchedule, ReduceEndsAtTheRoot) {
  const int n = 4;
  const uint64_t S = 8 << 20;
  Geometry g = geo(Kind::kReduce, S, n);
  g.root = 1;
  const Volumes v = volumes(make_ring(g), n);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(v.sent[static_cast<size_t>(r)], r == 1 ? 0u : S) << r;
    EXPECT_EQ(v.written[static_cast<size_t>(r)], r == 1 ? S : 0u) << r;
  }
}

TEST(DirectSchedule, AllToAllSendsEachPeerItsPart) {
  const int n = 8;
  const uint64_t S = 8 << 20;
  const Volumes v = volumes(make_direct(geo(Kind::kAllToAll, S, n)), n);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(v.sent[static_cast<size_t>(r)], S / n * (n - 1)) << r;
    EXPECT_EQ(v.written[static_cast<size_t>(r)], S / n * (n - 1)) << r;
  }
}

TEST(DirectSchedule, SendRecvMovesTheWholeBufferToTheNextRank) {
  const int n = 4;
  const uint64_t S = 4 << 20;
  const Schedule s = make_direct(geo(Kind::kSendRecv, S, n));
  const Volumes v = volumes(s, n);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(v.sent[static_cast<size_t>(r)], S) << r;
    EXPECT_EQ(v.written[static_cast<size_t>(r)], S) << r;
  }
  for (const Conn& c : s.conns) EXPECT_EQ(c.dst, (c.src + 1) % n);
  EXPECT_EQ(s.lanes.size(), 2u * 2 * n);  // a send and a receive lane per channel and rank
}

TEST(NvlsSchedule, EachRankOwnsOneShareAndNeedsNoConnections) {
  const int n = 8;
  const uint64_t S = 16 << 20;
  Geometry g = geo(Kind::kAllReduce, S, n, 4);
  g.chunk = 128 << 10;
  g.slices_per_chunk = 1;
  g.slice_floor = 0;
  const Schedule s = make_nvls(g);
  EXPECT_TRUE(s.conns.empty());
  std::vector<uint64_t> share(n, 0);
  std::vector<bool> covered(S / 4096, false);
  for (const Lane& l : s.lanes) {
    for (uint32_t i = l.first_op; i < l.first_op + l.num_ops; ++i) {
      const Op& op = s.ops[i];
      EXPECT_EQ(op.flags, kRecv | kSend);  // ld_reduce, then multicast
      share[static_cast<size_t>(l.gpu)] += op.bytes;
      for (uint64_t b = op.offset; b < op.offset + op.bytes; b += 4096) {
        EXPECT_FALSE(covered[b / 4096]);
        covered[b / 4096] = true;
      }
    }
  }
  for (int r = 0; r < n; ++r) EXPECT_EQ(share[static_cast<size_t>(r)], S / n) << r;
}

TEST(Schedule, FinalizeRejectsUnmatchedConnections) {
  Schedule s;
  s.conns.push_back(Conn{});
  s.conn_refs.push_back(0);
  Op op;
  op.flags = kSend | kReadLocal;
  op.sends = 1;
  s.ops.push_back(op);
  s.lanes.push_back(Lane{0, 0, 0, 0, 1});
  EXPECT_THROW(s.finalize(), ModelError);
}

}  // namespace
}  // namespace t3sim::collectives
