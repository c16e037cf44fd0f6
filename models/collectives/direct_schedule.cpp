// One-shot (direct) schedules for switch and fully-connected fabrics: per slice, a GPU pushes each
// peer its part of the data in one fan-out step, then reduces (or copies) everything it received in
// one fan-in step. All-reduce = direct reduce-scatter then direct all-gather of the reduced part:
// 2 synchronised steps instead of the ring's 2(n-1). All-to-all is the scatter step without the
// reduction; send/recv is one connection per rank to its successor.
#include "models/collectives/schedule_builder.h"

namespace t3sim::collectives {
namespace {

struct Fans {
  std::vector<uint32_t> out;  // to every peer
  std::vector<uint32_t> in;   // from every peer
};

void direct_lane(ScheduleBuilder& b, int r, uint32_t c, const Fans& f) {
  const Geometry& g = b.geo();
  const uint64_t n = static_cast<uint64_t>(b.size());
  const uint64_t part = g.bytes / n;
  const uint64_t own = static_cast<uint64_t>(r) * part;
  if (g.kind == Kind::kAllToAll) {  // part p goes to peer p; the part from peer q lands at q
    for (const Loop& lp : make_loops(part, g.channels, 1, g.chunk)) {
      const uint64_t o = lp.grid + c * lp.real;
      const uint64_t nb = clamp_len(part, o, lp.real);
      b.chunk(kReadLocal | kSend, Phase::kAllGather, o, nb, f.out, {}, part);
      b.chunk(kRecv | kWriteLocal, Phase::kAllGather, o, nb, {}, f.in, part);
    }
    return;
  }
  const bool rs = g.kind != Kind::kAllGather;
  const bool ag = g.kind != Kind::kReduceScatter;
  for (const Loop& lp : make_loops(part, g.channels, 1, g.chunk)) {
    const uint64_t o = lp.grid + c * lp.real;
    const uint64_t nb = clamp_len(part, o, lp.real);
    if (rs) {  // scatter partials (peer p gets its part p), then reduce all received into own part
      b.chunk(kReadLocal | kSend, Phase::kReduceScatter, o, nb, f.out, {}, part);
      b.chunk(kRecv | kReadLocal | kWriteLocal, Phase::kReduceScatter, own + o, nb, {}, f.in);
    }
    if (ag) {  // broadcast own part, then store each peer's part at its place
      b.chunk(kReadLocal | kSend, Phase::kAllGather, own + o, nb, f.out, {});
      b.chunk(kRecv | kWriteLocal, Phase::kAllGather, o, nb, {}, f.in, part);
    }
  }
}

// Send/recv (nccl-tests sendrecv_perf): rank r sends its whole buffer to r+1 while receiving
// r-1's; the send and the receive run as two lanes of the channel, like NCCL's p2p warps.
Schedule make_send_recv(const Geometry& g) {
  ScheduleBuilder b(g);
  const int n = b.size();
  if (n < 2) return b.take();
  std::vector<uint32_t> next(static_cast<size_t>(n) * g.channels);
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) next[c * n + r] = b.connect(r, mod(r + 1, n));
  }
  const std::vector<Loop> loops = make_loops(g.bytes, g.channels, 1, g.chunk);
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) {
      for (const bool sending : {true, false}) {
        b.open_lane(r, c);
        for (const Loop& lp : loops) {
          const uint64_t o = lp.grid + c * lp.real;
          const uint64_t nb = clamp_len(g.bytes, o, lp.real);
          if (sending) {
            b.chunk(kSendOnly, Phase::kAllGather, o, nb, {next[c * n + r]}, {});
          } else {
            b.chunk(kRecvOnly, Phase::kAllGather, o, nb, {}, {next[c * n + mod(r - 1, n)]});
          }
        }
      }
    }
  }
  return b.take();
}

}  // namespace

Schedule make_direct(const Geometry& g) {
  if (g.kind == Kind::kSendRecv) return make_send_recv(g);
  ScheduleBuilder b(g);
  const int n = b.size();
  if (n < 2) return b.take();
  const size_t nn = static_cast<size_t>(n);
  std::vector<uint32_t> conn(g.channels * nn * nn, kNone);  // [c][src][dst]
  auto id = [&](uint32_t c, int s, int d) -> uint32_t& {
    return conn[(c * nn + static_cast<size_t>(s)) * nn + static_cast<size_t>(d)];
  };
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int s = 0; s < n; ++s) {
      for (int k = 1; k < n; ++k) id(c, s, (s + k) % n) = b.connect(s, (s + k) % n);
    }
  }
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) {
      Fans f;
      for (int k = 1; k < n; ++k) {
        f.out.push_back(id(c, r, (r + k) % n));
        f.in.push_back(id(c, (r - k + n) % n, r));
      }
      b.open_lane(r, c);
      direct_lane(b, r, c, f);
    }
  }
  return b.take();
}

}  // namespace t3sim::collectives
