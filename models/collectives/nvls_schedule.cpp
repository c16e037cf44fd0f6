// NVLS schedules (NCCL's runNvls on NVLink SHARP, hardware.md §5.1-5.2): no connections; each rank
// owns one share of the data and, per channel and loop, one chunk of it. An op is one chunk with
// the NVLS meaning of its flags (nvls_executor.h): kRecv = multimem.ld_reduce over the group (the
// switch reduces every GPU's copy), kSend = multimem.st (the switch multicasts to every GPU),
// kWriteLocal = store the reduced chunk locally (reduce-scatter), kReadLocal = load the local chunk
// (all-gather). All-reduce = ld_reduce + multicast of each rank's share.
#include "models/collectives/schedule_builder.h"

namespace t3sim::collectives {

Schedule make_nvls(const Geometry& g) {
  ScheduleBuilder b(g);
  const int n = b.size();
  const uint64_t nn = static_cast<uint64_t>(n);
  const bool ar = g.kind == Kind::kAllReduce;
  const bool rs = g.kind == Kind::kReduceScatter;
  const uint8_t flags = ar ? (kRecv | kSend) : rs ? (kRecv | kWriteLocal) : (kReadLocal | kSend);
  const Phase ph = g.kind == Kind::kAllGather ? Phase::kAllGather : Phase::kReduceScatter;
  const uint64_t part = ar ? g.bytes : g.bytes / nn;
  const std::vector<Loop> loops = make_loops(part, g.channels, ar ? nn : 1, g.chunk);
  b.reserve_ops(g.channels * nn * loops.size() * g.slices_per_chunk);
  for (uint32_t c = 0; c < g.channels; ++c) {
    for (int r = 0; r < n; ++r) {
      b.open_lane(r, c);
      const uint64_t rr = static_cast<uint64_t>(r);
      for (const Loop& lp : loops) {
        // all-reduce: chunk (rank, channel) of the loop; else the rank's part, the channel's chunk
        const uint64_t off =
            ar ? lp.grid + (rr * g.channels + c) * lp.real : rr * part + lp.grid + c * lp.real;
        const uint64_t end = ar ? g.bytes : (rr + 1) * part;
        b.chunk(flags, ph, off, clamp_len(end, off, lp.real), {}, {});
      }
    }
  }
  return b.take();
}

}  // namespace t3sim::collectives
