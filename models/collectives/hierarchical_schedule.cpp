// Hierarchical all-reduce for multi-node systems: per loop and channel, the data is cut into one
// part per local rank; lane A reduce-scatters the parts over the node's NVLink ring, lane B
// all-reduces its part over the inter-node ring of same-local-rank GPUs (cut into one sub-part per
// node), lane C all-gathers the parts over the node ring. The three lanes of a channel share its CU
// and hand chunks on through `dep`, so loop i's inter-node phase overlaps loop i+1's intra-node
// reduce-scatter (NCCL's split-thread tree/collnet kernels work the same way).
#include <algorithm>
#include <array>

#include "models/collectives/schedule_builder.h"

namespace t3sim::collectives {
namespace {

// Loops per channel that the chunk is shrunk to allow, so the three phases can overlap
// (t3sim modelling choice, in the spirit of NCCL's pipelined tree chunking).
constexpr uint64_t kPipelineDepth = 4;

struct Ctx {
  ScheduleBuilder& b;
  NodeShape sh;
  std::vector<Loop> loops;
  uint32_t c = 0;
  uint64_t part(const Loop& lp, int j) const {
    return lp.grid + (c * static_cast<uint64_t>(sh.local) + mod(j, sh.local)) * lp.real;
  }
  uint64_t plen(const Loop& lp, int j) const {
    return clamp_len(b.geo().bytes, part(lp, j), lp.real);
  }
};

struct RankConns {
  uint32_t rs_send, rs_recv, x_send, x_recv, ag_send, ag_recv;
};

// Lane A: ring reduce-scatter of the parts over the node; part l ends reduced over the node.
std::vector<uint32_t> intra_rs(Ctx& x, int l, const RankConns& k) {
  std::vector<uint32_t> ends;
  constexpr Phase ph = Phase::kReduceScatter;
  for (const Loop& lp : x.loops) {
    x.b.chunk(kSendOnly, ph, x.part(lp, l - 1), x.plen(lp, l - 1), {k.rs_send}, {});
    for (int j = 2; j < x.sh.local; ++j) {
      x.b.chunk(kRecvReduceSend, ph, x.part(lp, l - j), x.plen(lp, l - j), {k.rs_send},
                {k.rs_recv});
    }
    ends.push_back(x.b.chunk(kRecvReduceCopy, ph, x.part(lp, l), x.plen(lp, l), {}, {k.rs_recv}));
  }
  return ends;
}

// Lane B: ring all-reduce of part l among the same-local-rank GPUs of every node.
std::vector<uint32_t> inter_ar(Ctx& x, int m, int l, const RankConns& k,
                               const std::vector<uint32_t>& after) {
  std::vector<uint32_t> ends;
  const int nn = x.sh.nodes;
  for (size_t i = 0; i < x.loops.size(); ++i) {
    const uint64_t base = x.part(x.loops[i], l);
    const uint64_t len = x.plen(x.loops[i], l);
    const uint64_t sub = round_up(div_up(len, static_cast<uint64_t>(nn)), kChunkAlign);
    // Sub-part p of the part (p in [0, nn), stepped down with wrap: no division per step).
    auto at = [&](int p) { return base + static_cast<uint64_t>(p) * sub; };
    auto sl = [&](int p) { return clamp_len(len, static_cast<uint64_t>(p) * sub, sub); };
    auto down = [nn](int p) { return p == 0 ? nn - 1 : p - 1; };
    constexpr Phase rs = Phase::kReduceScatter;
    constexpr Phase ag = Phase::kAllGather;
    int p = down(m);  // m - 1
    x.b.chunk(kSendOnly, rs, at(p), sl(p), {k.x_send}, {}, after[i]);
    for (int j = 2; j < nn; ++j) {
      p = down(p);  // m - j
      x.b.chunk(kRecvReduceSend, rs, at(p), sl(p), {k.x_send}, {k.x_recv});
    }
    x.b.chunk(kRecvReduceCopySend, rs, at(m), sl(m), {k.x_send}, {k.x_recv});
    p = m;
    for (int j = 1; j < nn - 1; ++j) {
      p = down(p);  // m - j
      x.b.chunk(kRecvCopySend, ag, at(p), sl(p), {k.x_send}, {k.x_recv});
    }
    const int last = m + 1 == nn ? 0 : m + 1;
    ends.push_back(x.b.chunk(kRecvOnly, ag, at(last), sl(last), {}, {k.x_recv}));
  }
  return ends;
}

// Lane C: ring all-gather of the fully reduced parts over the node.
void intra_ag(Ctx& x, int l, const RankConns& k, const std::vector<uint32_t>& after) {
  constexpr Phase ph = Phase::kAllGather;
  for (size_t i = 0; i < x.loops.size(); ++i) {
    const Loop& lp = x.loops[i];
    x.b.chunk(kSendOnly, ph, x.part(lp, l), x.plen(lp, l), {k.ag_send}, {}, after[i]);
    for (int j = 1; j < x.sh.local - 1; ++j) {
      x.b.chunk(kRecvCopySend, ph, x.part(lp, l - j), x.plen(lp, l - j), {k.ag_send}, {k.ag_recv});
    }
    x.b.chunk(kRecvOnly, ph, x.part(lp, l + 1), x.plen(lp, l + 1), {}, {k.ag_recv});
  }
}

// Connections of channel c: [0] intra RS ring, [1] inter ring, [2] intra AG ring, each by src rank.
std::array<std::vector<uint32_t>, 3> connect_channel(ScheduleBuilder& b, const NodeShape& sh) {
  std::array<std::vector<uint32_t>, 3> conns;
  for (auto& v : conns) v.resize(static_cast<size_t>(sh.nodes * sh.local));
  for (int m = 0; m < sh.nodes; ++m) {
    for (int l = 0; l < sh.local; ++l) {
      const int r = sh.rank(m, l);
      conns[0][r] = b.connect(r, sh.rank(m, mod(l + 1, sh.local)));
      conns[1][r] = b.connect(r, sh.rank(mod(m + 1, sh.nodes), l));
      conns[2][r] = b.connect(r, sh.rank(m, mod(l + 1, sh.local)));
    }
  }
  return conns;
}

}  // namespace

Schedule make_hierarchical(const Geometry& geo) {
  const NodeShape sh = node_shape(geo, "hierarchical all-reduce", 2);
  Geometry g = geo;
  const uint64_t per_loop = g.channels * static_cast<uint64_t>(sh.local) * kPipelineDepth;
  g.chunk = std::min(g.chunk, round_up(div_up(g.bytes, per_loop), kChunkAlign));
  // The inter-node ring cuts a part into one sub-part per node; below 4 KiB per node the sub-parts
  // would round up to the granule and leave the last nodes none, so the chunk grows instead.
  g.chunk = std::max(g.chunk, static_cast<uint64_t>(sh.nodes) * kChunkAlign);
  ScheduleBuilder b(g);
  const std::vector<Loop> loops =
      make_loops(g.bytes, g.channels, static_cast<uint64_t>(sh.local), g.chunk);
  for (uint32_t c = 0; c < g.channels; ++c) {
    Ctx x{b, sh, loops, c};
    const auto conns = connect_channel(b, sh);
    for (int m = 0; m < sh.nodes; ++m) {
      for (int l = 0; l < sh.local; ++l) {
        const int r = sh.rank(m, l);
        const int prev_l = sh.rank(m, mod(l - 1, sh.local));
        const int prev_m = sh.rank(mod(m - 1, sh.nodes), l);
        const RankConns k{conns[0][r],      conns[0][prev_l], conns[1][r],
                          conns[1][prev_m], conns[2][r],      conns[2][prev_l]};
        b.open_lane(r, c);
        const auto ends_a = intra_rs(x, l, k);
        b.open_lane(r, c);
        const auto ends_b = inter_ar(x, m, l, k, ends_a);
        b.open_lane(r, c);
        intra_ag(x, l, k, ends_b);
      }
    }
  }
  return b.take();
}

}  // namespace t3sim::collectives
