#include "models/tracker/tracker.h"

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::tracker {

Params tracker_params() {
  Params p;
  p.optional("tracker_entries", ParamKind::kInt, 256, "tracker table entries per GPU")
      .range(1, 1 << 20);
  return p;
}

Tracker::Tracker(Simulator& sim, Component* parent, std::string name, int gpu, uint32_t capacity,
                 uint32_t local_slots, uint32_t tiles, gpu::DmaEngines& dma,
                 gpu::RemoteMemory& remote, TrackerListener* listener)
    : Component(sim, parent, std::move(name)),
      gpu_(gpu),
      capacity_(capacity),
      local_reserve_(std::max<uint32_t>(1, std::min(local_slots, capacity / 2))),
      dma_(dma),
      remote_(remote),
      listener_(listener),
      entries_(tiles),
      occupancy_hist_(std::max<uint64_t>(1, capacity / 16), 16) {
  if (capacity_ == 0) throw ConfigError("", "/t3/tracker_entries", "tracker capacity must be >= 1");
  stats().add("triggers", triggers_, "count", "entries that fired their DMA");
  stats().add("completions", completions_, "count", "final tiles fully reduced (no DMA)");
  stats().add("local_stalls", local_stalls_, "count", "WG dispatches refused: table full");
  stats().add("remote_parks", remote_parks_, "count", "arrivals parked: table full");
  stats().add("occupancy", occupancy_hist_, "entries", "occupancy at each change");
  stats().add("occupancy_avg", occupancy_tw_, "entries", "time-weighted occupancy");
}

void Tracker::program(uint32_t tile, const TileProgram& p) {
  Entry& e = entries_[tile];
  if (e.programmed) throw ModelError(path(), "tile " + std::to_string(tile) + " programmed twice");
  e.prog = p;
  e.programmed = true;
  ++programmed_;
}

void Tracker::set_occupancy(uint32_t occ) {
  occupancy_ = occ;
  max_occupancy_ = std::max(max_occupancy_, occ);
  occupancy_hist_.sample(occ);
  occupancy_tw_.set(now(), occ);
  if (Timeline* tl = sim().timeline())
    tl->level(tl->counter(gpu_, "tracker occupancy"), now(), occ);
}

bool Tracker::allocate(uint32_t tile, uint32_t limit) {
  Entry& e = entries_[tile];
  if (!e.programmed || e.allocated || e.fired) return true;
  if (occupancy_ >= limit) return false;
  e.allocated = true;
  set_occupancy(occupancy_ + 1);
  return true;
}

bool Tracker::admit_local(uint32_t tile) {
  if (allocate(tile, capacity_)) {
    remote_.unpark_tile(gpu_, tile);  // early arrivals for this tile may now land
    return true;
  }
  local_stalls_.inc();
  return false;
}

bool Tracker::admit_remote(uint32_t tile) {
  if (allocate(tile, capacity_ - local_reserve_)) return true;
  remote_parks_.inc();
  return false;
}

void Tracker::update_done(const common::MemRequest& req) {
  if (req.tile >= entries_.size()) return;
  Entry& e = entries_[req.tile];
  if (!e.programmed) return;  // an untracked update (e.g. a stage-1 store's own bookkeeping)
  if (!e.allocated || e.fired) {
    throw ModelError(path(), "update for tile " + std::to_string(req.tile) +
                                 (e.fired ? " after its trigger fired" : " without an entry"));
  }
  e.bytes_seen += req.bytes;
  e.contrib_bytes += static_cast<uint64_t>(req.contrib) * req.bytes;
  const uint64_t threshold = e.prog.threshold_updates * e.prog.tile_bytes;
  if (e.bytes_seen < threshold) return;
  if (e.bytes_seen > threshold) throw ModelError(path(), "tile over-updated");
  e.fired = true;
  e.allocated = false;
  set_occupancy(occupancy_ - 1);
  const auto contributions = static_cast<uint32_t>(e.contrib_bytes / e.prog.tile_bytes);
  if (e.prog.has_dma) {
    triggers_.inc();
    gpu::DmaDescriptor d = e.prog.dma;
    d.contrib = static_cast<uint16_t>(contributions);
    if (Timeline* tl = sim().timeline()) {  // trigger -> DMA -> remote update
      d.flow = tl->new_flow();
      tl->slice(tl->track(gpu_, "tracker"), "trigger", now(), now() + Duration::ns(1), d.flow,
                FlowRole::kOut);
    }
    dma_.submit(d);
  } else {
    completions_.inc();
    if (listener_ != nullptr) listener_->tile_complete(gpu_, req.tile, contributions);
  }
  remote_.unpark(gpu_);
  if (listener_ != nullptr) listener_->entry_freed(gpu_);
}

void Tracker::finish() {
  uint32_t unfired = 0;
  for (const Entry& e : entries_) unfired += (e.programmed && !e.fired) ? 1 : 0;
  if (unfired != 0) {
    throw ModelError(path(), std::to_string(unfired) + " of " + std::to_string(programmed_) +
                                 " programmed tracker entries never triggered");
  }
}

}  // namespace t3sim::tracker

namespace t3sim::tracker {

void register_tracker_models(Registry& r) {
  r.add(ComponentType{"tracker",
                      "T3 track-and-trigger table beside a memory controller (the system's \"t3\" "
                      "object)",
                      tracker_params, nlohmann::json::object(), nullptr});
}

}  // namespace t3sim::tracker
