// GemmKernel's epilogue: the end of a WG's K loop, split-K partials and their reduction, the output
// tile store (local WRITE/UPDATE or remote UPDATE per the plan), completions and end-of-run
// checks (gemm_kernel.h).
#include "models/gpu/gemm_kernel.h"

#include "sim/errors.h"
#include "sim/simulator.h"

namespace t3sim::gpu {
// The K loop and the per-WG overhead are done.
void GemmKernel::k_loop_done(uint64_t w64) {
  const auto w = static_cast<uint32_t>(w64);
  if (plan_.split_k == 1) {
    store(w);
  } else {
    split_done(w);
  }
}

// Split-K: all but the last split of a tile write their partial and leave; the last reduces.
void GemmKernel::split_done(uint32_t w) {
  const uint32_t tile = wgs_[w].tile;
  if (--splits_left_[tile] == 0) {
    reducer_[tile] = w;
    if (partials_out_[tile] == 0) reduce(w);
    return;
  }
  Access a;
  a.addr = plan_.workspace_addr + (static_cast<uint64_t>(tile) * plan_.split_k + wgs_[w].split) *
                                      plan_.tile_m * plan_.tile_n * kPartialElemBytes;
  a.bytes = tile_partial_bytes(tile);
  a.cmd = common::MemCmd::kWrite;
  a.cls = common::TrafficClass::kGemmWrite;
  a.done = this;
  a.tag = kPartialTag | tile;
  ++partials_out_[tile];
  partial_bytes_.inc(a.bytes);
  stores_.submit(a);
  release(w);
  dispatch();
}

// The reducing WG reads the tile's s-1 partials back (one access over its workspace slots).
void GemmKernel::reduce(uint32_t w) {
  const uint32_t tile = wgs_[w].tile;
  reducer_[tile] = kNoWg;
  Access a;
  a.addr = plan_.workspace_addr + static_cast<uint64_t>(tile) * plan_.split_k * plan_.tile_m *
                                      plan_.tile_n * kPartialElemBytes;
  a.bytes = tile_partial_bytes(tile) * (plan_.split_k - 1);
  a.cmd = common::MemCmd::kRead;
  a.cls = common::TrafficClass::kGemmRead;
  a.done = this;
  a.tag = kReduceTag | w;
  reads_.submit(a);
}

// Timeline: WG slot w's run on its CU group's track (16 CUs per group).
void GemmKernel::trace_wg(Timeline& tl, uint32_t w) const {
  const uint32_t group = w / spec_.wgs_per_cu / 16;
  const std::string track =
      "CUs " + std::to_string(group * 16) + "-" + std::to_string(group * 16 + 15);
  tl.async(tl.track(gpu_, track), name(), wgs_[w].started, now());
}

// Ends WG slot w's work item: the slot is free (per_tile) or its persistent CTA wants its next
// item. The caller dispatches more work.
void GemmKernel::release(uint32_t w) {
  Wg& wg = wgs_[w];
  wg.busy = false;
  if (Timeline* tl = sim().timeline()) trace_wg(*tl, w);
  if (persistent_) {
    wanting_.push_back(w);
  } else {
    free_wgs_.push_back(w);
  }
}

void GemmKernel::store(uint32_t w) {
  const uint32_t tile = wgs_[w].tile;
  const TileStore& s = plan_.stores[tile];
  const uint64_t bytes = plan_.tile_bytes(tile);
  tiles_.inc();
  if (s.cached) l2_.pollute(plan_.panels() * phases_total() + tile, bytes);
  if (s.dst_gpu == gpu_) {
    Access a;
    a.addr = s.addr;
    a.bytes = bytes;
    a.cmd = s.cmd;
    a.cls = s.cls;
    a.tile = s.tracker_tile;
    a.write_back = s.cached && s.cmd == common::MemCmd::kWrite;  // write-allocate, write-back L2
    a.done = this;
    a.tag = kStoreTag | tile;
    stores_.submit(a);
  } else {
    RemoteAccess r;
    r.src = gpu_;
    r.dst = s.dst_gpu;
    r.addr = s.addr;
    r.bytes = bytes;
    r.cmd = s.cmd;
    r.cls = s.cls;
    r.tile = s.tracker_tile;
    r.done = this;
    r.tag = kStoreTag | tile;
    remote_.post(r);
  }
  release(w);
  if (--computing_left_ == 0) {
    compute_done_ = now();
    if (clock_ != nullptr) clock_->kernel_ended();
    if (residency_ != nullptr) residency_->detach(&l2_);
  }
  if (hooks_ != nullptr) hooks_->tile_computed(tile);
  dispatch();
}

void GemmKernel::access_done(uint64_t tag) {
  if ((tag & kStoreTag) != 0) {
    if (--stores_left_ == 0) {
      done_ = now();
      if (hooks_ != nullptr) hooks_->kernel_done();
    }
    return;
  }
  if ((tag & kPartialTag) != 0) {
    const auto tile = static_cast<uint32_t>(tag & ~kPartialTag);
    if (--partials_out_[tile] == 0 && reducer_[tile] != kNoWg) reduce(reducer_[tile]);
    return;
  }
  if ((tag & kReduceTag) != 0) {
    store(static_cast<uint32_t>(tag & ~kReduceTag));
    return;
  }
  if ((tag & kHitTag) != 0) {
    operand_ready(static_cast<uint32_t>(tag & ~kHitTag), now());
    return;
  }
  l2_.filled(static_cast<uint32_t>(tag), *this);
}

void GemmKernel::finish() {
  // A launched kernel that never finished would report Tick::max() as its end time.
  if (!wgs_.empty() && done_ == Tick::max()) {
    throw ModelError(path(), "launched but never finished: " + std::to_string(computing_left_) +
                                 " of " + std::to_string(plan_.tiles()) + " tiles not computed, " +
                                 std::to_string(stores_left_) + " stores outstanding");
  }
  if (stores_left_ != 0 && start_ != Tick::max()) {
    throw ModelError(path(), std::to_string(stores_left_) + " of " + std::to_string(plan_.tiles()) +
                                 " tile stores never completed");
  }
}

}  // namespace t3sim::gpu
