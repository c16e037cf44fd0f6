// Tracker: T3's track-and-trigger unit beside one GPU's memory controller (t3-paper.md §3.3-3.4).
// A table of `capacity` entries indexed by output-tile id counts the bytes of local and remote NMC
// UPDATEs that have been performed for each tile; when a tile reaches its programmed threshold
// (e.g. 2 updates: the local GEMM store + the neighbour's partial sum) the entry fires its
// pre-programmed DMA (or, for a final tile, just completes) and is freed.
// Allocation (t3sim's choice; the paper gives no policy): the first update or the local WG
// dispatch allocates; remote arrivals may not take the last `local_reserve` entries (one per
// concurrent local WG, at most half the table, at least one), so early partial sums cannot starve
// the local GEMM; a full table stalls WGs and parks arrivals (in arrival order) but cannot
// deadlock. Contract: every programmed tile triggers exactly once; finish() checks it.
#pragma once

#include <cstdint>
#include <vector>

#include "models/common/memory.h"
#include "models/gpu/dma_engine.h"
#include "models/gpu/remote_memory.h"
#include "sim/component.h"
#include "sim/params.h"
#include "sim/registry.h"

namespace t3sim::tracker {

struct TileProgram {
  uint32_t threshold_updates = 2;  // updates (each one tile's bytes) before the trigger
  uint64_t tile_bytes = 0;
  bool has_dma = false;
  gpu::DmaDescriptor dma;  // pre-programmed transfer; contrib is filled in at trigger time
};

class TrackerListener {
 public:
  virtual ~TrackerListener() = default;
  virtual void entry_freed(int gpu) = 0;                                           // WGs may retry
  virtual void tile_complete(int gpu, uint32_t tile, uint32_t contributions) = 0;  // no-DMA tiles
};

Params tracker_params();

class Tracker : public Component, public common::UpdateObserver, public gpu::IngressGate {
 public:
  // `local_slots` = WGs the local GEMM runs at once (CUs x WGs per CU).
  Tracker(Simulator& sim, Component* parent, std::string name, int gpu, uint32_t capacity,
          uint32_t local_slots, uint32_t tiles, gpu::DmaEngines& dma, gpu::RemoteMemory& remote,
          TrackerListener* listener);
  void program(uint32_t tile, const TileProgram& p);
  // Local WG dispatch: true if the tile is untracked or has/gets an entry.
  bool admit_local(uint32_t tile);
  bool admit_remote(uint32_t tile) override;
  void update_done(const common::MemRequest& req) override;
  uint64_t triggers() const { return triggers_.value(); }
  uint32_t max_occupancy() const { return max_occupancy_; }
  uint64_t stalls() const { return local_stalls_.value() + remote_parks_.value(); }
  uint32_t programmed() const { return programmed_; }
  void finish() override;

 private:
  struct Entry {
    TileProgram prog;
    uint64_t bytes_seen = 0;
    uint64_t contrib_bytes = 0;  // sum of contrib x bytes
    bool programmed = false;
    bool allocated = false;
    bool fired = false;
  };
  bool allocate(uint32_t tile, uint32_t limit);
  void set_occupancy(uint32_t occ);

  int gpu_;
  uint32_t capacity_;
  uint32_t local_reserve_;
  gpu::DmaEngines& dma_;
  gpu::RemoteMemory& remote_;
  TrackerListener* listener_;
  std::vector<Entry> entries_;
  uint32_t occupancy_ = 0;
  uint32_t max_occupancy_ = 0;
  uint32_t programmed_ = 0;
  Counter triggers_;
  Counter completions_;
  Counter local_stalls_;
  Counter remote_parks_;
  Histogram occupancy_hist_;
  TimeWeighted occupancy_tw_;
};

}  // namespace t3sim::tracker

namespace t3sim::tracker {
void register_tracker_models(Registry& r);
}  // namespace t3sim::tracker
