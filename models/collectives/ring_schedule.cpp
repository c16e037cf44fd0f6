// Ring schedules after NCCL's runRing (src/device/all_reduce.h, reduce_scatter.h, all_gather.h):
// per channel a ring rank -> rank+1, per loop nranks chunks per channel; rank r starts by sending
// chunk r-1 and ends owning the reduced chunk r (hardware.md §5.1). A reversed ring (ring_step -1)
// is the mirror image: rank r sends to r-1, starts with chunk r+1 and still ends owning chunk r.
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

void ring_all_reduce_lane(ScheduleBuilder& b, int r, uint32_t c, uint32_t send, uint32_t recv) {
  const Geometry& g = b.geo();
  const int n = b.size();
  const int d = g.ring_step;
  for (const Loop& lp : make_loops(g.bytes, g.channels, static_cast<uint64_t>(n), g.chunk)) {
    auto at = [&](int j) { return ar_offset(g, lp, c, mod(j, n), n); };
    auto len = [&](int j) { return clamp_len(g.bytes, at(j), lp.real); };
    b.chunk(kSendOnly, Phase::kReduceScatter, at(r - d), len(r - d), {send}, {});
    for (int j = 2; j < n; ++j) {
      b.chunk(kRecvReduceSend, Phase::kReduceScatter, at(r - d * j), len(r - d * j), {send},
              {recv});
    }
    b.chunk(kRecvReduceCopySend, Phase::kReduceScatter, at(r), len(r), {send}, {recv});
    for (int j = 1; j < n - 1; ++j) {
      b.chunk(kRecvCopySend, Phase::kAllGather, at(r - d * j), len(r - d * j), {send}, {recv});
    }
    b.chunk(kRecvOnly, Phase::kAllGather, at(r + d), len(r + d), {}, {recv});
  }
}

// Reduce-scatter / all-gather: rank j's part is [j*P, (j+1)*P); loops run over one part.
void ring_rs_ag_lane(ScheduleBuilder& b, int r, uint32_t c, uint32_t send, uint32_t recv) {
  const Geometry& g = b.geo();
  const int n = b.size();
  const uint64_t part = g.bytes / static_cast<uint64_t>(n);
  const bool rs = g.kind == Kind::kReduceScatter;
  const int d = g.ring_step;
  const Phase ph = rs ? Phase::kReduceScatter : Phase::kAllGather;
  for (const Loop& lp : make_loops(part, g.channels, 1, g.chunk)) {
    const uint64_t in_part = lp.grid + c * lp.real;
    const uint64_t nb = clamp_len(part, in_part, lp.real);
    auto at = [&](int j) { return static_cast<uint64_t>(mod(j, n)) * part + in_part; };
    if (rs) {
      b.chunk(kSendOnly, ph, at(r - d), nb, {send}, {});
      for (int j = 2; j < n; ++j) b.chunk(kRecvReduceSend, ph, at(r - d * j), nb, {send}, {recv});
      b.chunk(kRecvReduceCopy, ph, at(r), nb, {}, {recv});
    } else {
      b.chunk(kSendOnly, ph, at(r), nb, {send}, {});
      for (int j = 1; j < n - 1; ++j) {
        b.chunk(kRecvCopySend, ph, at(r - d * j), nb, {send}, {recv});
      }
      b.chunk(kRecvOnly, ph, at(r + d), nb, {}, {recv});
    }
  }
}

}  // namespace

Schedule make_ring(const Geometry& g) {
  ScheduleBuilder b(g);
  const int n = b.size();
  if (n < 2) return b.take();
  const int d = g.ring_step;
  std::vector<uint32_t> next(static_cast<size_t>(n) * g.channels);  // conn r -> r+d, channel c
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) next[c * n + r] = b.connect(r, mod(r + d, n));
  }
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) {
      b.open_lane(r, c);
      const uint32_t send = next[c * n + r];
      const uint32_t recv = next[c * n + mod(r - d, n)];
      if (g.kind == Kind::kAllReduce) {
        ring_all_reduce_lane(b, r, c, send, recv);
      } else {
        ring_rs_ag_lane(b, r, c, send, recv);
      }
    }
  }
  return b.take();
}

}  // namespace t3sim::collectives
