// Hierarchical all-reduce for multi-node systems: per loop and channel, the data is cut into one
// part per local rank; lane A reduce-scatters the parts over the node's NVLink ring, lane B
// all-reduces its part over the inter-node ring of same-local-rank GPUs (NCCL's ring, one piece
// per node and step, over groups of loops), lane C all-gathers the parts over the node ring. The
// three lanes of a channel share its CU and hand chunks on through `dep`, so one group's
// inter-node phase overlaps the next group's intra-node reduce-scatter (NCCL's split-thread
// tree/collnet kernels work the same way).
#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

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

// Smallest inter-node step worth a loop of pipeline (t3sim modelling choice): 16 KiB takes about
// 10 us on one of 32 channels' shares of a 400 Gb/s NIC, about a step's latency. Chosen from the
// simulated 8-128 node series (docs/performance-log.md, "Scale benchmark"; rule in
// docs/cluster.md), not from measurements.
constexpr uint64_t kMinInterStep = 16 << 10;

// Loops per inter-node ring loop. With few nodes (the inter-node ring takes no more steps than the
// node's reduce-scatter) one: each loop's part is cut into one piece per node and the lanes
// pipeline loop by loop. With more, the fewest loops (a divisor of both counts) whose pieces
// reach kMinInterStep, else all that divide both: fewer, longer latency-bound steps then save
// more than the pipeline.
int group_size(const Ctx& x, int loops) {
  const NodeShape& sh = x.sh;
  if (2 * (sh.nodes - 1) <= sh.local - 1) return 1;
  const int most = std::gcd(sh.nodes, loops);
  const uint64_t part = x.loops.empty() ? 0 : x.loops.front().real;
  for (int g = 1; g < most; ++g) {
    if (most % g != 0) continue;
    const auto cuts = static_cast<uint64_t>(sh.nodes / g);
    if (round_up(div_up(part, cuts), kChunkAlign) >= kMinInterStep) return g;  // as inter_ar cuts
  }
  return most;
}

// Lane B: ring all-reduce of part l among the same-local-rank GPUs of every node, as NCCL's ring
// runs it: each step carries one piece, a loop of the ring is one piece per node. The loops'
// parts are taken group_size() at a time, each cut into nodes / group pieces (1 GiB on 128 nodes:
// 4 loops of 1 MiB parts in groups of 2, 16 KiB steps instead of 8 KiB). A group's ring starts
// when the node's reduce-scatter of the group's parts is done (`after`, per loop) and hands them
// on when it ends (returned, per loop).
std::vector<uint32_t> inter_ar(Ctx& x, int m, int l, const RankConns& k,
                               const std::vector<uint32_t>& after) {
  const int nn = x.sh.nodes;
  const auto nloops = static_cast<int>(x.loops.size());
  const int group = group_size(x, nloops);
  const int cuts = nn / group;  // pieces per part
  std::vector<uint32_t> ends(x.loops.size());
  struct Part {
    uint64_t base, len, cut;  // offset, bytes, bytes per piece
  };
  std::vector<Part> parts;  // the group's
  for (int g0 = 0; g0 < nloops; g0 += group) {
    // Piece p is cut (p mod cuts) of the group's part p / cuts; stepped down with wrap (no
    // division per step).
    struct Piece {
      int part, cut;
    };
    auto down = [&](Piece p) {
      if (--p.cut < 0) {
        p.cut = cuts - 1;
        if (--p.part < 0) p.part = group - 1;
      }
      return p;
    };
    auto piece_of = [&](int node) { return Piece{node / cuts, node % cuts}; };
    parts.clear();
    for (int q = g0; q < g0 + group; ++q) {
      const Loop& lp = x.loops[static_cast<size_t>(q)];
      const uint64_t len = x.plen(lp, l);
      parts.push_back(Part{x.part(lp, l), len,
                           round_up(div_up(len, static_cast<uint64_t>(cuts)), kChunkAlign)});
    }
    auto at = [&](const Piece& p) {
      const Part& q = parts[static_cast<size_t>(p.part)];
      return q.base + static_cast<uint64_t>(p.cut) * q.cut;
    };
    auto sl = [&](const Piece& p) {
      const Part& q = parts[static_cast<size_t>(p.part)];
      return clamp_len(q.len, static_cast<uint64_t>(p.cut) * q.cut, q.cut);
    };
    constexpr Phase rs = Phase::kReduceScatter;
    constexpr Phase ag = Phase::kAllGather;
    const Piece own = piece_of(m);
    Piece p = down(own);  // m - 1
    x.b.chunk(kSendOnly, rs, at(p), sl(p), {k.x_send}, {},
              after[static_cast<size_t>(g0 + group - 1)]);
    for (int j = 2; j < nn; ++j) {
      p = down(p);  // m - j
      x.b.chunk(kRecvReduceSend, rs, at(p), sl(p), {k.x_send}, {k.x_recv});
    }
    x.b.chunk(kRecvReduceCopySend, rs, at(own), sl(own), {k.x_send}, {k.x_recv});
    p = own;
    for (int j = 1; j < nn - 1; ++j) {
      p = down(p);  // m - j
      x.b.chunk(kRecvCopySend, ag, at(p), sl(p), {k.x_send}, {k.x_recv});
    }
    p = down(p);  // m + 1
    const uint32_t end = x.b.chunk(kRecvOnly, ag, at(p), sl(p), {}, {k.x_recv});
    for (int i = g0; i < g0 + group; ++i) ends[static_cast<size_t>(i)] = end;
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
