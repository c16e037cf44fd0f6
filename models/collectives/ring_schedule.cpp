// Ring schedules after NCCL's runRing (src/device/all_reduce.h, reduce_scatter.h, all_gather.h):
// per channel a ring position -> position+1, per loop nranks chunks per channel; the rank at
// position i starts by sending chunk i-1 and ends owning the reduced chunk i (hardware.md §5.1).
// Chunk and part indices are the ranks at those positions, so a channel on another ring order
// (Geometry::rings) still leaves rank r owning part r. A reversed ring (ring_step -1) is the mirror
// image: position i sends to i-1, starts with chunk i+1 and still ends owning chunk i.
#include "models/collectives/schedule_builder.h"

namespace t3sim::collectives {
namespace {

// Offset of chunk j of channel c in an all-reduce loop (NCCL calcOffset).
uint64_t ar_offset(const Geometry& g, const Loop& lp, uint32_t c, int j, int n) {
  const uint64_t jj = static_cast<uint64_t>(j);
  const uint64_t nn = static_cast<uint64_t>(n);
  return g.channel_major ? lp.grid + (c * nn + jj) * lp.real
                         : lp.grid + (jj * g.channels + c) * lp.real;
}

struct RingLane {
  const RingOrder& order;  // position -> rank
  int pos = 0;             // this lane's position
  uint32_t channel = 0;
  uint32_t send = 0;
  uint32_t recv = 0;
  // The rank (= chunk or part index) at position pos + k.
  int at(int k) const {
    const int n = static_cast<int>(order.size());
    return order[static_cast<size_t>(mod(pos + k, n))];
  }
};

void ring_all_reduce_lane(ScheduleBuilder& b, const RingLane& l) {
  const Geometry& g = b.geo();
  const int n = b.size();
  const int d = g.ring_step;
  const uint32_t c = l.channel;
  for (const Loop& lp : make_loops(g.bytes, g.channels, static_cast<uint64_t>(n), g.chunk)) {
    auto at = [&](int k) { return ar_offset(g, lp, c, l.at(k), n); };
    auto len = [&](int k) { return clamp_len(g.bytes, at(k), lp.real); };
    b.chunk(kSendOnly, Phase::kReduceScatter, at(-d), len(-d), {l.send}, {});
    for (int j = 2; j < n; ++j) {
      b.chunk(kRecvReduceSend, Phase::kReduceScatter, at(-d * j), len(-d * j), {l.send}, {l.recv});
    }
    b.chunk(kRecvReduceCopySend, Phase::kReduceScatter, at(0), len(0), {l.send}, {l.recv});
    for (int j = 1; j < n - 1; ++j) {
      b.chunk(kRecvCopySend, Phase::kAllGather, at(-d * j), len(-d * j), {l.send}, {l.recv});
    }
    b.chunk(kRecvOnly, Phase::kAllGather, at(d), len(d), {}, {l.recv});
  }
}

// Reduce-scatter / all-gather: rank j's part is [j*P, (j+1)*P); loops run over one part.
void ring_rs_ag_lane(ScheduleBuilder& b, const RingLane& l) {
  const Geometry& g = b.geo();
  const int n = b.size();
  const uint64_t part = g.bytes / static_cast<uint64_t>(n);
  const bool rs = g.kind == Kind::kReduceScatter;
  const int d = g.ring_step;
  const Phase ph = rs ? Phase::kReduceScatter : Phase::kAllGather;
  for (const Loop& lp : make_loops(part, g.channels, 1, g.chunk)) {
    const uint64_t in_part = lp.grid + l.channel * lp.real;
    const uint64_t nb = clamp_len(part, in_part, lp.real);
    auto at = [&](int k) { return static_cast<uint64_t>(l.at(k)) * part + in_part; };
    if (rs) {
      b.chunk(kSendOnly, ph, at(-d), nb, {l.send}, {});
      for (int j = 2; j < n; ++j) b.chunk(kRecvReduceSend, ph, at(-d * j), nb, {l.send}, {l.recv});
      b.chunk(kRecvReduceCopy, ph, at(0), nb, {}, {l.recv});
    } else {
      b.chunk(kSendOnly, ph, at(0), nb, {l.send}, {});
      for (int j = 1; j < n - 1; ++j) {
        b.chunk(kRecvCopySend, ph, at(-d * j), nb, {l.send}, {l.recv});
      }
      b.chunk(kRecvOnly, ph, at(d), nb, {}, {l.recv});
    }
  }
}

// Broadcast and reduce (NCCL's runRing in broadcast.h, reduce.h): a chain along the ring, each
// channel moving its chunk of every loop. Broadcast flows from the root to the root's predecessor;
// reduce from the root's successor into the root. q is the lane's distance from the root.
void ring_rooted_lane(ScheduleBuilder& b, const RingLane& l) {
  const Geometry& g = b.geo();
  const int n = b.size();
  const int d = g.ring_step;
  int root_pos = 0;
  while (l.order[static_cast<size_t>(root_pos)] != g.root) ++root_pos;
  const int q = mod((l.pos - root_pos) * d, n);
  const bool bcast = g.kind == Kind::kBroadcast;
  const Phase ph = bcast ? Phase::kAllGather : Phase::kReduceScatter;
  for (const Loop& lp : make_loops(g.bytes, g.channels, 1, g.chunk)) {
    const uint64_t off = lp.grid + l.channel * lp.real;
    const uint64_t nb = clamp_len(g.bytes, off, lp.real);
    if (bcast) {
      if (q == 0) {
        b.chunk(kSendOnly, ph, off, nb, {l.send}, {});
      } else if (q < n - 1) {
        b.chunk(kRecvCopySend, ph, off, nb, {l.send}, {l.recv});
      } else {
        b.chunk(kRecvOnly, ph, off, nb, {}, {l.recv});
      }
    } else if (q == 1) {
      b.chunk(kSendOnly, ph, off, nb, {l.send}, {});
    } else if (q == 0) {
      b.chunk(kRecvReduceCopy, ph, off, nb, {}, {l.recv});
    } else {
      b.chunk(kRecvReduceSend, ph, off, nb, {l.send}, {l.recv});
    }
  }
}

}  // namespace

Schedule make_ring(const Geometry& g) {
  ScheduleBuilder b(g);
  const int n = b.size();
  if (n < 2) return b.take();
  const int d = g.ring_step;
  RingOrder identity(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) identity[static_cast<size_t>(i)] = i;
  auto order = [&](uint32_t c) -> const RingOrder& {
    return g.rings.empty() ? identity : g.rings[c % g.rings.size()];
  };
  // Chunk ops per lane: 2n - 1 per all-reduce loop, n per reduce-scatter or all-gather loop.
  const auto nn = static_cast<uint64_t>(n);
  if (g.kind == Kind::kAllReduce) {
    b.expect(g.channels * nn, saturating_mul(loop_count(g.bytes, g.channels, nn, g.chunk), 2 * nn));
  } else if (g.kind == Kind::kBroadcast || g.kind == Kind::kReduce) {
    b.expect(g.channels * nn, loop_count(g.bytes, g.channels, 1, g.chunk));
  } else {
    b.expect(g.channels * nn, saturating_mul(loop_count(g.bytes / nn, g.channels, 1, g.chunk), nn));
  }
  // conn from position i to i+d of channel c's ring
  std::vector<uint32_t> next(static_cast<size_t>(n) * g.channels);
  for (uint32_t c = 0; c < g.channels; ++c) {
    const RingOrder& o = order(c);
    for (int i = 0; i < n; ++i) {
      next[c * n + i] = b.connect(o[static_cast<size_t>(i)], o[static_cast<size_t>(mod(i + d, n))]);
    }
  }
  // Lanes in ring order; folded, in rank order, so that every representative's lane comes before
  // its images' (fold_stream.h: a rail ring across nodes, node_rails.h, visits other nodes first).
  std::vector<int> pos_of(static_cast<size_t>(n));
  for (uint32_t c = 0; c < g.channels; ++c) {
    const RingOrder& o = order(c);
    for (int i = 0; i < n; ++i) pos_of[static_cast<size_t>(o[static_cast<size_t>(i)])] = i;
    for (int k = 0; k < n; ++k) {
      const int i = g.fold != nullptr ? pos_of[static_cast<size_t>(k)] : k;
      b.open_lane(o[static_cast<size_t>(i)], c);
      const RingLane l{o, i, c, next[c * n + i], next[c * n + mod(i - d, n)]};
      if (g.kind == Kind::kAllReduce) {
        ring_all_reduce_lane(b, l);
      } else if (g.kind == Kind::kBroadcast || g.kind == Kind::kReduce) {
        ring_rooted_lane(b, l);
      } else {
        ring_rs_ag_lane(b, l);
      }
    }
  }
  return b.take();
}

}  // namespace t3sim::collectives
