// Runs whose cost is refused before they start, one test per class: a collective schedule past its
// bounds (a ring all-reduce on 8192 GPUs stores 2n(n-1) x channels slices; a 2^49 B all-reduce
// cuts its buffer into billions of chunks), refused with ScheduleTooLarge before the schedule is
// built instead of std::bad_alloc; and a transfer on an in-range 1 B/s link that would pass 2^64
// ps, refused with one line instead of a wrapped tick ("schedule ... before now").
#include <gtest/gtest.h>

#include <cstdint>

#include "models/collectives/schedule_builder.h"
#include "models/collectives/schedule_limits.h"
#include "sim/errors.h"
#include "studies/probes.h"
#include "tests/reliability/rejects.h"

namespace t3sim::reliability {
namespace {

using collectives::ScheduleTooLarge;

collectives::CollectiveSpec all_reduce(uint64_t bytes) {
  collectives::CollectiveSpec spec;
  spec.bytes = bytes;
  spec.fold = true;
  return spec;
}

TEST(RunCostLimits, RingOnThousandsOfGpusIsRefusedBeforeItsScheduleIsBuilt) {
  // A ring over 8192 GPUs: 2 x 8191 steps per channel (2^31 chunk operations on 16 channels, or
  // 2^27 slices on the one channel the tuner picks for 1 MiB); the fold does not hold (1 MiB leaves
  // most ranks' chunks empty), so every GPU would be simulated. Either bound refuses it first.
  EXPECT_TRUE(rejects<ScheduleTooLarge>(
      [] { studies::probe_collective(ring8({"gpus=8192"}), all_reduce(1 << 20)); },
      "the all_reduce of 1048576 B on 8192 GPUs (ring, "));
  // The generator alone, without a machine: refused from the geometry, before any op is stored.
  collectives::Geometry g;
  g.bytes = 1 << 20;
  g.channels = 16;
  g.chunk = 1 << 20;
  for (int i = 0; i < 8192; ++i) g.ranks.push_back(i);
  EXPECT_TRUE(rejects<ScheduleTooLarge>([&] { collectives::make_ring(g); },
                                        "its schedule would hold 2147483648 slices"));
  g.ranks.resize(64);  // 16 x 64 x 127 chunks: built
  EXPECT_EQ(collectives::make_ring(g).lanes.size(), 16u * 64u);
}

TEST(RunCostLimits, HugeAllReduceIsRefusedBeforeItRuns) {
  EXPECT_TRUE(rejects<ScheduleTooLarge>(
      [] { studies::probe_collective(ring8(), all_reduce(uint64_t{1} << 49)); },
      "over the 2^39 B x GPUs t3sim simulates in one run"));
  // Loops alone past the bound: refused before the loop list is allocated.
  EXPECT_TRUE(rejects<ScheduleTooLarge>(
      [] { collectives::make_loops(uint64_t{1} << 50, 1, 1, 4096); }, "slices"));
  EXPECT_GT(studies::probe_collective(ring8(), all_reduce(1 << 20)).time_us, 0.0);
}

TEST(RunCostLimits, TransferPastTwoToThe64PicosecondsIsOneLine) {
  // 18,446,745 B at 1 B/s is 1.8447e19 ps, past 2^64: saturated, then refused when scheduled.
  EXPECT_EQ(transfer_time(Bytes(18'446'745), Bandwidth::bytes_per_s(1)), Duration::max());
  EXPECT_EQ(Tick::from_ps(5) + Duration::max(), Tick::max());
  const ConfigDoc slow = ring8({"fabric.link.bandwidth=\"1 B/s\""});
  EXPECT_TRUE(rejects<UsageError>([&] { studies::probe_p2p(slow, 0, 1, 18'446'745); },
                                  "simulated time would pass 2^64 ps"));
  EXPECT_GT(studies::probe_p2p(slow, 0, 1, 4096).time.count_ps(), 0u);  // 4 KiB: 4096 s, fits
}

}  // namespace
}  // namespace t3sim::reliability
