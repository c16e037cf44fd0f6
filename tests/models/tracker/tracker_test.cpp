// Contracts of the T3 tracker (models/tracker/tracker.h): every programmed entry triggers exactly
// once (DMA trigger or completion), updates of unprogrammed tiles are ignored, over-updates and
// updates without an entry are ModelErrors, capacity 0 is a ConfigError, the local reserve keeps
// remote arrivals off the last entries; and, on a whole t3 sublayer (t3-ring-8, Mega-GPT-2 FC-2,
// 1024 tokens), a 1-entry table still completes with the same DRAM traffic, only slower.
#include "models/tracker/tracker.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "models/system/scenario.h"
#include "models/system/sublayer.h"
#include "models/system/system.h"
#include "sim/errors.h"
#include "tests/support/fixtures.h"

namespace t3sim::tracker {
namespace {

const std::filesystem::path kConfigs = t3sim::testing::fixtures_dir();
constexpr uint64_t kTileBytes = 4096;

const ConfigDoc& ring8() {
  static const ConfigDoc doc = system::load_system_config("t3-ring-8", kConfigs);
  return doc;
}

class RecordingListener : public TrackerListener {
 public:
  void entry_freed(int gpu) override { ++freed[gpu]; }
  void tile_complete(int gpu, uint32_t tile, uint32_t contributions) override {
    ++completions[{gpu, tile}];
    contrib[{gpu, tile}] = contributions;
  }
  std::map<int, int> freed;
  std::map<std::pair<int, uint32_t>, int> completions;
  std::map<std::pair<int, uint32_t>, uint32_t> contrib;
};

// A tracker on GPU 0 of a fresh t3-ring-8 scenario (real DMA engines and remote memory).
struct Harness {
  explicit Harness(uint32_t capacity, uint32_t local_slots = 4, uint32_t tiles = 16)
      : sc(ring8(), 1, nullptr) {
    sc.allocate(gpu::GemmShape{256, 256, 256}, 2);
    tracker = std::make_unique<Tracker>(sc.sim(), &sc.system().machine_component(0), "tracker_ut",
                                        0, capacity, local_slots, tiles, *sc.machine().gpus[0].dma,
                                        *sc.machine().remote, &listener);
  }
  void update(uint32_t tile, uint64_t bytes = kTileBytes, uint16_t contrib = 1) {
    common::MemRequest r;
    r.addr = sc.buffers(0).c;
    r.bytes = static_cast<uint32_t>(bytes);
    r.cmd = common::MemCmd::kUpdate;
    r.cls = common::TrafficClass::kGemmUpdate;
    r.tile = tile;
    r.contrib = contrib;
    tracker->update_done(r);
  }
  TileProgram final_tile(uint32_t threshold = 2) const {
    TileProgram p;
    p.threshold_updates = threshold;
    p.tile_bytes = kTileBytes;
    return p;
  }
  TileProgram dma_tile(uint32_t tile) {
    TileProgram p = final_tile(2);
    p.has_dma = true;
    p.dma = gpu::DmaDescriptor{sc.buffers(0).c,
                               1,
                               sc.buffers(1).c + tile * kTileBytes,
                               kTileBytes,
                               common::MemCmd::kUpdate,
                               common::TrafficClass::kRsRead,
                               common::TrafficClass::kRsUpdate,
                               common::kNoTile,
                               1,
                               nullptr,
                               0};
    return p;
  }
  system::Scenario sc;
  RecordingListener listener;
  std::unique_ptr<Tracker> tracker;
};

TEST(Tracker, EveryProgrammedEntryTriggersExactlyOnce) {
  Harness h(256);
  for (uint32_t t = 0; t < 8; ++t) h.tracker->program(t, h.final_tile());
  for (uint32_t t = 8; t < 12; ++t) h.tracker->program(t, h.dma_tile(t));
  EXPECT_EQ(h.tracker->programmed(), 12u);
  for (uint32_t t = 0; t < 12; ++t) {
    ASSERT_TRUE(h.tracker->admit_local(t));
    h.update(t);
    EXPECT_EQ(h.listener.completions.count(std::pair<int, uint32_t>{0, t}), 0u)
        << "fired below threshold, tile " << t;
    h.update(t);
  }
  EXPECT_EQ(h.tracker->triggers(), 4u);  // DMA tiles
  EXPECT_EQ(h.listener.completions.size(), 8u);
  for (uint32_t t = 0; t < 8; ++t) {
    const std::pair<int, uint32_t> key{0, t};
    EXPECT_EQ(h.listener.completions[key], 1) << "tile " << t;
    EXPECT_EQ(h.listener.contrib[key], 2u) << "tile " << t;
  }
  EXPECT_EQ(h.listener.freed[0], 12);  // one per fired entry
  EXPECT_EQ(h.tracker->max_occupancy(), 1u);
  // Runs the triggered DMAs to completion, then every component's end-of-run invariants
  // (including Tracker::finish: no programmed entry left unfired).
  EXPECT_NO_THROW(h.sc.run());
  EXPECT_EQ(h.sc.machine().remote->bytes_landed(1), 4 * kTileBytes);
}

TEST(Tracker, ContributionsAreSummedOverUpdates) {
  Harness h(16);
  h.tracker->program(3, h.final_tile(3));
  ASSERT_TRUE(h.tracker->admit_local(3));
  h.update(3, kTileBytes, 1);
  h.update(3, kTileBytes, 5);  // a forwarded partial sum of 5 GPUs
  EXPECT_TRUE(h.listener.completions.empty());
  h.update(3, kTileBytes, 2);
  EXPECT_EQ(h.listener.contrib[(std::pair<int, uint32_t>{0, 3})], 8u);
}

TEST(Tracker, UnfiredProgrammedEntryFailsFinish) {
  Harness h(16);
  h.tracker->program(0, h.final_tile());
  h.tracker->program(1, h.final_tile());
  ASSERT_TRUE(h.tracker->admit_local(0));
  h.update(0);
  h.update(0);
  EXPECT_THROW(h.tracker->finish(), ModelError);  // tile 1 never triggered
}

TEST(Tracker, UpdateForUnprogrammedTileIsIgnored) {
  Harness h(16);
  h.tracker->program(0, h.final_tile());
  EXPECT_TRUE(h.tracker->admit_local(5));  // untracked tiles always dispatch
  EXPECT_NO_THROW(h.update(5));
  EXPECT_NO_THROW(h.update(5));
  EXPECT_NO_THROW(h.update(5));
  EXPECT_NO_THROW(h.update(common::kNoTile));
  EXPECT_NO_THROW(h.update(1000));  // beyond the table
  EXPECT_EQ(h.tracker->triggers(), 0u);
  EXPECT_TRUE(h.listener.completions.empty());
  EXPECT_EQ(h.tracker->max_occupancy(), 0u);  // no entry was taken for them
  ASSERT_TRUE(h.tracker->admit_local(0));
  h.update(0);
  h.update(0);
  EXPECT_NO_THROW(h.tracker->finish());
}

TEST(Tracker, UpdateAfterTriggerIsModelError) {
  Harness h(16);
  h.tracker->program(2, h.final_tile());
  ASSERT_TRUE(h.tracker->admit_local(2));
  h.update(2);
  h.update(2);
  EXPECT_THROW(h.update(2), ModelError);
}

TEST(Tracker, OverUpdateBeyondThresholdIsModelError) {
  Harness h(16);
  h.tracker->program(2, h.final_tile());
  ASSERT_TRUE(h.tracker->admit_local(2));
  h.update(2, kTileBytes * 3 / 2);
  EXPECT_THROW(h.update(2, kTileBytes * 3 / 2), ModelError);  // 3 tiles' bytes vs threshold 2
}

TEST(Tracker, UpdateWithoutEntryIsModelError) {
  Harness h(16);
  h.tracker->program(4, h.final_tile());
  EXPECT_THROW(h.update(4), ModelError);  // neither admitted locally nor remotely
}

TEST(Tracker, ProgrammingATileTwiceIsModelError) {
  Harness h(16);
  h.tracker->program(4, h.final_tile());
  EXPECT_THROW(h.tracker->program(4, h.final_tile()), ModelError);
}

TEST(Tracker, CapacityZeroIsConfigError) {
  system::Scenario sc(ring8(), 1, nullptr);
  RecordingListener l;
  EXPECT_THROW(Tracker(sc.sim(), &sc.system().machine_component(0), "tracker_zero", 0, 0, 4, 16,
                       *sc.machine().gpus[0].dma, *sc.machine().remote, &l),
               ConfigError);
}

TEST(Tracker, CapacityZeroInSystemConfigIsConfigError) {
  system::SublayerSpec spec;
  spec.shape = {1024, 3072, 1536};
  EXPECT_THROW(
      {
        const ConfigDoc doc =
            system::load_system_config("t3-ring-8", kConfigs, {"t3.tracker_entries=0"});
        system::run_sublayer(doc, spec, system::Mode::kT3);
      },
      ConfigError);
}

TEST(Tracker, CapacityOneServesOneEntryAtATime) {
  Harness h(1, /*local_slots=*/4);
  for (uint32_t t = 0; t < 3; ++t) h.tracker->program(t, h.final_tile());
  // The single entry is the local reserve: remote arrivals must wait for the local dispatch.
  EXPECT_FALSE(h.tracker->admit_remote(0));
  EXPECT_TRUE(h.tracker->admit_local(0));
  EXPECT_TRUE(h.tracker->admit_remote(0));  // already has its entry
  EXPECT_FALSE(h.tracker->admit_local(1));  // table full: the WG stalls
  EXPECT_TRUE(h.tracker->admit_local(7));   // an untracked tile never stalls
  EXPECT_EQ(h.tracker->stalls(), 2u);
  h.update(0);
  h.update(0);
  EXPECT_TRUE(h.tracker->admit_local(1));  // freed by the trigger
  h.update(1);
  h.update(1);
  EXPECT_TRUE(h.tracker->admit_local(2));
  h.update(2);
  h.update(2);
  EXPECT_EQ(h.tracker->max_occupancy(), 1u);
  EXPECT_EQ(h.listener.completions.size(), 3u);
  EXPECT_NO_THROW(h.tracker->finish());
}

TEST(Tracker, RemoteArrivalsCannotTakeTheLocalReserve) {
  Harness h(4, /*local_slots=*/2);  // reserve = min(2, 4 / 2) = 2 entries for local WGs
  for (uint32_t t = 0; t < 6; ++t) h.tracker->program(t, h.final_tile());
  EXPECT_TRUE(h.tracker->admit_remote(0));
  EXPECT_TRUE(h.tracker->admit_remote(1));
  EXPECT_FALSE(h.tracker->admit_remote(2));
  EXPECT_TRUE(h.tracker->admit_local(2));
  EXPECT_TRUE(h.tracker->admit_local(3));
  EXPECT_FALSE(h.tracker->admit_local(4));
  EXPECT_EQ(h.tracker->max_occupancy(), 4u);
}

// ---- whole t3 sublayers -------------------------------------------------------------------------

system::SublayerSpec small_fc2() {
  system::SublayerSpec s;
  s.shape = {1024, 3072, 1536};  // Mega-GPT-2 FC-2 forward at TP 8, 1024 tokens
  return s;
}

TEST(TrackerInSublayer, TriggersEqualProgrammedDmaEntries) {
  const auto r = system::run_sublayer(ring8(), small_fc2(), system::Mode::kT3);
  const uint64_t n = 8, tiles = (1024 / 128) * (3072 / 128);
  EXPECT_EQ(r.tracker_triggers, (n - 2) * (tiles / n) * n);
  EXPECT_GT(r.tracker_max_occupancy, 0u);
  EXPECT_LE(r.tracker_max_occupancy, 256u);
}

TEST(TrackerInSublayer, CapacityOneCompletesWithSameTraffic) {
  const auto normal = system::run_sublayer(ring8(), small_fc2(), system::Mode::kT3);
  const ConfigDoc one = system::load_system_config("t3-ring-8", kConfigs, {"t3.tracker_entries=1"});
  system::SublayerResult tiny;
  ASSERT_NO_THROW(tiny = system::run_sublayer(one, small_fc2(), system::Mode::kT3));
  EXPECT_EQ(tiny.dram_total, normal.dram_total);
  EXPECT_EQ(tiny.dram_bytes, normal.dram_bytes);
  EXPECT_EQ(tiny.link_bytes, normal.link_bytes);
  EXPECT_EQ(tiny.tracker_triggers, normal.tracker_triggers);
  EXPECT_EQ(tiny.tracker_max_occupancy, 1u);
  EXPECT_GT(tiny.tracker_stalls, normal.tracker_stalls);
  EXPECT_GT(tiny.total_us, normal.total_us);
}

}  // namespace
}  // namespace t3sim::tracker
